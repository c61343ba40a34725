"""reserve.plugins.capacity: slots over a time window, and placement."""
import datetime

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import pytest

from reserve.plugins import capacity

RESOURCES = ('vcpus', 'memory_mb', 'disk_gb')
T0 = datetime.datetime(2030, 1, 1, 8, 0)


def at(minute):
    return T0 + datetime.timedelta(minutes=minute)


def usage(start, end, count=1, **resources):
    return dict(resources, start=at(start), end=at(end), count=count)


HOST = {'vcpus': 64, 'memory_mb': 512, 'disk_gb': 1000}
GPU_FLAVOR = {'vcpus': 16, 'memory_mb': 128, 'disk_gb': 100}


# host_slots: examples --------------------------------------------------------

def test_empty_host_fits_its_tightest_resource():
    # 64/16 = 4 by vcpus, 512/128 = 4 by memory, 1000/100 = 10 by disk
    assert capacity.host_slots(HOST, [], GPU_FLAVOR, at(0), at(60)) == 4
    assert capacity.host_slots(HOST, [], {'disk_gb': 100},
                               at(0), at(60)) == 10


def test_overlapping_usage_reduces_the_slots():
    used = [usage(30, 90, count=3, **GPU_FLAVOR)]
    assert capacity.host_slots(HOST, used, GPU_FLAVOR, at(0), at(60)) == 1


def test_peak_of_overlapping_usages_decides():
    # Each usage alone leaves 2 slots; only minutes 40-50 see both.
    used = [usage(0, 50, count=2, **GPU_FLAVOR),
            usage(40, 120, count=2, **GPU_FLAVOR)]
    assert capacity.host_slots(HOST, used, GPU_FLAVOR, at(0), at(40)) == 2
    assert capacity.host_slots(HOST, used, GPU_FLAVOR, at(50), at(120)) == 2
    assert capacity.host_slots(HOST, used, GPU_FLAVOR, at(0), at(120)) == 0


def test_usages_that_do_not_overlap_each_other_do_not_add_up():
    used = [usage(0, 30, count=3, **GPU_FLAVOR),
            usage(30, 60, count=3, **GPU_FLAVOR)]
    assert capacity.host_slots(HOST, used, GPU_FLAVOR, at(0), at(60)) == 1


@pytest.mark.parametrize('start,end', [(-60, 0), (60, 120), (-30, 0)])
def test_windows_are_half_open(start, end):
    # A usage ending when the window starts, or starting when it ends,
    # takes nothing from it: back-to-back bookings hand over.
    used = [usage(start, end, count=4, **GPU_FLAVOR)]
    assert capacity.host_slots(HOST, used, GPU_FLAVOR, at(0), at(60)) == 4


def test_usage_started_before_the_window_counts():
    used = [usage(-600, 10, count=4, **GPU_FLAVOR)]
    assert capacity.host_slots(HOST, used, GPU_FLAVOR, at(0), at(60)) == 0


def test_usage_of_another_resource_shape_counts_per_instance():
    # 2 instances of 200 MB each leave 112 MB: no room for 128 MB.
    used = [usage(0, 60, count=2, vcpus=1, memory_mb=200, disk_gb=0)]
    assert capacity.host_slots(HOST, used, GPU_FLAVOR, at(0), at(60)) == 0


def test_host_already_overcommitted_fits_nothing():
    used = [usage(0, 60, count=1, memory_mb=600)]
    assert capacity.host_slots(HOST, used, {'vcpus': 1},
                               at(0), at(60)) == 0


def test_need_of_nothing_is_unbounded():
    assert capacity.host_slots(HOST, [], {}, at(0), at(60)) is None
    assert capacity.host_slots(HOST, [], {'vcpus': 0}, at(0), at(60)) is None


def test_missing_capacity_counts_as_zero():
    assert capacity.host_slots({'vcpus': 64}, [], GPU_FLAVOR,
                               at(0), at(60)) == 0


# host_slots: against a minute-by-minute reference ----------------------------

def reference_slots(cap, usages, need, start, end):
    """The most instances of ``need`` that fit at every minute of
    [start, end), counted by trying each number; None when unbounded."""
    def fits(n):
        for minute in range(start, end):
            for r in RESOURCES:
                used = sum(u.get(r, 0) * u['count'] for u in usages
                           if u['start'] <= minute < u['end'])
                if used + n * need.get(r, 0) > cap.get(r, 0):
                    return False
        return True

    if not any(need.get(r) for r in RESOURCES):
        return None if fits(0) else 0
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
# usages, usages ending where the window starts).
@st.composite
def usages_strategy(draw):
    start = draw(st.integers(min_value=-3, max_value=12))
    length = draw(st.integers(min_value=0, max_value=8))
    return dict(draw(resources), start=start, end=start + length,
                count=draw(st.integers(min_value=0, max_value=3)))


@settings(max_examples=300, deadline=None)
@given(cap=capacities,
       usages=st.lists(usages_strategy(), max_size=5),
       need=resources,
       start=st.integers(min_value=0, max_value=8),
       length=st.integers(min_value=1, max_value=8))
def test_host_slots_matches_minute_by_minute_reference(cap, usages, need,
                                                       start, length):
    end = start + length
    expected = reference_slots(cap, usages, need, start, end)
    as_dates = [dict(u, start=at(u['start']), end=at(u['end']))
                for u in usages]
    assert capacity.host_slots(cap, as_dates, need,
                               at(start), at(end)) == expected


# place: examples -------------------------------------------------------------

def test_place_packs_onto_the_biggest_hosts_first():
    assert capacity.place({'h1': 2, 'h2': 5, 'h3': 3}, 7) == {
        'h2': 5, 'h3': 2}


def test_place_is_deterministic_on_ties():
    assert capacity.place({'hb': 2, 'ha': 2, 'hc': 2}, 3) == {
        'ha': 2, 'hb': 1}


def test_place_with_affinity_takes_the_tightest_host_that_fits():
    slots = {'big': 8, 'tight': 3, 'small': 2, 'tight2': 3}
    assert capacity.place(slots, 3, affinity=True) == {'tight': 3}


def test_place_with_affinity_needs_one_host_big_enough():
    assert capacity.place({'h1': 2, 'h2': 2}, 3, affinity=True) is None


def test_place_with_anti_affinity_uses_distinct_hosts():
    slots = {'h1': 1, 'h2': 4, 'h3': 0, 'h4': 2}
    assert capacity.place(slots, 2, affinity=False) == {'h2': 1, 'h4': 1}
    assert capacity.place(slots, 3, affinity=False) == {'h1': 1, 'h2': 1,
                                                        'h4': 1}
    assert capacity.place(slots, 4, affinity=False) is None


def test_place_fails_when_the_total_is_short():
    assert capacity.place({'h1': 2, 'h2': 1, 'h3': 0}, 4) is None
    assert capacity.place({}, 1) is None


# place: properties -----------------------------------------------------------

def possible(slots_by_host, amount, affinity):
    if affinity is True:
        return any(s >= amount for s in slots_by_host.values())
    if affinity is False:
        return sum(1 for s in slots_by_host.values() if s >= 1) >= amount
    return sum(slots_by_host.values()) >= amount


def fewest_hosts(slots_by_host, amount):
    total = 0
    for used, slots in enumerate(sorted(slots_by_host.values(),
                                        reverse=True), start=1):
        total += slots
        if total >= amount:
            return used


hosts = st.dictionaries(st.sampled_from(['h%d' % i for i in range(8)]),
                        st.integers(min_value=0, max_value=6))


@settings(max_examples=500, deadline=None)
@given(slots_by_host=hosts, amount=st.integers(min_value=1, max_value=12),
       affinity=st.sampled_from([None, True, False]))
def test_place_properties(slots_by_host, amount, affinity):
    placed = capacity.place(dict(slots_by_host), amount, affinity)

    assert (placed is None) == (not possible(slots_by_host, amount,
                                             affinity))
    if placed is None:
        return
    assert sum(placed.values()) == amount
    for host, count in placed.items():
        assert host in slots_by_host
        assert 1 <= count <= slots_by_host[host]
    if affinity is True:
        [(host, _)] = placed.items()
        # the tightest host that fits
        assert slots_by_host[host] == min(
            s for s in slots_by_host.values() if s >= amount)
    elif affinity is False:
        assert len(placed) == amount
        assert set(placed.values()) == {1}
    else:
        assert len(placed) == fewest_hosts(slots_by_host, amount)
