"""A booking's status after its creation: the manager's alone.

The desk writes a booking ``PENDING_CREATE`` and may close it (a cancel,
an eviction: reserve/booking/cancel.py, a fact of its own that the
status shown takes over, see reserve/db/models/closing.py); every other
move follows the booking's lease, and is written here, in the
transaction that moves the lease, so that a booking is never out of
step with its lease. Each move is a compare-and-swap on the shown
status: a closed booking never moves, and a move made again (a retried
event, a recast creation) changes nothing and tells nobody. Once its
transaction is committed, the move that won is announced as
``reserve.reservation.<event>`` (the notification daemon mails it).
"""
from oslo_log import log as logging

from reserve.capacity import store as capacity_store
from reserve.common import exception
from reserve.common import states
from reserve.db import bookings as bookings_db
from reserve.notification import sync

LOG = logging.getLogger(__name__)

B = states.Booking

# move: (statuses it moves from, status it moves to, event notified)
MOVES = {
    'allocated': ((B.PENDING_CREATE,), B.ALLOCATED, 'allocated'),
    'refused': ((B.PENDING_CREATE,), B.ERROR, None),
    'started': ((B.ALLOCATED,), B.ACTIVE, 'start'),
    'ended': ((B.ALLOCATED, B.ACTIVE), B.COMPLETE, 'end'),
}


class Moved:
    """A move that won, to announce once its transaction is committed
    (a notification sent before could be read before the row)."""

    def __init__(self, name, booking):
        self.name = name
        self.booking = booking

    def announce(self, context):
        event = MOVES[self.name][2]
        if event is not None:
            sync.emit(context, event, self.booking)


def move(context, booking_id, name, **values):
    """Make move ``name`` of MOVES: a Moved, or None when the booking
    was not in one of its sources."""
    sources, target, _event = MOVES[name]
    booking = bookings_db.booking_move(context, booking_id, target,
                                       sources, **values)
    if booking is None:
        return None
    LOG.info('Booking %s is now %s', booking_id, target)
    return Moved(name, booking)


def allocated(context, booking_id, lease):
    """The lease of a PENDING_CREATE booking is made: ALLOCATED, with its
    lease and reserved flavor (the lease reservation's id)."""
    return move(context, booking_id, 'allocated', lease_id=lease.id,
                reserved_flavor_id=lease.reservations[0].id,
                status_reason=None)


def refused(context, booking_id, reason):
    """The manager cannot make its lease: ERROR with ``reason`` (words
    for its project), its allocations no lease took released."""
    if move(context, booking_id, 'refused', status_reason=reason):
        capacity_store.allocations_release_unadopted(context, booking_id)


def follow(context, lease, lease_status):
    """The bookings of ``lease`` (owned by one) after it became
    ``lease_status``: ACTIVE when it started, COMPLETE when it ended."""
    name = {states.Lease.ACTIVE: 'started',
            states.Lease.TERMINATED: 'ended'}.get(lease_status)
    if name is None or lease.owner_type != states.Owner.BOOKING:
        return None
    try:
        return move(context, lease.owner_id, name)
    except exception.BookingNotFound:
        # Deleted under its lease: nothing follows it, and the lease
        # must still end (the reconciler deletes such leases).
        LOG.warning('Lease %s: its booking %s is gone', lease.id,
                    lease.owner_id)
        return None
