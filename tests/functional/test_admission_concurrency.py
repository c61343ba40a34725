"""Admission is atomic: concurrent bookings never overbook a flavor.

Threads released together by a barrier book through
reserve.booking.admission on every backend (the row lock on MariaDB and
PostgreSQL, the process lock and SQLite's write lock on SQLite), and
processes on one SQLite file (its write lock alone across processes).
tests/integration/test_booking_desk_concurrency.py does the same through
the API served by gunicorn workers.
"""
import datetime
import multiprocessing
import random
import time

from oslo_config import cfg
import pytest

from reserve.booking import admission
from reserve.capacity import model
from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import states
from reserve.common import timeutils
from reserve.db import bookings as bookings_db
from reserve.db import flavors as flavors_db
from tests.fixtures import backends
from tests.fixtures import database
from tests.fixtures.races import together
from tests.functional import api_fixtures

CONF = cfg.CONF
HOUR = datetime.timedelta(hours=1)


def _context(i):
    return reserve_context.RequestContext(
        user_id='user-%d' % i, project_id='project-%d' % i,
        roles=['member', 'reader'])


@pytest.fixture(params=backends.BACKENDS)
def backend(request, tmp_path):
    with database.on_backend(request.param, tmp_path) as url:
        yield url


def _flavor(slots):
    return api_fixtures.make_flavor('gpu.race', nova_flavor_id='nova-race',
                                    slots=slots)


def _race(attempts):
    """Make the calls together; returns what each returned or raised
    (NoCapacity as 'full')."""
    return ['full' if isinstance(answer, exception.NoCapacity) else answer
            for answer in together(*attempts, raised=True)]


def _live(flavor_id):
    return [b for b in bookings_db.booking_list(
        reserve_context.get_admin_context(), flavor_id=flavor_id)
        if b.status in states.Booking.LIVE]


def _peak(bookings, guard):
    """Most slots held at any instant (the load only rises at starts)."""
    return max([sum(b.instance_count for b in bookings
                    if b.start <= t < b.end + guard)
                for t in {b.start for b in bookings}] or [0])


def test_twenty_requests_for_the_last_slot_accept_exactly_one(backend):
    flavor = _flavor(slots=3)
    start = timeutils.utcnow() + HOUR
    end = start + 2 * HOUR
    admission.book(_context(100), flavor, start, end, 2)

    results = _race([lambda i=i: admission.book(_context(i), flavor, start,
                                                end, 1)
                     for i in range(20)])

    won = [r for r in results if r != 'full']
    assert len(won) == 1, results
    assert results.count('full') == 19
    assert sorted(b.id for b in _live(flavor.id)) == sorted(
        [won[0].id] + [b.id for b in _live(flavor.id)
                       if b.instance_count == 2])
    assert _peak(_live(flavor.id), model.guard()) == 3


def test_random_concurrent_bookings_never_overbook(backend):
    flavor = _flavor(slots=4)
    base = timeutils.utcnow() + HOUR
    rnd = random.Random(42)
    requests = []
    for i in range(30):
        start = base + datetime.timedelta(minutes=rnd.randrange(0, 600, 5))
        length = datetime.timedelta(minutes=rnd.randrange(30, 240, 5))
        requests.append((i, start, start + length, rnd.randint(1, 3)))

    results = _race([lambda r=r: admission.book(_context(r[0]), flavor,
                                                r[1], r[2], r[3])
                     for r in requests])

    errors = [r for r in results if isinstance(r, Exception)]
    assert errors == []
    accepted = [r for r in results if r != 'full']
    assert accepted and 'full' in results
    live = _live(flavor.id)
    assert len(live) == len(accepted)
    assert _peak(live, model.guard()) <= 4


def test_an_extension_and_a_booking_race_for_one_slot(backend):
    flavor = _flavor(slots=1)
    start = timeutils.utcnow() + HOUR
    first = admission.book(_context(1), flavor, start, start + HOUR, 1)
    later = start + 2 * HOUR

    results = _race([
        lambda: admission.change_end(_context(1), first, later),
        lambda: admission.book(_context(2), flavor,
                               start + HOUR + HOUR / 2, later, 1)])

    assert results.count('full') == 1, results
    assert _peak(_live(flavor.id), model.guard()) == 1


def test_a_maintenance_window_and_a_booking_race(backend):
    from reserve.booking import maintenance
    flavor = _flavor(slots=2)
    start = timeutils.utcnow() + HOUR

    def close():
        try:
            return maintenance.create(reserve_context.get_admin_context(),
                                      start, start + HOUR, 'race',
                                      [flavor.id], False, False)
        except exception.MaintenanceOverlapsReservations:
            return 'refused'

    def book():
        try:
            return admission.book(_context(1), flavor, start,
                                  start + HOUR, 1)
        except exception.MaintenanceConflict:
            return 'refused'

    results = _race([close, book])
    # One of them wins; never both.
    assert results.count('refused') == 1, results


def _book_in_a_process(url, flavor_id, start, end, go_at, i):
    """A separate process (own engine, own process lock) books once."""
    CONF.set_override('connection', url, group='database')
    database.reset_engine()
    flavor = flavors_db.flavor_get(reserve_context.get_admin_context(),
                                   flavor_id)
    time.sleep(max(0.0, go_at - time.time()))
    try:
        return admission.book(_context(i), flavor, start, end, 1).id
    except exception.NoCapacity:
        return 'full'


def test_processes_on_one_sqlite_file_accept_exactly_one(tmp_path):
    url = 'sqlite:///%s' % (tmp_path / 'race.sqlite')
    database.use_database(url)
    try:
        flavor = _flavor(slots=1)
        start = timeutils.utcnow() + HOUR
        go_at = time.time() + 4
        spawn = multiprocessing.get_context('spawn')
        with spawn.Pool(6) as pool:
            results = pool.starmap(_book_in_a_process, [
                (url, flavor.id, start, start + HOUR, go_at, i)
                for i in range(6)])
        assert results.count('full') == 5, results
        assert [b.id for b in _live(flavor.id)] == [
            r for r in results if r != 'full']
    finally:
        database.reset_engine()
        CONF.clear_override('connection', group='database')
