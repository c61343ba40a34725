"""reserve.capacity.maths: a host's offer over time, the windows a
booking fits in, and placement."""
import collections
import datetime

from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import pytest

from reserve.capacity import maths

RESOURCES = ('vcpus', 'memory_mb', 'disk_gb')
T0 = datetime.datetime(2030, 1, 1, 8, 0)


def at(minute):
    return T0 + datetime.timedelta(minutes=minute)


def claim(start, until, count=1, **size):
    return maths.Claim(at(start), at(until), count, size)


def slots(capacity, claims, need, start, end):
    """What the host holds of ``need`` over the whole of [start, end)."""
    return maths.least(maths.steps(capacity, claims, need,
                                   at(start), at(end)))


HOST = {'vcpus': 64, 'memory_mb': 512, 'disk_gb': 1000}
GPU_FLAVOR = {'vcpus': 16, 'memory_mb': 128, 'disk_gb': 100}


# A host's offer over a window: examples -------------------------------------

def test_empty_host_fits_its_tightest_resource():
    # 64/16 = 4 by vcpus, 512/128 = 4 by memory, 1000/100 = 10 by disk
    assert slots(HOST, [], GPU_FLAVOR, 0, 60) == 4
    assert slots(HOST, [], {'disk_gb': 100}, 0, 60) == 10
    assert maths.empty_fit(HOST, GPU_FLAVOR) == 4


def test_overlapping_claim_reduces_the_slots():
    used = [claim(30, 90, count=3, **GPU_FLAVOR)]
    assert slots(HOST, used, GPU_FLAVOR, 0, 60) == 1


def test_peak_of_overlapping_claims_decides():
    # Each claim alone leaves 2 slots; only minutes 40-50 see both.
    used = [claim(0, 50, count=2, **GPU_FLAVOR),
            claim(40, 120, count=2, **GPU_FLAVOR)]
    assert slots(HOST, used, GPU_FLAVOR, 0, 40) == 2
    assert slots(HOST, used, GPU_FLAVOR, 50, 120) == 2
    assert slots(HOST, used, GPU_FLAVOR, 0, 120) == 0


def test_claims_that_do_not_overlap_each_other_do_not_add_up():
    used = [claim(0, 30, count=3, **GPU_FLAVOR),
            claim(30, 60, count=3, **GPU_FLAVOR)]
    assert slots(HOST, used, GPU_FLAVOR, 0, 60) == 1


@pytest.mark.parametrize('start,end', [(-60, 0), (60, 120), (-30, 0)])
def test_windows_are_half_open(start, end):
    # A claim ending when the window starts, or starting when it ends,
    # takes nothing from it: back-to-back bookings hand over.
    used = [claim(start, end, count=4, **GPU_FLAVOR)]
    assert slots(HOST, used, GPU_FLAVOR, 0, 60) == 4


def test_claim_started_before_the_window_counts():
    used = [claim(-600, 10, count=4, **GPU_FLAVOR)]
    assert slots(HOST, used, GPU_FLAVOR, 0, 60) == 0


def test_claim_of_another_size_counts_per_instance():
    # 2 instances of 200 MB each leave 112 MB: no room for 128 MB.
    used = [claim(0, 60, count=2, vcpus=1, memory_mb=200, disk_gb=0)]
    assert slots(HOST, used, GPU_FLAVOR, 0, 60) == 0


def test_host_already_overcommitted_fits_nothing():
    used = [claim(0, 60, count=1, memory_mb=600)]
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


def test_steps_change_where_claims_start_and_end():
    used = [claim(-10, 20, count=1, **GPU_FLAVOR),
            claim(30, 90, count=3, **GPU_FLAVOR),
            # starts and ends at the same instants: no step of its own
            claim(40, 50, count=1, disk_gb=1)]
    assert maths.steps(HOST, used, GPU_FLAVOR, at(0), at(60)) == [
        (at(0), 3), (at(20), 4), (at(30), 1)]
    assert maths.steps(HOST, [], GPU_FLAVOR, at(0), at(60)) == [(at(0), 4)]


# A host's offer: against a minute-by-minute reference ------------------------

def reference_slots(cap, claims, need, start, end):
    """The most instances of ``need`` that fit at every minute of
    [start, end), counted by trying each number (GPUs aside)."""
    def fits(n):
        for minute in range(start, end):
            for r in RESOURCES:
                used = sum(c.size.get(r, 0) * c.count for c in claims
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
# claims, claims ending where the window starts).
@st.composite
def claims_strategy(draw):
    start = draw(st.integers(min_value=-3, max_value=12))
    length = draw(st.integers(min_value=0, max_value=8))
    return maths.Claim(start, start + length,
                       draw(st.integers(min_value=0, max_value=3)),
                       draw(resources))


@settings(max_examples=300, deadline=None)
@given(cap=capacities,
       claims=st.lists(claims_strategy(), max_size=5),
       need=resources,
       start=st.integers(min_value=0, max_value=8),
       length=st.integers(min_value=1, max_value=8))
def test_least_of_steps_matches_minute_by_minute_reference(cap, claims, need,
                                                           start, length):
    end = start + length
    expected = reference_slots(cap, claims, need, start, end)
    as_dates = [c._replace(start=at(c.start), until=at(c.until))
                for c in claims]
    assert slots(cap, as_dates, need, start, end) == expected


# Properties against brute force, GPUs included -------------------------------
#
# Times are small integers: every step function changes at integers only,
# so checking each integer instant t checks the whole of [t, t + 1).

def brute_fit(capacity, holding, need):
    """How many instances of ``need`` fit on a host beside the claims
    ``holding`` it, by trying each number. A host short of a resource
    (overbooked) holds nothing; a need asking nothing is unbounded."""
    used = {r: sum(c.size.get(r, 0) * c.count for c in holding)
            for r in RESOURCES}
    used_gpus = collections.Counter()
    for c in holding:
        for key, per in (c.size.get('gpus') or {}).items():
            used_gpus[key] += per * c.count
    have_gpus = capacity.get('gpus') or {}
    need_gpus = {k: per for k, per in (need.get('gpus') or {}).items()
                 if per}

    def fits(n):
        return (all(used[r] + n * need.get(r, 0) <= capacity.get(r, 0)
                    for r in RESOURCES) and
                all(used_gpus[k] + n * per <= have_gpus.get(k, 0)
                    for k, per in need_gpus.items()))

    if not fits(0):
        return 0
    if not need_gpus and not any(need.get(r) for r in RESOURCES):
        return maths.UNBOUNDED
    n = 0
    while fits(n + 1):
        n += 1
    return n


def brute_at(capacity, claims, need, t):
    return brute_fit(capacity, [c for c in claims if c.start <= t < c.until],
                     need)


def value_at(step_list, t):
    return [value for s, value in step_list if s <= t][-1]


gpu_counts = st.fixed_dictionaries({'VGPU': st.integers(0, 4)})
host_capacities = st.fixed_dictionaries(
    {r: st.integers(min_value=0, max_value=12) for r in RESOURCES},
    optional={'gpus': gpu_counts})
sizes = st.fixed_dictionaries(
    {}, optional=dict({r: st.integers(min_value=0, max_value=4)
                       for r in RESOURCES},
                      gpus=st.fixed_dictionaries(
                          {'VGPU': st.integers(0, 2)})))
times = st.integers(min_value=0, max_value=40)


@st.composite
def timed_claims(draw):
    start = draw(times)
    until = draw(st.integers(min_value=start, max_value=min(start + 15, 43)))
    return maths.Claim(start, until,
                       draw(st.integers(min_value=0, max_value=3)),
                       draw(sizes))


@st.composite
def windows(draw, longest=40):
    start = draw(st.integers(min_value=0, max_value=39))
    end = draw(st.integers(min_value=start + 1,
                           max_value=min(40, start + longest)))
    return start, end


@settings(max_examples=500, deadline=None)
@given(capacity=host_capacities, claims=st.lists(timed_claims(), max_size=6),
       need=sizes, window=windows())
def test_steps_match_brute_force_at_every_instant(capacity, claims, need,
                                                  window):
    start, end = window
    step_list = maths.steps(capacity, claims, need, start, end)

    assert step_list[0][0] == start
    instants = [t for t, _ in step_list]
    assert instants == sorted(set(instants))
    assert all(start <= t < end for t in instants)
    for t in range(start, end):
        assert value_at(step_list, t) == brute_at(capacity, claims, need, t)
    assert maths.least(step_list) == min(
        brute_at(capacity, claims, need, t) for t in range(start, end))
    if not claims:
        assert step_list == [(start, maths.empty_fit(capacity, need))]


# GPU keys that share classes ('A|B' is served by A and B capacity), so
# that a claim's use of one key takes from another's.
class_keys = st.sampled_from(['A', 'B', 'A|B', 'VGPU'])
class_gpus = st.dictionaries(class_keys, st.integers(0, 4), max_size=3)


def test_least_fit_counts_every_instance_of_a_gpu_claim():
    host = dict(HOST, gpus={'A': 4, 'B': 2})
    claims = [maths.Claim(0, 10, 2, {'vcpus': 1, 'gpus': {'A|B': 1}}),
              maths.Claim(5, 20, 1, {'gpus': {'A': 1}})]
    need = {'vcpus': 1, 'gpus': {'A': 1}}
    # 'A|B' claims may have taken A: at 5..10, 3 of A's 4 are taken.
    assert maths.least_fit(host, claims, need, 0, 20) == 1
    assert maths.least_fit(host, claims, need, 10, 20) == 3
    assert maths.least(maths.steps(host, claims, need, 0, 20)) == 1


@settings(max_examples=500, deadline=None)
@given(capacity=st.fixed_dictionaries(
           {r: st.one_of(st.integers(20, 40), st.integers(-2, 12))
            for r in RESOURCES},
           optional={'gpus': class_gpus}),
       claims=st.lists(st.builds(
           lambda start, length, count, size, gpus: maths.Claim(
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
# An empty claim (until == start) inside the window holds nothing.
@example(capacity={'vcpus': 20, 'memory_mb': 20, 'disk_gb': 20},
         claims=[maths.Claim(1, 1, 1, {'disk_gb': 1, 'gpus': {}})],
         need={'disk_gb': 1}, window=(0, 2))
def test_least_fit_is_the_least_of_the_steps(capacity, claims, need,
                                             window):
    """The decisions' shortcut (peaks per resource) answers what the
    step function's minimum does, GPU classes shared between keys and
    hosts already short of a resource included."""
    start, end = window
    assert maths.least_fit(capacity, claims, need, start, end) == \
        maths.least(maths.steps(capacity, claims, need, start, end))


@st.composite
def slot_functions(draw):
    """None, or the flavor's free slots: its slots less what bookings
    hold, as (slots, [(start, until, count)])."""
    if draw(st.booleans()):
        return None
    bookings = []
    for _ in range(draw(st.integers(min_value=0, max_value=4))):
        start = draw(times)
        bookings.append((start,
                         draw(st.integers(min_value=start,
                                          max_value=start + 15)),
                         draw(st.integers(min_value=0, max_value=3))))
    return draw(st.integers(min_value=0, max_value=6)), bookings


def free_slots_at(slot_function, t):
    total, bookings = slot_function
    return total - sum(n for s, u, n in bookings if s <= t < u)


def as_steps(slot_function, start, horizon):
    step_list = []
    for t in range(start, horizon):
        value = free_slots_at(slot_function, t)
        if not step_list or step_list[-1][1] != value:
            step_list.append((t, value))
    return step_list


def booking_fits(table, slot_function, count, s, e, guard):
    """Whether ``count`` instances fit over [s, e) plus the guard: the
    flavor's free slots hold them at every instant, and the hosts, each
    by the least it holds over the whole span, hold them together."""
    span = range(s, e + guard)
    if slot_function is not None and any(
            free_slots_at(slot_function, t) < count for t in span):
        return False
    return sum(min(row[t] for t in span) for row in table) >= count


@settings(max_examples=500, deadline=None)
@given(hosts=st.lists(st.tuples(host_capacities,
                                st.lists(timed_claims(), max_size=4)),
                      min_size=1, max_size=4),
       need=sizes, slot_function=slot_functions(),
       count=st.integers(min_value=1, max_value=6),
       window=windows(longest=14), guard=st.integers(min_value=0,
                                                     max_value=3))
def test_free_windows_are_exactly_where_a_booking_fits(
        hosts, need, slot_function, count, window, guard):
    start, end = window
    horizon = end + guard
    host_steps = [maths.steps(capacity, claims, need, start, horizon)
                  for capacity, claims in hosts if claims]
    idle = sum(maths.empty_fit(capacity, need)
               for capacity, claims in hosts if not claims)
    slot_steps = (None if slot_function is None
                  else as_steps(slot_function, start, horizon))

    found = maths.free_windows(host_steps, idle, slot_steps, count,
                               start, end, guard)

    # table[h][t]: what host h holds at instant t, by brute force
    table = [{t: brute_at(capacity, claims, need, t)
              for t in range(start, horizon)} for capacity, claims in hosts]
    for s in range(start, end):
        for e in range(s + 1, end + 1):
            expected = booking_fits(table, slot_function, count, s, e,
                                    guard)
            within = any(ws <= s and e <= we for ws, we in found)
            assert within == expected, (s, e, found)
    for ws, we in found:
        assert start <= ws < we <= end
    assert [ws for ws, _ in found] == sorted({ws for ws, _ in found})
    for one in found:
        for other in found:
            assert one == other or not (other[0] <= one[0] and
                                        one[1] <= other[1])


# free_windows: examples ------------------------------------------------------

def test_hosts_free_one_after_the_other_hold_bookings_not_spanning_both():
    # h1 is full over [0, 10), h2 over [10, 20): one instance fits in
    # [0, 10) on h2 and in [10, 20) on h1, but none over [5, 15).
    h1 = maths.steps({'vcpus': 1}, [maths.Claim(0, 10, 1, {'vcpus': 1})],
                     {'vcpus': 1}, 0, 20)
    h2 = maths.steps({'vcpus': 1}, [maths.Claim(10, 20, 1, {'vcpus': 1})],
                     {'vcpus': 1}, 0, 20)
    assert maths.free_windows([h1, h2], 0, None, 1, 0, 20, 0) == [
        (0, 10), (10, 20)]
    # an idle host holds any window
    assert maths.free_windows([h1, h2], 1, None, 1, 0, 20, 0) == [(0, 20)]
    assert maths.free_windows([h1, h2], 1, None, 2, 0, 20, 0) == [
        (0, 10), (10, 20)]


def test_free_windows_leave_the_guard_before_the_next_claim():
    host = maths.steps({'vcpus': 1}, [maths.Claim(10, 20, 1, {'vcpus': 1})],
                       {'vcpus': 1}, 0, 22)
    assert maths.free_windows([host], 0, None, 1, 0, 20, 2) == [(0, 8)]
    assert maths.free_windows([host], 0, None, 1, 0, 20, 0) == [(0, 10)]


def test_free_windows_follow_the_flavor_slots():
    slot_steps = [(0, 1), (5, 0), (8, 2)]
    assert maths.free_windows([], 10, slot_steps, 1, 0, 12, 0) == [
        (0, 5), (8, 12)]
    assert maths.free_windows([], 10, slot_steps, 2, 0, 12, 0) == [(8, 12)]
    assert maths.free_windows([], 10, None, 2, 0, 12, 0) == [(0, 12)]
    assert maths.free_windows([], 10, slot_steps, 1, 5, 5, 0) == []


# place: examples -------------------------------------------------------------

def test_place_packs_onto_the_biggest_hosts_first():
    assert maths.place({'h1': 2, 'h2': 5, 'h3': 3}, 7) == {
        'h2': 5, 'h3': 2}


def test_place_is_deterministic_on_ties():
    assert maths.place({'hb': 2, 'ha': 2, 'hc': 2}, 3) == {
        'ha': 2, 'hb': 1}


def test_place_with_affinity_takes_the_tightest_host_that_fits():
    fits = {'big': 8, 'tight': 3, 'small': 2, 'tight2': 3}
    assert maths.place(fits, 3, affinity=True) == {'tight': 3}


def test_place_with_affinity_needs_one_host_big_enough():
    assert maths.place({'h1': 2, 'h2': 2}, 3, affinity=True) is None
    assert maths.most_placed({'h1': 2, 'h2': 2}, 3, affinity=True) == 2


def test_place_with_anti_affinity_uses_distinct_hosts():
    fits = {'h1': 1, 'h2': 4, 'h3': 0, 'h4': 2}
    assert maths.place(fits, 2, affinity=False) == {'h2': 1, 'h4': 1}
    assert maths.place(fits, 3, affinity=False) == {'h1': 1, 'h2': 1,
                                                    'h4': 1}
    assert maths.place(fits, 4, affinity=False) is None
    assert maths.most_placed(fits, 4, affinity=False) == 3


def test_place_fails_when_the_total_is_short():
    assert maths.place({'h1': 2, 'h2': 1, 'h3': 0}, 4) is None
    assert maths.most_placed({'h1': 2, 'h2': 1, 'h3': 0}, 4) == 3
    assert maths.place({}, 1) is None
    assert maths.most_placed({}, 1) == 0


def test_place_on_hosts_a_need_of_nothing_leaves_unbounded():
    assert maths.place({'h1': maths.UNBOUNDED}, 5) == {'h1': 5}
    assert maths.place({'h1': maths.UNBOUNDED}, 5, affinity=True) == {
        'h1': 5}


# place: properties -----------------------------------------------------------

def possible(fits, amount, affinity):
    if affinity is True:
        return any(s >= amount for s in fits.values())
    if affinity is False:
        return sum(1 for s in fits.values() if s >= 1) >= amount
    return sum(fits.values()) >= amount


def fewest_hosts(fits, amount):
    total = 0
    for used, held in enumerate(sorted(fits.values(), reverse=True),
                                start=1):
        total += held
        if total >= amount:
            return used


hosts = st.dictionaries(st.sampled_from(['h%d' % i for i in range(8)]),
                        st.integers(min_value=0, max_value=6))


@settings(max_examples=500, deadline=None)
@given(fits=hosts, amount=st.integers(min_value=1, max_value=12),
       affinity=st.sampled_from([None, True, False]))
def test_place_properties(fits, amount, affinity):
    placed = maths.place(dict(fits), amount, affinity)
    most = maths.most_placed(dict(fits), amount, affinity)

    assert (placed is None) == (not possible(fits, amount, affinity))
    assert (placed is None) == (most < amount)
    # most_placed: the most that could be placed, by trying each number
    assert most == max(n for n in range(amount + 1)
                       if n == 0 or possible(fits, n, affinity))
    if placed is None:
        return
    assert sum(placed.values()) == amount
    for host, count in placed.items():
        assert host in fits
        assert 1 <= count <= fits[host]
    if affinity is True:
        [(host, _)] = placed.items()
        # the tightest host that fits
        assert fits[host] == min(s for s in fits.values() if s >= amount)
    elif affinity is False:
        assert len(placed) == amount
        assert set(placed.values()) == {1}
    else:
        assert len(placed) == fewest_hosts(fits, amount)
