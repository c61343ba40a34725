"""reserve.capacity.maths: a host's offer over time (steps, least,
least_fit); the windows a booking fits in and placement are
test_capacity_placement.py's."""
import datetime

from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import pytest

from reserve.capacity import maths
from tests.unit.capacity_reference import brute_at
from tests.unit.capacity_reference import host_capacities
from tests.unit.capacity_reference import RESOURCES
from tests.unit.capacity_reference import sizes
from tests.unit.capacity_reference import timed_allocations
from tests.unit.capacity_reference import value_at
from tests.unit.capacity_reference import windows

T0 = datetime.datetime(2030, 1, 1, 8, 0)


def at(minute):
    return T0 + datetime.timedelta(minutes=minute)


def allocation(start, until, amount=1, **size):
    return maths.Allocation(at(start), at(until), amount, size)


def least(step_list):
    """The smallest value of a step function."""
    return min(value for _, value in step_list)


def slots(capacity, allocations, need, start, end):
    """What the host holds of ``need`` over the whole of [start, end)."""
    return least(maths.steps(capacity, allocations, need, at(start), at(end)))


HOST = {'vcpus': 64, 'memory_mb': 512, 'disk_gb': 1000}
GPU_FLAVOR = {'vcpus': 16, 'memory_mb': 128, 'disk_gb': 100}


# A host's offer over a window: examples -------------------------------------

def test_empty_host_fits_its_tightest_resource():
    # 64/16 = 4 by vcpus, 512/128 = 4 by memory, 1000/100 = 10 by disk
    assert slots(HOST, [], GPU_FLAVOR, 0, 60) == 4
    assert slots(HOST, [], {'disk_gb': 100}, 0, 60) == 10
    assert maths.empty_fit(HOST, GPU_FLAVOR) == 4


def test_overlapping_allocation_reduces_the_slots():
    used = [allocation(30, 90, amount=3, **GPU_FLAVOR)]
    assert slots(HOST, used, GPU_FLAVOR, 0, 60) == 1


def test_peak_of_overlapping_allocations_decides():
    # Each allocation alone leaves 2 slots; only minutes 40-50 see both.
    used = [allocation(0, 50, amount=2, **GPU_FLAVOR),
            allocation(40, 120, amount=2, **GPU_FLAVOR)]
    assert slots(HOST, used, GPU_FLAVOR, 0, 40) == 2
    assert slots(HOST, used, GPU_FLAVOR, 50, 120) == 2
    assert slots(HOST, used, GPU_FLAVOR, 0, 120) == 0


def test_allocations_that_do_not_overlap_each_other_do_not_add_up():
    used = [allocation(0, 30, amount=3, **GPU_FLAVOR),
            allocation(30, 60, amount=3, **GPU_FLAVOR)]
    assert slots(HOST, used, GPU_FLAVOR, 0, 60) == 1


@pytest.mark.parametrize('start,end', [(-60, 0), (60, 120), (-30, 0)])
def test_windows_are_half_open(start, end):
    # An allocation ending when the window starts, or starting when it ends,
    # takes nothing from it: back-to-back bookings hand over.
    used = [allocation(start, end, amount=4, **GPU_FLAVOR)]
    assert slots(HOST, used, GPU_FLAVOR, 0, 60) == 4


def test_allocation_started_before_the_window_counts():
    used = [allocation(-600, 10, amount=4, **GPU_FLAVOR)]
    assert slots(HOST, used, GPU_FLAVOR, 0, 60) == 0


def test_allocation_of_another_size_counts_per_instance():
    # 2 instances of 200 MB each leave 112 MB: no room for 128 MB.
    used = [allocation(0, 60, amount=2, vcpus=1, memory_mb=200, disk_gb=0)]
    assert slots(HOST, used, GPU_FLAVOR, 0, 60) == 0


def test_host_already_overcommitted_fits_nothing():
    used = [allocation(0, 60, amount=1, memory_mb=600)]
    assert slots(HOST, used, {'vcpus': 1}, 0, 60) == 0


def test_need_of_nothing_is_unbounded():
    assert slots(HOST, [], {}, 0, 60) == maths.UNBOUNDED
    assert slots(HOST, [], {'vcpus': 0}, 0, 60) == maths.UNBOUNDED
    assert maths.empty_fit(HOST, {'gpus': {}}) == maths.UNBOUNDED
    assert maths.empty_fit(HOST, {'gpus': {'VGPU': 0}}) == maths.UNBOUNDED


def test_gpu_count_of_zero_asks_no_gpu():
    # as if the flavor named none: the CPUs decide, GPUs or none
    for gpus in ({'VGPU': 2}, {}, None):
        host = dict(HOST, gpus=gpus)
        assert maths.empty_fit(host, dict(GPU_FLAVOR,
                                          gpus={'VGPU': 0})) == 4


def test_missing_capacity_counts_as_zero():
    assert slots({'vcpus': 64}, [], GPU_FLAVOR, 0, 60) == 0


def test_steps_change_where_allocations_start_and_end():
    used = [allocation(-10, 20, amount=1, **GPU_FLAVOR),
            allocation(30, 90, amount=3, **GPU_FLAVOR),
            # starts and ends at the same instants: no step of its own
            allocation(40, 50, amount=1, disk_gb=1)]
    assert maths.steps(HOST, used, GPU_FLAVOR, at(0), at(60)) == [
        (at(0), 3), (at(20), 4), (at(30), 1)]
    assert maths.steps(HOST, [], GPU_FLAVOR, at(0), at(60)) == [(at(0), 4)]


# A host's offer: against a minute-by-minute reference ------------------------

def reference_slots(cap, allocations, need, start, end):
    """The most instances of ``need`` that fit at every minute of
    [start, end), counted by trying each number (GPUs aside)."""
    def fits(n):
        for minute in range(start, end):
            for r in RESOURCES:
                used = sum(c.size.get(r, 0) * c.amount for c in allocations
                           if c.start <= minute < c.until)
                if used + n * need.get(r, 0) > cap.get(r, 0):
                    return False
        return True

    if not any(need.get(r) for r in RESOURCES):
        return maths.UNBOUNDED if fits(0) else 0
    n = 0
    while fits(n + 1):
        n += 1
    return n


small = st.integers(min_value=0, max_value=6)
resources = st.fixed_dictionaries({}, optional={r: small for r in RESOURCES})
capacities = st.fixed_dictionaries(
    {}, optional={r: st.integers(min_value=0, max_value=24)
                  for r in RESOURCES})


# Few distinct minutes, so that boundaries often coincide (back-to-back
# allocations, allocations ending where the window starts).
@st.composite
def allocations_strategy(draw):
    start = draw(st.integers(min_value=-3, max_value=12))
    length = draw(st.integers(min_value=0, max_value=8))
    return maths.Allocation(start, start + length,
                            draw(st.integers(min_value=0, max_value=3)),
                            draw(resources))


@settings(max_examples=300, deadline=None)
@given(cap=capacities,
       allocations=st.lists(allocations_strategy(), max_size=5),
       need=resources,
       start=st.integers(min_value=0, max_value=8),
       length=st.integers(min_value=1, max_value=8))
def test_least_of_steps_matches_minute_by_minute_reference(cap, allocations,
                                                           need, start,
                                                           length):
    end = start + length
    expected = reference_slots(cap, allocations, need, start, end)
    as_dates = [c._replace(start=at(c.start), until=at(c.until))
                for c in allocations]
    assert slots(cap, as_dates, need, start, end) == expected


# Properties against brute force, GPUs included -------------------------------
#
# Times are small integers: every step function changes at integers only,
# so checking each integer instant t checks the whole of [t, t + 1).

@settings(max_examples=500, deadline=None)
@given(capacity=host_capacities,
       allocations=st.lists(timed_allocations(), max_size=6),
       need=sizes, window=windows())
def test_steps_match_brute_force_at_every_instant(capacity, allocations, need,
                                                  window):
    start, end = window
    step_list = maths.steps(capacity, allocations, need, start, end)

    assert step_list[0][0] == start
    instants = [t for t, _ in step_list]
    assert instants == sorted(set(instants))
    assert all(start <= t < end for t in instants)
    for t in range(start, end):
        assert value_at(step_list, t) == brute_at(capacity, allocations,
                                                  need, t)
    assert least(step_list) == min(
        brute_at(capacity, allocations, need, t) for t in range(start, end))
    if not allocations:
        assert step_list == [(start, maths.empty_fit(capacity, need))]


# GPU keys that share classes ('A|B' is served by A and B capacity), so
# that an allocation's use of one key takes from another's.
class_keys = st.sampled_from(['A', 'B', 'A|B', 'VGPU'])
class_gpus = st.dictionaries(class_keys, st.integers(0, 4), max_size=3)


def test_least_fit_counts_every_instance_of_a_gpu_allocation():
    host = dict(HOST, gpus={'A': 4, 'B': 2})
    allocations = [
        maths.Allocation(0, 10, 2, {'vcpus': 1, 'gpus': {'A|B': 1}}),
        maths.Allocation(5, 20, 1, {'gpus': {'A': 1}})]
    need = {'vcpus': 1, 'gpus': {'A': 1}}
    # 'A|B' allocations may have taken A: at 5..10, 3 of A's 4 are taken.
    assert maths.least_fit(host, allocations, need, 0, 20) == 1
    assert maths.least_fit(host, allocations, need, 10, 20) == 3
    assert least(maths.steps(host, allocations, need, 0, 20)) == 1


@settings(max_examples=500, deadline=None)
@given(capacity=st.fixed_dictionaries(
           {r: st.one_of(st.integers(20, 40), st.integers(-2, 12))
            for r in RESOURCES},
           optional={'gpus': class_gpus}),
       allocations=st.lists(st.builds(
           lambda start, length, count, size, gpus: maths.Allocation(
               start, start + length, count, dict(size, gpus=gpus)),
           st.integers(0, 20), st.integers(0, 15), st.integers(0, 3),
           st.fixed_dictionaries({}, optional={
               r: st.integers(0, 3) for r in RESOURCES}),
           st.dictionaries(class_keys, st.integers(0, 2), max_size=2)),
           max_size=7),
       need=st.fixed_dictionaries({}, optional=dict(
           {r: st.integers(0, 4) for r in RESOURCES},
           gpus=st.dictionaries(class_keys, st.integers(0, 2), max_size=2))),
       window=windows(longest=20))
# An empty allocation (until == start) inside the window holds nothing.
@example(capacity={'vcpus': 20, 'memory_mb': 20, 'disk_gb': 20},
         allocations=[maths.Allocation(1, 1, 1, {'disk_gb': 1, 'gpus': {}})],
         need={'disk_gb': 1}, window=(0, 2))
def test_least_fit_is_the_least_of_the_steps(capacity, allocations, need,
                                             window):
    """The decisions' shortcut (peaks per resource) answers what the
    step function's minimum does, GPU classes shared between keys and
    hosts already short of a resource included."""
    start, end = window
    assert maths.least_fit(capacity, allocations, need, start, end) == \
        least(maths.steps(capacity, allocations, need, start, end))
