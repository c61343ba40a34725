"""What the owner of a lease got, as the manager sees it happen: the
writers of its delivery row (reserve.db.deliveries), and the
``reserve.reservation.repaired`` notification of each repair.

Every function takes the lease and never raises: what the row says is a
report, and a report that cannot be written must not stop the work it
reports on (it is logged in one line).
"""
from oslo_log import log as logging

from reserve.common import states
from reserve.common import timeutils
from reserve.db import bookings as bookings_db
from reserve.db import deliveries as deliveries_db
from reserve.manager import notify

LOG = logging.getLogger(__name__)

REPAIRED = 'reserve.reservation.repaired'


def _quietly(what, func, *args):
    try:
        return func(*args)
    except Exception as exc:
        LOG.warning('Delivery record not written (%s): %s: %s', what,
                    type(exc).__name__, exc)
        return None


def _owner(lease):
    return lease.owner_type, lease.owner_id


def opened(context, lease):
    """A new lease: its owner's row, unless it has one."""
    if not lease.owner_id:
        return
    values = {'owner_type': lease.owner_type, 'owner_id': lease.owner_id,
              'project_id': lease.project_id, 'start': lease.start,
              'end': lease.end, 'flavor_id': None,
              'amount': sum(r.amount for r in lease.reservations)}

    def write():
        if lease.owner_type == states.Owner.BOOKING:
            values['flavor_id'] = bookings_db.booking_get(
                context, lease.owner_id).flavor_id
        deliveries_db.delivery_open(context, values)
    _quietly('opened', write)


def usable(context, lease):
    """The lease became ACTIVE now."""
    _quietly('usable', deliveries_db.delivery_usable, context,
             *_owner(lease), timeutils.utcnow())


def moved_end(context, lease, end):
    _quietly('end moved', deliveries_db.delivery_move, context,
             *_owner(lease), end)


def repaired(context, lease, repairs):
    """``repairs``: sentences, one per thing of the lease's cloud objects
    put right. Logged, counted, and told as reserve.reservation.repaired
    (the owner's id as reservation_id)."""
    if not repairs:
        return
    for what in repairs:
        LOG.warning('Lease %s (%s %s) repaired: %s', lease.id,
                    lease.owner_type, lease.owner_id, what)
    _quietly('repairs', deliveries_db.delivery_add, context, *_owner(lease),
             len(repairs))
    payload = {'reservation_id': lease.owner_id,
               'owner_type': lease.owner_type, 'lease_id': lease.id,
               'project_id': lease.project_id, 'repairs': list(repairs)}
    _quietly('notification', notify.send, context, REPAIRED, payload)


def stuck_servers(context, lease, server_ids):
    _quietly('stuck servers', deliveries_db.delivery_stuck_servers, context,
             *_owner(lease), server_ids)
