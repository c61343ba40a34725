"""Changes of a booking's shares at the same instant all apply, one
after the other, and none lands after a cancel: threads released
together by a barrier, on every backend (the booking's row lock on
MariaDB and PostgreSQL, SQLite's write lock)."""

import pytest

from reserve.booking import cancel
from reserve.booking import sharing
from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import states
from reserve.db import bookings as bookings_db
from reserve.db import sharing as sharing_db
from tests.fixtures import backends
from tests.fixtures import database
from tests.fixtures.races import together
from tests.functional import api_fixtures

THREADS = 8


@pytest.fixture(params=backends.BACKENDS)
def backend(request, tmp_path):
    with database.on_backend(request.param, tmp_path) as url:
        yield url


def _ctx():
    return reserve_context.get_admin_context()


def _adding(booking, project_id):
    return lambda: sharing_db.shares_change(
        _ctx(), booking.id,
        lambda current: sharing.add(booking.project_id, current,
                                    project_id))[1]


def _projects(n):
    return ['%032x' % (i + 1) for i in range(n)]


def test_additions_at_once_are_all_kept(backend):
    booking = api_fixtures.make_booking()
    projects = _projects(THREADS)
    results = together(*[_adding(booking, p) for p in projects],
                       raised=True)
    assert all(isinstance(r, list) for r in results), results
    assert sharing_db.shares_of(_ctx(), booking.id).shared == projects
    # Each saw those before it, and its own.
    assert sorted(len(r) for r in results) == list(range(1, THREADS + 1))


def test_no_change_lands_after_a_cancel(backend):
    booking = api_fixtures.make_booking(status=states.Booking.ACTIVE)
    projects = _projects(THREADS - 1)
    results = together(*[_adding(booking, p) for p in projects] + [
        lambda: cancel.booking(_ctx(), booking.id, 'alice')], raised=True)
    assert bookings_db.booking_get(_ctx(), booking.id).status == \
        states.Booking.COMPLETE
    applied = [p for p, r in zip(projects, results) if isinstance(r, list)]
    refused = [r for r in results[:-1]
               if isinstance(r, exception.InvalidState)]
    assert len(applied) + len(refused) == len(projects), results
    # What was applied was applied before the cancel: the list holds it.
    assert sharing_db.shares_of(_ctx(), booking.id).shared == applied
