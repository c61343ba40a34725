"""``reserve.reservation.<event>``: what a booking's user is told (and
mailed, by the notification daemon's BookingMailEndpoint).

Sent by the manager for each move of a booking that won
(reserve/manager/booking_status.py), by the notification daemon before
a booking's end, and by the desk when a drain cancels one.
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


def emit(context, event, booking):
    """reserve.reservation.<event>: allocated, start, before_end, end."""
    _notifier().info(context, 'reserve.reservation.%s' % event,
                     booking_payload(booking))


def bookings_of_lease(context, lease_id):
    return bookings_db.booking_list_by_lease(context, lease_id)
