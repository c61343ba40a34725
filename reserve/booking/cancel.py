"""The desk's cancels, of both kinds: final and shown at once.

A cancel is a fact of its own (``closed_as``, see
reserve/db/models/closing.py), recorded by one compare-and-swap on the
shown status (reserve.db.bookings.booking_close,
reserve.db.device_reservations.device_reservation_close), never by a write
of the status the manager moves: a move, an end moved (PATCH) or an
attach that comes after it finds it closed, one before it wins and the
cancel's end takes back what it gave. The controllers call these, then
cast the lease's deletion to the worker.
"""
from oslo_log import log as logging

from reserve.capacity import store as capacity_store
from reserve.common import exception
from reserve.common import states
from reserve.common import timeutils
from reserve.db import bookings as bookings_db
from reserve.db import device_reservations as device_reservations_db
from reserve.devices import holds
from reserve.devices import states as device_states

LOG = logging.getLogger(__name__)


def _close_booking(context, booking_id, closed_as, reason):
    """Close a live booking as ``closed_as`` and release its allocations
    no lease took (a lease's go at its teardown). The booking, or None
    when it was not live any more."""
    closed = bookings_db.booking_close(context, booking_id, closed_as,
                                       reason, states.Booking.LIVE)
    if closed is not None:
        capacity_store.allocations_release_unadopted(context, booking_id)
    return closed


def booking(context, booking_id, who):
    """Cancel a live booking: COMPLETE from now on. Returns it; 409 when
    it was not live any more."""
    reason = 'Cancelled by %s at %s' % (
        who, timeutils.isoformat(timeutils.utcnow()))
    closed = _close_booking(context, booking_id, states.Booking.COMPLETE,
                            reason)
    if closed is None:
        current = bookings_db.booking_get(context, booking_id)
        raise exception.InvalidState(
            what='Reservation %s' % booking_id, status=current.status,
            reason='it changed while being cancelled; try again')
    LOG.info('Booking %s cancelled by %s', booking_id, who)
    return closed


def evict(context, booking_id, reason):
    """A drain found no room for a live booking: ERROR from now on. The
    booking, or None when it was not live any more."""
    return _close_booking(context, booking_id, states.Booking.ERROR, reason)


def device_reservation(context, reservation_id, reason):
    """Cancel a live device reservation (False when it was not live any
    more). Without a lease yet its devices are free at once; with one,
    its deletion (the worker's) runs its end."""
    Status = device_states.DeviceReservation
    if not device_reservations_db.device_reservation_close(
            context, reservation_id, Status.CANCELLED, reason, Status.LIVE):
        return False
    if device_reservations_db.device_reservation_lease_state(
            context, reservation_id) is None:
        holds.release(context, reservation_id)
    return True
