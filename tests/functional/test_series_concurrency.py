"""A series is admitted atomically on every backend: series (all or
nothing, and as many as fit) and single bookings sent together through
reserve.booking never overbook a flavor; an all-or-nothing series is
booked whole or not at all, and one of as many as fit books exactly the
occurrences it does not list as refused."""
import datetime

import pytest

from reserve.booking import admission
from reserve.booking import series as series_booking
from reserve.capacity import model
from reserve.common import exception
from reserve.common import timeutils
from reserve.db import series as series_db
from tests.functional.test_admission_concurrency import _context
from tests.functional.test_admission_concurrency import _flavor
from tests.functional.test_admission_concurrency import _live
from tests.functional.test_admission_concurrency import _peak
from tests.functional.test_admission_concurrency import _race
from tests.functional.test_admission_concurrency import backend  # noqa

HOUR = datetime.timedelta(hours=1)
RULE = 'FREQ=DAILY;COUNT=4'


def _series(i, flavor, first, policy):
    windows = series_booking.windows(RULE, first, first + 2 * HOUR)
    try:
        return series_booking.book(_context(i), flavor, RULE, windows, 1,
                                   policy)
    except exception.SeriesDoesNotFit:
        return 'refused'


@pytest.mark.usefixtures('backend')
def test_series_and_bookings_together_never_overbook():
    flavor = _flavor(slots=2)
    first = timeutils.utcnow().replace(microsecond=0) + HOUR
    day = datetime.timedelta(days=1)
    attempts = []
    for i in range(4):
        policy = (series_booking.ALL_OR_NOTHING if i % 2 else
                  series_booking.AS_MANY_AS_FIT)
        attempts.append(lambda i=i, policy=policy: _series(
            i, flavor, first, policy))
    # Single bookings of the third day.
    for i in range(4, 7):
        attempts.append(lambda i=i: admission.book(
            _context(i), flavor, first + 2 * day, first + 2 * day + HOUR,
            1))
    results = _race(attempts)
    assert not [r for r in results if isinstance(r, Exception) and
                not isinstance(r, exception.NoCapacity)], results

    live = _live(flavor.id)
    assert _peak(live, model.guard()) <= 2
    for result in results[:4]:
        if result == 'refused':
            continue
        series, admitted, refused = result
        booked = series_db.occurrences(_context(0), series.id)
        assert sorted(b.id for b in booked) == sorted(b.id for b in admitted)
        assert len(admitted) + len(refused) == 4
        if series.policy == series_booking.ALL_OR_NOTHING:
            assert refused == []
        stored = series_db.series_get(_context(0), series.id).refused
        assert [r['start'] for r in stored] == [
            timeutils.isoformat(start) for start, _end, _error in refused]
    # Nothing of a refused series is left: every live booking is a
    # single one or an occurrence of a series admitted.
    series_ids = {r[0].id for r in results[:4] if r != 'refused'}
    assert all(b.series_id in series_ids or b.series_id is None
               for b in live)
