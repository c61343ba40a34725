"""Rows written straight to the database for the unit tests."""
import datetime
import uuid

from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import states
from reserve.common import timeutils
from reserve.db import bookings as bookings_db
from reserve.db import flavors as flavors_db
from reserve.db import leases as leases_db
from tests.fixtures import database

START = states.Event.START
BEFORE_END = states.Event.BEFORE_END
END = states.Event.END


def ago(seconds=0, minutes=0, hours=0, days=0):
    return timeutils.utcnow() - datetime.timedelta(
        seconds=seconds, minutes=minutes, hours=hours, days=days)


def ahead(seconds=0, minutes=0, hours=0, days=0):
    return timeutils.utcnow() + datetime.timedelta(
        seconds=seconds, minutes=minutes, hours=hours, days=days)


def event(event_type, time, status=states.Event.UNDONE, **values):
    return dict(values, event_type=event_type, time=time, status=status)


def make_lease(events=(), name=None, status=states.Lease.PENDING,
               start=None, end=None, **values):
    """A lease without reservations, with the given event dicts."""
    start = start or ahead(hours=1)
    end = end or start + datetime.timedelta(hours=2)
    lease_values = dict(name=name or 'lease-%s' % uuid.uuid4(),
                        project_id='project-a', user_id='alice',
                        start=start, end=end, status=status)
    lease_values.update(values)
    context = reserve_context.get_admin_context()
    return leases_db.lease_get(context, leases_db.lease_create(
        context, lease_values, reservations=[], events=list(events)))


def make_flavor(name='gpu.a100', **values):
    """A catalogue flavor (public, active, 10 slots, no length limit)."""
    row = dict(name=name, nova_flavor_id=name, slots=10, active=True,
               is_public=True, max_length_hours=None,
               nova_flavor={'id': name, 'name': name, 'vcpus': 1,
                            'memory_mb': 1024, 'disk_gb': 10,
                            'extra_specs': {}})
    row.update(values)
    return flavors_db.flavor_create(reserve_context.get_admin_context(), row)


def catalogue_flavor(ref):
    """The catalogue flavor with id or name ``ref``, created if needed."""
    try:
        return flavors_db.flavor_get(reserve_context.get_admin_context(), ref)
    except exception.FlavorNotFound:
        return make_flavor(ref)


def make_booking(status=states.Booking.PENDING_CREATE, lease_id=None,
                 start=None, end=None, flavor_id='gpu.a100', **values):
    """A booking row; flavor_id names a catalogue flavor (made if
    missing)."""
    start = start or ahead(hours=1)
    end = end or start + datetime.timedelta(hours=2)
    row = dict(project_id='project-a', user_id='alice',
               flavor_id=catalogue_flavor(flavor_id).id, instance_count=1,
               start=start, end=end, status=status,
               lease_id=lease_id)
    row.update(values)
    return bookings_db.booking_create(reserve_context.get_admin_context(), row)


def booking_lease(booking_id):
    """make_lease's values of a booking's lease, as the worker makes it:
    named after the booking, which it names as its owner."""
    return {'name': 'reservation-%s' % booking_id,
            'owner_type': states.Owner.BOOKING, 'owner_id': booking_id}


def booking_with_lease(booking_status, lease_status=states.Lease.ACTIVE,
                       lease_created=None, **booking_values):
    """A booking and its lease, named the way the worker names it
    (booking_lease): (booking, lease)."""
    row = make_booking(status=booking_status, **booking_values)
    lease_values = {}
    if lease_created is not None:
        lease_values['created_at'] = lease_created
    lease = make_lease(**booking_lease(row.id), status=lease_status,
                       **lease_values)
    bookings_db.booking_update(reserve_context.get_admin_context(), row.id,
                               {'lease_id': lease.id})
    return row, lease


# How a booking follows its lease (reserve.manager.owners.follow): its
# status, the lease's, the booking's after, and the event it is told by.
BOOKING_FOLLOWS_LEASE = [
    (states.Booking.ALLOCATED, states.Lease.ACTIVE, states.Booking.ACTIVE,
     'reserve.reservation.start'),
    (states.Booking.ALLOCATED, states.Lease.TERMINATED,
     states.Booking.COMPLETE, 'reserve.reservation.end'),
    (states.Booking.ACTIVE, states.Lease.TERMINATED, states.Booking.COMPLETE,
     'reserve.reservation.end'),
]


def booking_status(booking_id):
    return bookings_db.booking_get(reserve_context.get_admin_context(),
                                   booking_id).status


def events_of(lease_id):
    """{event_type: event row} of a lease."""
    return {e.event_type: e for e in database.lease_events(
        reserve_context.get_admin_context(), lease_id)}
