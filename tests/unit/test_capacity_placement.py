"""reserve.capacity.maths: the windows a booking fits in (free_windows)
and the choice of hosts (place); a host's offer over time is
test_capacity_maths.py's."""
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from reserve.capacity import maths
from tests.unit.capacity_reference import brute_at
from tests.unit.capacity_reference import host_capacities
from tests.unit.capacity_reference import sizes
from tests.unit.capacity_reference import timed_allocations
from tests.unit.capacity_reference import times
from tests.unit.capacity_reference import windows


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
                                st.lists(timed_allocations(), max_size=4)),
                      min_size=1, max_size=4),
       need=sizes, slot_function=slot_functions(),
       count=st.integers(min_value=1, max_value=6),
       window=windows(longest=14), guard=st.integers(min_value=0,
                                                     max_value=3))
def test_free_windows_are_exactly_where_a_booking_fits(
        hosts, need, slot_function, count, window, guard):
    start, end = window
    horizon = end + guard
    host_steps = [maths.steps(capacity, allocations, need, start, horizon)
                  for capacity, allocations in hosts if allocations]
    idle = sum(maths.empty_fit(capacity, need)
               for capacity, allocations in hosts if not allocations)
    slot_steps = (None if slot_function is None
                  else as_steps(slot_function, start, horizon))

    found = maths.free_windows(host_steps, idle, slot_steps, count,
                               start, end, guard)

    # table[h][t]: what host h holds at instant t, by brute force
    table = [{t: brute_at(capacity, allocations, need, t)
              for t in range(start, horizon)}
             for capacity, allocations in hosts]
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
    h1 = maths.steps({'vcpus': 1}, [maths.Allocation(0, 10, 1, {'vcpus': 1})],
                     {'vcpus': 1}, 0, 20)
    h2 = maths.steps({'vcpus': 1}, [maths.Allocation(10, 20, 1, {'vcpus': 1})],
                     {'vcpus': 1}, 0, 20)
    assert maths.free_windows([h1, h2], 0, None, 1, 0, 20, 0) == [
        (0, 10), (10, 20)]
    # an idle host holds any window
    assert maths.free_windows([h1, h2], 1, None, 1, 0, 20, 0) == [(0, 20)]
    assert maths.free_windows([h1, h2], 1, None, 2, 0, 20, 0) == [
        (0, 10), (10, 20)]


def test_free_windows_leave_the_guard_before_the_next_allocation():
    host = maths.steps({'vcpus': 1},
                       [maths.Allocation(10, 20, 1, {'vcpus': 1})],
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
