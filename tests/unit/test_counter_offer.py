"""counter_offer.nearest against a search minute by minute: for a
refused start, the latest start before it and the earliest after it at
which the booking lies within a window."""
import datetime

from hypothesis import assume
from hypothesis import given
from hypothesis import strategies as st

from reserve.booking import counter_offer

BASE = datetime.datetime(2030, 1, 1)


def _at(minutes):
    return BASE + datetime.timedelta(minutes=minutes)


windows = st.lists(st.tuples(st.integers(0, 300), st.integers(1, 120)),
                   max_size=6).map(
    lambda found: [(_at(s), _at(s + n)) for s, n in found])


def _fits(windows, start, length):
    return any(ws <= start and start + length <= we for ws, we in windows)


@given(windows, st.integers(0, 300), st.integers(1, 90))
def test_the_nearest_either_side(found, asked, minutes):
    start, length = _at(asked), datetime.timedelta(minutes=minutes)
    # A refused start: it lies in no window.
    assume(not _fits(found, start, length))
    before, after = counter_offer.nearest(found, start, length)
    starts = [_at(m) for m in range(-100, 500)]
    earlier = [s for s in starts if s < start and _fits(found, s, length)]
    later = [s for s in starts if s > start and _fits(found, s, length)]
    assert before == (max(earlier) if earlier else None)
    assert after == (min(later) if later else None)


def test_a_window_too_short_offers_nothing():
    assert counter_offer.nearest([(_at(0), _at(30))], _at(60),
                                 datetime.timedelta(hours=1)) == (None, None)
