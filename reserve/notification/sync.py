"""Bring bookings in line with their leases.

Used by the notification daemon when a lease event arrives, and by the
worker's reconciler when one never did. Each move is a compare-and-swap
on the booking's status, so a replayed notification changes nothing and
the user is told once.
"""
from oslo_log import log as logging

from reserve.common import rpc
from reserve.common import states
from reserve.common import timeutils
from reserve.db import bookings as bookings_db

LOG = logging.getLogger(__name__)

# lease status → (booking states it moves from, booking state, event)
_MOVES = {
    states.Lease.ACTIVE: ((states.Booking.ALLOCATED,),
                          states.Booking.ACTIVE, 'start'),
    states.Lease.TERMINATED: ((states.Booking.ALLOCATED,
                               states.Booking.ACTIVE),
                              states.Booking.COMPLETE, 'end'),
}

_NOTIFIER = None


def _notifier():
    global _NOTIFIER
    if _NOTIFIER is None:
        _NOTIFIER = rpc.get_notifier('reserve.notification')
    return _NOTIFIER


def booking_payload(booking):
    return {'reservation_id': booking.id,
            'project_id': booking.project_id, 'user_id': booking.user_id,
            'flavor_id': booking.flavor_id,
            'instance_count': booking.instance_count,
            'start': timeutils.isoformat(booking.start_date),
            'end': timeutils.isoformat(booking.end_date),
            'status': booking.status, 'lease_id': booking.lease_id,
            'compute_flavor': booking.reserved_flavor_id,
            'reserved_flavor_id': booking.reserved_flavor_id}


def emit(context, event, booking):
    """reserve.reservation.<event>: allocated, start, before_end, end."""
    _notifier().info(context, 'reserve.reservation.%s' % event,
                     booking_payload(booking))


def bookings_of_lease(context, lease_id):
    return bookings_db.booking_list_by_lease(context, lease_id)


def apply_lease_status(context, lease_id, lease_status):
    """Move the lease's bookings on; returns those that moved."""
    move = _MOVES.get(lease_status)
    if move is None:
        return []
    sources, target, event = move
    moved = []
    for booking in bookings_of_lease(context, lease_id):
        updated = bookings_db.booking_update(context, booking.id,
                                             {'status': target},
                                             expected_status=sources)
        if updated is None:
            continue
        LOG.info('Booking %s is now %s (lease %s %s)', booking.id, target,
                 lease_id, lease_status)
        emit(context, event, updated)
        moved.append(updated)
    return moved
