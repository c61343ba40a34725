"""The reconciler catches what a dead worker or manager leaves behind
when a booking's end moves or its lease is deleted."""
import datetime

import pytest

from reserve.common import context as reserve_context
from reserve.common import states
from reserve.db import api as db_api
from reserve.db import models
from reserve.worker import reconciler
from tests.unit import factories
from tests.unit.factories import ago
from tests.unit.factories import ahead
from tests.unit.test_reconciler import RecordingWorkerAPI

B = states.Booking
L = states.Lease
TIMEOUT = 120


@pytest.fixture
def worker_api():
    return RecordingWorkerAPI()


@pytest.fixture
def run(db, override, notifications, worker_api):
    override('pending_create_timeout', TIMEOUT, group='worker')
    job = reconciler.Reconciler(worker_api)
    return lambda: job.run(reserve_context.get_admin_context())


def _ctx():
    return reserve_context.get_admin_context()


def booked(booking_status=B.ALLOCATED, lease_status=L.PENDING,
           booking_end=None, touched=None):
    """A booking and its lease; the booking's end may differ."""
    start = ahead(hours=1)
    lease_end = start + datetime.timedelta(hours=2)
    touched = touched or ago(seconds=TIMEOUT + 60)
    row = factories.make_booking(status=booking_status, start=start,
                                 end=booking_end or lease_end)
    lease = factories.make_lease(**factories.booking_lease(row.id),
                                 status=lease_status, start=start,
                                 end=lease_end)
    # Straight to the table, so that updated_at stays in the past.
    with db_api.get_engine().begin() as conn:
        conn.execute(models.Booking.__table__.update()
                     .where(models.Booking.id == row.id)
                     .values(lease_id=lease.id, updated_at=touched))
    return row, lease


@pytest.mark.parametrize('status', [B.ALLOCATED, B.ACTIVE])
@pytest.mark.parametrize('hours', [3, 1])   # extended, shortened
def test_an_end_the_lease_never_took_is_cast_again_once(run, worker_api,
                                                        status, hours):
    lease_status = L.ACTIVE if status == B.ACTIVE else L.PENDING
    row, _ = booked(status, lease_status,
                    booking_end=ahead(hours=1 + hours))
    counts = run()
    assert counts['updates'] == 1
    assert worker_api.casts == [('update_lease', row.id)]
    # Touched: the cast just sent is given its time.
    assert run()['updates'] == 0


def test_a_fresh_change_is_left_to_its_cast(run, worker_api):
    booked(booking_end=ahead(hours=5), touched=ago(seconds=10))
    assert run()['updates'] == 0
    assert worker_api.casts == []


def test_matching_ends_need_nothing(run, worker_api):
    booked()
    assert run()['updates'] == 0


@pytest.mark.parametrize('lease_status', [L.TERMINATED, L.DELETING,
                                          L.ERROR])
def test_leases_that_cannot_move_are_left_alone(run, worker_api,
                                                lease_status):
    booked(lease_status=lease_status, booking_end=ahead(hours=9))
    run()
    assert [c for c in worker_api.casts if c[0] == 'update_lease'] == []


def _deleting_lease(end_time, marked=None):
    lease = factories.make_lease(
        name='reservation-gone', status=L.DELETING,
        created_at=ago(hours=1), updated_at=marked or ago(hours=1),
        events=[factories.event(factories.END, end_time)])
    return lease


def test_a_deletion_whose_manager_died_is_cast_again(run, worker_api):
    # Marked DELETING, but end_lease still waits for the original end.
    lease = _deleting_lease(ahead(days=3))
    assert run()['orphans'] == 1
    assert worker_api.casts == [('delete_lease', None, lease.id)]


def test_a_deletion_under_way_is_left_to_the_event_loop(run, worker_api):
    # end_lease was moved to the time of the deletion: it will run.
    _deleting_lease(ago(hours=1))
    assert run()['orphans'] == 0
    # Just marked: its manager may still be at it.
    factories.make_lease(
        name='reservation-fresh', status=L.DELETING,
        created_at=ago(hours=1), updated_at=ago(seconds=5),
        events=[factories.event(factories.END, ahead(days=3))])
    assert run()['orphans'] == 0
    assert worker_api.casts == []
