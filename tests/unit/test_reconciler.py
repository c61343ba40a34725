"""reserve.worker.reconciler: the database is the truth, messages hints."""
import datetime
import logging

import pytest

from reserve.booking import cancel
from reserve.capacity import store
from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import states
from reserve.db import api as db_api
from reserve.db import bookings as bookings_db
from reserve.db import device_reservations as device_reservations_db
from reserve.db import hosts as hosts_db
from reserve.db import models
from reserve.devices import states as device_states
from reserve.worker import reconciler
from tests.unit import factories
from tests.unit.factories import ago
from tests.unit.factories import booking_with_lease

B = states.Booking
L = states.Lease

TIMEOUT = 120          # [worker]pending_create_timeout, seconds
PURGE_DAYS = 7         # [worker]purge_after_days


class RecordingWorkerAPI:
    """Stands in for reserve.worker.rpcapi.WorkerAPI: records the casts."""

    def __init__(self):
        self.casts = []

    def create_lease(self, context, booking_id):
        self.casts.append(('create_lease', booking_id))

    def update_lease(self, context, booking_id):
        self.casts.append(('update_lease', booking_id))

    def delete_lease(self, context, booking_id, lease_id=None):
        self.casts.append(('delete_lease', booking_id, lease_id))

    def create_device_lease(self, context, reservation_id):
        self.casts.append(('create_device_lease', reservation_id))

    def delete_device_lease(self, context, reservation_id):
        self.casts.append(('delete_device_lease', reservation_id))


@pytest.fixture
def worker_api():
    return RecordingWorkerAPI()


@pytest.fixture
def run(db, override, notifications, worker_api):
    override('pending_create_timeout', TIMEOUT, group='worker')
    override('purge_after_days', PURGE_DAYS, group='worker')
    job = reconciler.Reconciler(worker_api)
    return lambda: job.run(reserve_context.get_admin_context())


def stale():
    return ago(seconds=TIMEOUT + 60)


def fresh():
    return ago(seconds=TIMEOUT - 60)


# PENDING_CREATE for too long -------------------------------------------------

def test_stale_pending_booking_is_recast_once(run, worker_api):
    row = factories.make_booking(status=B.PENDING_CREATE,
                                 updated_at=stale())

    counts = run()

    assert worker_api.casts == [('create_lease', row.id)]
    assert counts['recast'] == 1
    # Touched: the very next run leaves it to the cast just sent.
    assert bookings_db.booking_get(reserve_context.get_admin_context(),
                                   row.id).updated_at > stale()
    assert run()['recast'] == 0
    assert worker_api.casts == [('create_lease', row.id)]
    assert factories.booking_status(row.id) == B.PENDING_CREATE


def test_fresh_pending_booking_is_left_alone(run, worker_api):
    factories.make_booking(status=B.PENDING_CREATE, updated_at=fresh())
    assert run()['recast'] == 0
    assert worker_api.casts == []


@pytest.mark.parametrize('status', [B.ALLOCATED, B.ACTIVE, B.ERROR])
def test_only_pending_bookings_are_recast(run, worker_api, status):
    factories.make_booking(status=status, updated_at=stale())
    run()
    assert [c for c in worker_api.casts if c[0] == 'create_lease'] == []


# Leases that outlive their booking -------------------------------------------

@pytest.mark.parametrize('booking_status', [B.COMPLETE, B.ERROR])
def test_lease_of_a_cancelled_booking_is_deleted(run, worker_api,
                                                 booking_status):
    _, lease = booking_with_lease(booking_status, L.PENDING,
                                  lease_created=stale())
    assert run()['orphans'] == 1
    assert worker_api.casts == [('delete_lease', None, lease.id)]


def test_lease_whose_booking_is_gone_is_deleted(run, worker_api):
    row, lease = booking_with_lease(B.ACTIVE, L.ACTIVE,
                                    lease_created=stale())
    bookings_db.booking_destroy(reserve_context.get_admin_context(), row.id)
    assert run()['orphans'] == 1
    assert worker_api.casts == [('delete_lease', None, lease.id)]


def test_lease_without_any_booking_is_deleted(run, worker_api):
    lease = factories.make_lease(name='reservation-gone', status=L.ACTIVE,
                                 created_at=stale())
    run()
    assert worker_api.casts == [('delete_lease', None, lease.id)]


def test_young_orphan_lease_is_left_to_the_create_in_flight(run,
                                                            worker_api):
    booking_with_lease(B.COMPLETE, L.PENDING, lease_created=fresh())
    factories.make_lease(name='reservation-gone', status=L.PENDING,
                         created_at=fresh())
    assert run()['orphans'] == 0
    assert worker_api.casts == []


def test_lease_of_a_pending_booking_is_not_an_orphan(run, worker_api):
    # The worker died before recording the lease: the booking is fresh
    # PENDING_CREATE, its lease old.
    row = factories.make_booking(status=B.PENDING_CREATE, updated_at=fresh())
    factories.make_lease(**factories.booking_lease(row.id),
                         status=L.PENDING, created_at=stale())
    assert run()['orphans'] == 0
    assert worker_api.casts == []


@pytest.mark.parametrize('booking_status', [B.ALLOCATED, B.ACTIVE])
def test_lease_of_a_live_booking_is_kept(run, worker_api, booking_status):
    booking_with_lease(booking_status, L.PENDING, lease_created=stale())
    assert run()['orphans'] == 0
    assert worker_api.casts == []


@pytest.mark.parametrize('lease_status', [L.TERMINATED, L.DELETING])
def test_lease_already_going_is_not_deleted_again(run, worker_api,
                                                  lease_status):
    booking_with_lease(B.COMPLETE, lease_status, lease_created=stale())
    assert run()['orphans'] == 0
    assert worker_api.casts == []


# Purge -----------------------------------------------------------------------

def test_complete_bookings_are_purged_after_the_retention(run):
    old = factories.make_booking(status=B.COMPLETE,
                                 start=ago(days=PURGE_DAYS + 2),
                                 end=ago(days=PURGE_DAYS, hours=1))
    recent = factories.make_booking(status=B.COMPLETE,
                                    start=ago(days=PURGE_DAYS),
                                    end=ago(days=PURGE_DAYS - 1))
    old_failure = factories.make_booking(status=B.ERROR,
                                         start=ago(days=30),
                                         end=ago(days=29))

    assert run()['purged'] == 1

    ctx = reserve_context.get_admin_context()
    with pytest.raises(exception.BookingNotFound):
        bookings_db.booking_get(ctx, old.id)
    assert bookings_db.booking_get(ctx, recent.id).status == B.COMPLETE
    assert bookings_db.booking_get(ctx, old_failure.id).status == B.ERROR
    assert run()['purged'] == 0


def test_allocations_of_bookings_over_without_a_lease_are_released(run):
    ctx = reserve_context.get_admin_context()
    host = hosts_db.host_create(ctx, {'name': 'h1', 'kind': 'nova',
                                      'vcpus': 8, 'memory_mb': 8192,
                                      'local_gb': 100})
    live = factories.make_booking()
    over = factories.make_booking(status=B.ERROR)
    for booking in (live, over):
        store.allocations_create(ctx, {host.id: 1}, booking.start,
                                 booking.end, {'vcpus': 1},
                                 booking_id=booking.id)
    assert run()['released'] == 1
    assert store.allocations_of_booking(ctx, over.id) == []
    assert len(store.allocations_of_booking(ctx, live.id)) == 1


def test_nothing_to_do_reports_zero_everywhere(run, worker_api):
    assert run() == {'recast': 0, 'device_leases': 0, 'device_cancels': 0,
                     'updates': 0, 'orphans': 0,
                     'released': 0, 'purged': 0}
    assert worker_api.casts == []


# Both kinds in one walk, by owner key -----------------------------------

def device_reservation(status=device_states.DeviceReservation.PENDING,
                       updated_at=None, lease_status=None, start=None):
    """A device reservation (no devices: the walk reads none), and its lease
    (owned by it) when ``lease_status`` is given."""
    ctx = reserve_context.get_admin_context()
    start = start or ago(hours=1)
    reservation_id = device_reservations_db.device_reservation_insert(ctx, {
        'host_id': 'host-1', 'project_id': 'project-a', 'user_id': 'alice',
        'start': start, 'end': start + datetime.timedelta(hours=2),
        'status': status, 'topology_generation': '1',
        'updated_at': updated_at or stale()}, {}, [], [])
    if lease_status is not None:
        factories.make_lease(status=lease_status,
                             owner_type=states.Owner.DEVICE_RESERVATION,
                             owner_id=reservation_id)
    return device_reservations_db.device_reservation_find(
        ctx, reservation_id)


def test_one_run_recasts_the_creations_of_both_kinds(run, worker_api):
    booking = factories.make_booking(status=B.PENDING_CREATE,
                                     updated_at=stale())
    device = device_reservation()
    factories.make_lease(status=L.PENDING,  # has its lease: left alone
                         owner_type=states.Owner.DEVICE_RESERVATION,
                         owner_id=device_reservation().id)

    counts = run()

    assert sorted(worker_api.casts) == [('create_device_lease', device.id),
                                        ('create_lease', booking.id)]
    assert (counts['recast'], counts['device_leases']) == (1, 1)
    # Both touched: the next run leaves them to the casts just sent.
    worker_api.casts.clear()
    run()
    assert worker_api.casts == []


LEAD_HOURS = 24      # [devices]lease_lead_seconds, the default


def test_a_device_reservation_far_ahead_waits_for_its_lead(run, worker_api):
    # Made long ago for a start beyond the lead: not due, however old.
    device_reservation(start=factories.ahead(hours=LEAD_HOURS + 1),
                       updated_at=ago(days=30))
    assert run()['device_leases'] == 0
    assert worker_api.casts == []


def test_a_device_reservation_whose_lead_begins_gets_its_lease_cast(
        run, worker_api, caplog):
    # Made long ago, its start now within the lead: its creation is
    # cast at once, told as news (not as a lost cast), and touched.
    due = device_reservation(start=factories.ahead(hours=LEAD_HOURS - 1),
                             updated_at=ago(days=30))
    # Made within its lead a moment ago: its cast is on its way.
    device_reservation(start=factories.ahead(hours=2),
                       updated_at=fresh())
    with caplog.at_level(logging.INFO, logger='reserve.worker.reconciler'):
        assert run()['device_leases'] == 1
    assert worker_api.casts == [('create_device_lease', due.id)]
    said = [r for r in caplog.records if due.id in r.getMessage()]
    assert [r.levelno for r in said] == [logging.INFO]
    assert 'casting the creation of its lease' in said[0].getMessage()
    worker_api.casts.clear()
    assert run()['device_leases'] == 0


def test_a_due_device_lease_cast_lost_is_cast_again_as_a_warning(
        run, worker_api, caplog):
    # Asked for once its lead began (touched then), and still no lease.
    lost = device_reservation(start=factories.ahead(hours=LEAD_HOURS - 1),
                              updated_at=stale())
    with caplog.at_level(logging.INFO, logger='reserve.worker.reconciler'):
        assert run()['device_leases'] == 1
    assert worker_api.casts == [('create_device_lease', lost.id)]
    assert [r.levelno for r in caplog.records
            if lost.id in r.getMessage()] == [logging.WARNING]


@pytest.mark.parametrize('lease_status,recast', [
    (None, True), (L.ACTIVE, True), (L.PENDING, True),
    (L.DELETING, False), (L.TERMINATED, False)])
def test_a_cancelled_device_reservation_not_let_go_is_recast(
        run, worker_api, lease_status, recast):
    row = device_reservation(lease_status=lease_status)
    cancel.device_reservation(reserve_context.get_admin_context(), row.id,
                              'by alice')
    age_device_reservation(row.id)

    counts = run()

    if lease_status is None:
        # Without a lease the cancel released the claim at once.
        assert counts['device_cancels'] == 0
    else:
        assert (counts['device_cancels'] == 1) is recast
        assert (('delete_device_lease', row.id) in worker_api.casts) is recast


def test_a_lease_of_no_owner_and_a_cancelled_booking_s_go_in_one_walk(
        run, worker_api):
    _, lease = booking_with_lease(B.ALLOCATED, L.ACTIVE,
                                  lease_created=stale())
    cancel_booking(lease)
    ownerless = factories.make_lease(name='nobody', status=L.ACTIVE,
                                     created_at=stale())
    assert run()['orphans'] == 2
    assert sorted(c[2] for c in worker_api.casts
                  if c[0] == 'delete_lease') == sorted([lease.id,
                                                        ownerless.id])


def cancel_booking(lease):
    cancel.booking(reserve_context.get_admin_context(), lease.owner_id,
                   'alice')


def age_device_reservation(reservation_id):
    """As it is once its cancel is old news."""
    with db_api.writer.using(reserve_context.get_admin_context()) as session:
        (session.query(models.DeviceReservation)
         .filter_by(id=reservation_id).update({'updated_at': stale()}))
