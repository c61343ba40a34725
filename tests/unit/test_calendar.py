"""reserve.booking.calendar against a brute-force reference.

Times are whole numbers here (the database keeps whole seconds): every
occupant starts and ends on an integer, so the load is constant on each
[k, k + 1) and checking every integer instant is checking every instant.
The reference knows nothing of sweep lines: it counts, instant by instant,
what each occupant holds.
"""
import datetime
import random

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from reserve.booking import calendar


# The reference ---------------------------------------------------------------

def load_at(occupants, guard, t):
    return sum(count for start, end, count in occupants
               if start <= t < end + guard)


def fits_ref(slots, occupants, start, end, count, guard):
    """count more fit in [start, end): at every instant of [start,
    end + guard) the held slots plus count stay within slots."""
    return all(load_at(occupants, guard, t) + count <= slots
               for t in range(start, end + guard))


def covered(gaps, start, end):
    return any(a <= start and end <= b for a, b in gaps)


# Strategies ------------------------------------------------------------------

occupant = st.tuples(st.integers(0, 60), st.integers(1, 20),
                     st.integers(1, 3)).map(
    lambda t: (t[0], t[0] + t[1], t[2]))
occupants_st = st.lists(occupant, max_size=8)
slots_st = st.integers(0, 5)
guard_st = st.integers(0, 5)
count_st = st.integers(1, 4)
window_st = st.tuples(st.integers(0, 60), st.integers(1, 40)).map(
    lambda t: (t[0], t[0] + t[1]))

EXAMPLES = settings(max_examples=400, deadline=None)


# Properties ------------------------------------------------------------------

@EXAMPLES
@given(slots_st, occupants_st, window_st, count_st, guard_st)
def test_free_slots_cover_exactly_the_bookings_that_fit(
        slots, occupants, window, count, guard):
    q_start, q_end = window
    gaps = calendar.free_slots(slots, occupants, q_start, q_end, count,
                               guard)
    for s in range(q_start, q_end):
        for e in range(s + 1, q_end + 1):
            assert covered(gaps, s, e) == fits_ref(
                slots, occupants, s, e, count, guard), (s, e, gaps)


@EXAMPLES
@given(slots_st, occupants_st, window_st, count_st, guard_st)
def test_free_slots_are_sorted_disjoint_and_inside_the_window(
        slots, occupants, window, count, guard):
    q_start, q_end = window
    gaps = calendar.free_slots(slots, occupants, q_start, q_end, count,
                               guard)
    for a, b in gaps:
        assert q_start <= a < b <= q_end
    for (_, b1), (a2, _) in zip(gaps, gaps[1:]):
        # Separated by at least one instant where nothing fits: maximal.
        assert b1 < a2


@EXAMPLES
@given(slots_st, occupants_st, window_st, count_st, guard_st)
def test_fits_is_the_reference(slots, occupants, window, count, guard):
    start, end = window
    assert calendar.fits(slots, occupants, start, end, count, guard) == \
        fits_ref(slots, occupants, start, end, count, guard)


@EXAMPLES
@given(slots_st, occupants_st, window_st, count_st, guard_st,
       st.randoms(use_true_random=False))
def test_the_order_occupants_come_in_does_not_matter(
        slots, occupants, window, count, guard, rnd):
    start, end = window
    shuffled = list(occupants)
    rnd.shuffle(shuffled)
    assert calendar.free_slots(slots, occupants, start, end, count,
                               guard) == \
        calendar.free_slots(slots, shuffled, start, end, count, guard)


@EXAMPLES
@given(slots_st, occupants_st, window_st, guard_st)
def test_least_free_is_the_worst_instant(slots, occupants, window, guard):
    start, end = window
    worst = min(slots - load_at(occupants, guard, t)
                for t in range(start, end))
    assert calendar.least_free(slots, occupants, start, end, guard) == \
        max(0, worst)


@EXAMPLES
@given(slots_st, occupants_st, window_st, guard_st)
def test_max_count_is_where_fits_stops(slots, occupants, window, guard):
    start, end = window
    most = calendar.max_count(slots, occupants, start, end, guard)
    for count in range(1, slots + 3):
        assert calendar.fits(slots, occupants, start, end, count,
                             guard) == (count <= most)


@EXAMPLES
@given(slots_st, occupants_st, st.integers(0, 50), st.integers(1, 20),
       window_st, count_st, guard_st)
def test_maintenance_takes_every_slot(slots, occupants, m_start, m_len,
                                      window, count, guard):
    maintenance = (m_start, m_start + m_len, slots)
    start, end = window
    gaps = calendar.free_slots(slots, occupants + [maintenance], start,
                               end, count, guard)
    for a, b in gaps:
        # Neither the gap nor its guard meets the maintenance window.
        assert b + guard <= m_start or a >= m_start + m_len + guard


# Worked examples -------------------------------------------------------------

def test_touching_bookings_give_one_answer_in_any_order():
    # Slot count 1, no guard: [0, 10) and [10, 20) hand over at 10.
    first, second = (0, 10, 1), (10, 20, 1)
    for occupants in ([first, second], [second, first]):
        assert calendar.fits(1, occupants, 20, 30, 1, 0)
        assert not calendar.fits(1, occupants, 9, 11, 1, 0)
        assert calendar.free_slots(1, occupants, 0, 40, 1, 0) == [(20, 40)]
        assert calendar.least_free(1, occupants, 5, 15, 0) == 0


def test_an_ending_and_a_starting_booking_at_one_instant_do_not_add_up():
    # 2 slots: [0, 10) x2 ends as [10, 20) x2 starts; at 10 the load is 2.
    occupants = [(10, 20, 2), (0, 10, 2)]
    assert calendar.least_free(2, occupants, 0, 20, 0) == 0
    assert calendar.least_free(3, occupants, 0, 20, 0) == 1
    assert calendar.fits(3, occupants, 0, 20, 1, 0)


def test_every_instant_counts_not_only_the_peaks_of_each_booking():
    # 3 slots, two bookings of 2 one after the other: 1 more fits across
    # both, 2 more fit only outside them.
    occupants = [(0, 10, 2), (10, 20, 2)]
    assert calendar.fits(3, occupants, 0, 20, 1, 0)
    assert not calendar.fits(3, occupants, 0, 20, 2, 0)
    assert calendar.free_slots(3, occupants, 0, 30, 2, 0) == [(20, 30)]


def test_guard_between_bookings():
    hour = datetime.timedelta(hours=1)
    guard = datetime.timedelta(seconds=60)
    ten = datetime.datetime(2030, 1, 1, 10)
    booked = [(ten - hour, ten, 1)]
    # One slot: the next booking may start a guard after the end ...
    assert not calendar.fits(1, booked, ten, ten + hour, 1, guard)
    assert not calendar.fits(1, booked, ten + guard / 2, ten + hour, 1,
                             guard)
    assert calendar.fits(1, booked, ten + guard, ten + hour, 1, guard)
    # ... and one before it must end a guard before its start.
    assert not calendar.fits(1, booked, ten - 2 * hour, ten - hour, 1,
                             guard)
    assert calendar.fits(1, booked, ten - 2 * hour, ten - hour - guard, 1,
                         guard)
    assert calendar.free_slots(1, booked, ten - 2 * hour, ten + hour, 1,
                               guard) == [
        (ten - 2 * hour, ten - hour - guard), (ten + guard, ten + hour)]


def test_no_slots_no_gaps():
    assert calendar.free_slots(0, [], 0, 10, 1, 0) == []
    assert calendar.free_slots(2, [], 0, 10, 3, 0) == []
    assert calendar.free_slots(2, [], 0, 10, 2, 0) == [(0, 10)]


def test_overbooked_flavor_reports_zero_free():
    # Slots lowered below what is booked: nothing free, never negative.
    assert calendar.least_free(1, [(0, 10, 3)], 0, 10, 0) == 0
    assert calendar.max_count(1, [(0, 10, 3)], 0, 10, 0) == 0


def test_many_random_calendars_with_datetimes():
    """The same maths on datetimes and a timedelta guard."""
    rnd = random.Random(7)
    base = datetime.datetime(2031, 5, 1)
    minute = datetime.timedelta(minutes=1)
    for _ in range(200):
        occupants = []
        for _ in range(rnd.randint(0, 6)):
            start = rnd.randint(0, 50)
            occupants.append((start, start + rnd.randint(1, 15),
                              rnd.randint(1, 2)))
        slots, guard, count = rnd.randint(0, 4), rnd.randint(0, 3), \
            rnd.randint(1, 3)
        as_dates = [(base + a * minute, base + b * minute, c)
                    for a, b, c in occupants]
        plain = calendar.free_slots(slots, occupants, 0, 60, count, guard)
        dated = calendar.free_slots(slots, as_dates, base,
                                    base + 60 * minute, count,
                                    guard * minute)
        assert dated == [(base + a * minute, base + b * minute)
                         for a, b in plain]
