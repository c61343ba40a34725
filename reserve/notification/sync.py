"""``reserve.reservation.<event>``: what a booking's user is told (and
mailed, by the notification daemon's BookingMailEndpoint).

Sent by the manager for each move of a booking that won
(reserve/manager/booking_status.py), by the notification daemon before
a booking's end, by the desk when a drain cancels one, and by the
manager's health check when a failed host moves or degrades one.
"""
from reserve.common import rpc
from reserve.common import timeutils
from reserve.db import bookings as bookings_db

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
            'start': timeutils.isoformat(booking.start),
            'end': timeutils.isoformat(booking.end),
            'status': booking.status, 'lease_id': booking.lease_id,
            'reserved_flavor_id': booking.reserved_flavor_id}


def emit(context, event, booking, **details):
    """reserve.reservation.<event>: allocated, start, before_end, end,
    cancelled; healed, degraded, restored (a failed host, with
    ``details`` saying what it did); promoted, lapsed (the standby
    list)."""
    payload = booking_payload(booking)
    payload.update(details)
    _notifier().info(context, 'reserve.reservation.%s' % event, payload)


def emit_for_owner(context, event, lease, **details):
    """reserve.reservation.<event> of a lease's owner that is not a
    booking (a device reservation): its id as reservation_id."""
    payload = {'reservation_id': lease.owner_id,
               'owner_type': lease.owner_type, 'lease_id': lease.id,
               'project_id': lease.project_id}
    payload.update(details)
    _notifier().info(context, 'reserve.reservation.%s' % event, payload)


def bookings_of_lease(context, lease_id):
    return bookings_db.booking_list_by_lease(context, lease_id)
