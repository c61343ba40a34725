"""Extending and deleting a booking reach its lease, and nothing is left
behind when the worker is down or a daemon dies half-way.

The engine of test_lease_lifecycle.py (real placement, the nova double,
the worker calling the manager in-process); the API's own steps go
through reserve.booking.admission as the controllers do, and casts that
a dead worker never received are simply not made.
"""
import datetime
import time

from oslo_config import cfg
import pytest

from reserve.booking import admission
from reserve.capacity import model
from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import states
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import bookings as bookings_db
from reserve.db import flavors as flavors_db
from reserve.db import leases as leases_db
from reserve.db import models
from reserve.worker import reconciler
from tests.fixtures import database
from tests.functional.test_lease_lifecycle import cloud  # noqa: F401
from tests.functional.test_lease_lifecycle import placement_server  # noqa

CONF = cfg.CONF
PROJECT = 'project-a'
HOUR = datetime.timedelta(hours=1)


def _admin():
    return reserve_context.get_admin_context()


def _user():
    return reserve_context.RequestContext(user_id='alice',
                                          project_id=PROJECT,
                                          roles=['member', 'reader'])


class WorkerAPI:
    """The reconciler's casts, delivered at once to the test's worker."""

    def __init__(self, worker):
        self.worker = worker

    def create_lease(self, context, booking_id):
        self.worker.create_lease(_admin(), booking_id)

    def update_lease(self, context, booking_id):
        self.worker.update_lease(_admin(), booking_id)

    def delete_lease(self, context, booking_id, lease_id=None):
        self.worker.delete_lease(_admin(), booking_id, lease_id=lease_id)


@pytest.fixture
def desk_flavor(cloud):  # noqa: F811
    return flavors_db.flavor_get(_admin(), 'gpu.large')


@pytest.fixture
def reconcile(cloud):  # noqa: F811
    CONF.set_override('pending_create_timeout', 1, group='worker')
    job = reconciler.Reconciler(WorkerAPI(cloud.worker))
    yield lambda: job.run(_admin())
    CONF.clear_override('pending_create_timeout', group='worker')


def _age(*rows, seconds=5):
    """Make rows look untouched for a while (what the reconciler waits
    for before it acts)."""
    past = timeutils.utcnow() - datetime.timedelta(seconds=seconds)
    with db_api.get_engine().begin() as conn:
        for row in rows:
            table = type(row).__table__
            values = {'updated_at': past}
            if isinstance(row, models.Lease):
                values['created_at'] = past
            conn.execute(table.update().where(table.c.id == row.id)
                         .values(**values))


def _allocated(cloud, flavor, start, end, count=1):  # noqa: F811
    booking = admission.book(_user(), flavor, start, end, count)
    cloud.worker.create_lease(_admin(), booking.id)
    booking = bookings_db.booking_get(_admin(), booking.id)
    assert booking.status == states.Booking.ALLOCATED
    return booking


def _end_events(lease_id):
    return {e.event_type: e.time
            for e in database.lease_events(_admin(), lease_id)}


def _tick_until_gone(cloud, lease_id, timeout=10):  # noqa: F811
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        cloud.loop.tick()
        try:
            leases_db.lease_get(_admin(), lease_id)
        except exception.LeaseNotFound:
            return
        time.sleep(0.2)
    raise AssertionError('lease %s still there' % lease_id)


def test_extension_moves_the_lease_end_events(cloud, desk_flavor):  # noqa
    start = timeutils.utcnow() + HOUR
    booking = _allocated(cloud, desk_flavor, start, start + HOUR)
    new_end = start + 3 * HOUR
    admission.change_end(_user(), booking, new_end)
    cloud.worker.update_lease(_admin(), booking.id)
    lease = leases_db.lease_get(_admin(), booking.lease_id)
    assert lease.end == new_end
    assert _end_events(lease.id) == {'start_lease': start,
                                     'before_end_lease': new_end,
                                     'end_lease': new_end}


def test_extension_while_the_worker_is_down(cloud, desk_flavor,  # noqa
                                            reconcile):
    start = timeutils.utcnow() + HOUR
    booking = _allocated(cloud, desk_flavor, start, start + HOUR)
    updated = admission.change_end(_user(), booking, start + 2 * HOUR)
    # The update_lease cast was lost: the lease would end an hour early.
    assert leases_db.lease_get(_admin(), booking.lease_id).end == \
        start + HOUR
    _age(updated)
    assert reconcile()['updates'] == 1
    assert leases_db.lease_get(_admin(), booking.lease_id).end == \
        start + 2 * HOUR
    assert reconcile()['updates'] == 0


def test_shortening_while_the_worker_is_down_frees_the_hosts(  # noqa
        cloud, desk_flavor, reconcile):
    start = timeutils.utcnow() + HOUR
    booking = _allocated(cloud, desk_flavor, start, start + 4 * HOUR)
    updated = admission.change_end(_user(), booking, start + HOUR)
    _age(updated)
    reconcile()
    assert leases_db.lease_get(_admin(), booking.lease_id).end == \
        start + HOUR


def test_an_extension_the_hosts_cannot_carry_is_refused(  # noqa
        cloud, desk_flavor):
    """The desk counts the hosts: an extension into the next booking's
    hosts is refused at once, even with slots to spare."""
    start = timeutils.utcnow() + HOUR
    first = _allocated(cloud, desk_flavor, start, start + HOUR, count=4)
    # All 8 vCPUs of the two hosts are taken by the next booking.
    _allocated(cloud, desk_flavor, start + HOUR + model.guard(),
               start + 3 * HOUR, count=4)
    flavors_db.flavor_update(_admin(), desk_flavor.id, {'slots': 16})
    with pytest.raises(exception.NoCapacity):
        admission.change_end(_user(), first, start + 2 * HOUR)
    assert bookings_db.booking_get(_admin(), first.id).end == start + HOUR


def test_a_refused_lease_update_keeps_the_booking_truthful(  # noqa
        cloud, desk_flavor):
    """A booking whose end moved without the desk (by hand in the
    database): the manager refuses to stretch its lease over the next
    one, and the booking goes back to its lease's end, with the reason."""
    start = timeutils.utcnow() + HOUR
    first = _allocated(cloud, desk_flavor, start, start + HOUR, count=4)
    _allocated(cloud, desk_flavor, start + HOUR + model.guard(),
               start + 3 * HOUR, count=4)
    bookings_db.booking_update(_admin(), first.id,
                               {'end': start + 2 * HOUR})
    cloud.worker.update_lease(_admin(), first.id)
    row = bookings_db.booking_get(_admin(), first.id)
    assert row.end == start + HOUR
    assert 'end not moved' in row.status_reason


def _cancel(booking):
    """What DELETE /v1/reservations/{id} does before its cast."""
    return bookings_db.booking_close(
        _user(), booking.id, states.Booking.COMPLETE, 'Cancelled',
        states.Booking.LIVE)


def test_delete_tears_the_lease_down(cloud, desk_flavor):  # noqa
    start = timeutils.utcnow() + HOUR
    booking = _allocated(cloud, desk_flavor, start, start + HOUR)
    rsv_id = booking.reserved_flavor_id
    assert rsv_id in cloud.flavors
    _cancel(booking)
    cloud.worker.delete_lease(_admin(), booking.id)
    _tick_until_gone(cloud, booking.lease_id)
    assert rsv_id not in cloud.flavors
    # The calendar was free the moment the booking was cancelled: all
    # the hosts hold (4 instances of 2 vCPUs on 2 x 4 vCPUs) is bookable.
    assert admission.book(_user(), desk_flavor, start, start + HOUR, 4)


def test_delete_while_the_worker_is_down(cloud, desk_flavor,  # noqa
                                         reconcile):
    start = timeutils.utcnow() + HOUR
    booking = _allocated(cloud, desk_flavor, start, start + HOUR)
    _cancel(booking)      # the delete_lease cast is lost
    _age(leases_db.lease_get(_admin(), booking.lease_id))
    assert reconcile()['orphans'] == 1
    _tick_until_gone(cloud, booking.lease_id)
    assert booking.reserved_flavor_id not in cloud.flavors


def test_worker_dies_between_the_lease_and_its_record(  # noqa
        cloud, desk_flavor, reconcile):
    """The manager made the lease, the worker died before recording it,
    and the booking was cancelled meanwhile: the lease is not left."""
    start = timeutils.utcnow() + HOUR
    booking = admission.book(_user(), desk_flavor, start, start + HOUR, 1)
    lease = cloud.lease_manager.create_lease(_admin(), {
        'name': 'reservation-%s' % booking.id,
        'owner_type': states.Owner.BOOKING, 'owner_id': booking.id,
        'project_id': PROJECT, 'user_id': 'alice', 'start': start,
        'end': start + HOUR,
        'reservations': [{'resource_type': 'flavor:instance',
                          'nova_flavor_id': 'src-flavor',
                          'instance_count': 1, 'booking_id': booking.id}]})
    _cancel(booking)
    _age(leases_db.lease_get(_admin(), lease['id']))
    assert reconcile()['orphans'] == 1
    _tick_until_gone(cloud, lease['id'])


def test_manager_dies_between_marking_and_moving_the_end(  # noqa
        cloud, desk_flavor, reconcile):
    start = timeutils.utcnow() + HOUR
    booking = _allocated(cloud, desk_flavor, start, start + 5 * HOUR)
    _cancel(booking)
    # delete_lease got as far as marking the lease, then the manager died.
    leases_db.lease_update(_admin(), booking.lease_id,
                           {'status': states.Lease.DELETING})
    _age(leases_db.lease_get(_admin(), booking.lease_id))
    assert reconcile()['orphans'] == 1
    _tick_until_gone(cloud, booking.lease_id)
