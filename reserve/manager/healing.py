"""What a failed host does to the reservations it holds, and what its
return undoes; reserve.manager.health decides when.

A host fails in one capacity transaction: it gets its failure (from then
on it offers nothing new) and each of its allocations from now on moves,
as many of its instances as the other hosts have room for over what is
left of its window (booking.drain.move_off, the capacity model's
placement). What cannot move stays where it is: nothing is cancelled,
and what stays is what its lease lacks. In the same transaction each
lease it held is counted: its delivery counts the host replaced and what
is missing, and ``degraded`` says whether something is, so that nobody
reads a host failed (or back) with its leases counted the old way. After
the commit a running lease that moved gets its new hosts (sync_lease)
and the users are told: ``reserve.reservation.healed`` when something
moved, ``.degraded`` when something is missing.

A host that comes back has its failure cleared (reservable again if the
operator left it so) and each lease still on it counted again in the
same transaction; whole, its flag clears and its users get
``reserve.reservation.restored``.

The GPU devices of a libvirt host are that host's: they never move, so
its device reservations are only flagged.
"""
import collections

from oslo_log import log as logging

from reserve.booking import admission
from reserve.booking import drain
from reserve.capacity import model
from reserve.capacity import store
from reserve.common import exception
from reserve.common import states
from reserve.common import timeutils
from reserve.db import bookings as bookings_db
from reserve.db import deliveries as deliveries_db
from reserve.db import hosts as hosts_db
from reserve.db import leases as leases_db
from reserve.notification import sync

LOG = logging.getLogger(__name__)

# Whose an allocation is: its booking (None for a lease of its own, a
# device reservation's) and its lease reservation (None before a lease
# adopted it).
Owner = collections.namedtuple('Owner', 'booking_id lease_reservation_id')


def _held_from_now(context, host, now):
    return [a for a in store.allocations_on_host(
        context, host.id, now, drain.FOREVER, model.guard()) if a.end > now]


def _owners(allocations):
    return sorted({Owner(a.booking_id, a.lease_reservation_id)
                   for a in allocations}, key=str)


def fail(context, host, failure, sync_lease):
    """Mark ``host`` failed (``failure``: what failed, in a sentence) and
    move what it holds where there is room; ``sync_lease(context,
    lease_id)`` gives a running lease its new hosts."""
    now = timeutils.utcnow()
    moves = collections.defaultdict(list)
    with admission.capacity_transaction(context):
        if hosts_db.host_get(context, host.id).failure:
            return  # another manager failed it first
        hosts_db.host_update(context, host.id,
                             {'failure': failure, 'failed_at': now})
        allocations = _held_from_now(context, host, now)
        owners = _owners(allocations)
        if host.kind == 'nova':
            state = store.lock(context)  # read again: the host changed
            for allocation in allocations:
                owner = Owner(allocation.booking_id,
                              allocation.lease_reservation_id)
                moved = drain.move_off(context, state, host, allocation,
                                       whole=False)
                if moved is not None:
                    moves[owner].append(moved)
        counted = _count(context, owners, moves)
    LOG.warning('Host %s failed: %s; %d reservation(s) held it, %d moved '
                'at least in part', host.name, failure, len(owners),
                len(moves))
    details = {'host': host.name, 'reason': failure}
    for found in counted:
        _quietly(_settle_failure, context, found, moves.get(found.owner, ()),
                 details, sync_lease)


def recover(context, host, sync_lease):
    """``host`` passes its check again: its failure clears and the
    leases still on it are counted again."""
    now = timeutils.utcnow()
    with admission.capacity_transaction(context):
        if not hosts_db.host_get(context, host.id).failure:
            return  # another manager saw it back first
        hosts_db.host_update(context, host.id,
                             {'failure': None, 'failed_at': None})
        owners = _owners(_held_from_now(context, host, now))
        counted = _count(context, owners, {})
    LOG.info('Host %s is back (it had failed at %s: %s); %d reservation(s)'
             ' on it counted again', host.name,
             timeutils.isoformat(host.failed_at), host.failure, len(owners))
    for found in counted:
        _quietly(_settle_return, context, found, host, sync_lease)


def _quietly(func, context, found, *args):
    # One owner that cannot be settled must not stop the others.
    try:
        func(context, found, *args)
    except Exception as exc:
        LOG.warning('Reservation %s not settled after a host change: %s: '
                    '%s', found.owner.booking_id or
                    found.owner.lease_reservation_id, type(exc).__name__, exc)


def _found(context, owner):
    """(booking or None, lease or None) of an owner."""
    booking = None
    if owner.booking_id:
        try:
            booking = bookings_db.booking_get(context, owner.booking_id)
        except exception.BookingNotFound:
            pass
    lease_id = (booking.lease_id if booking is not None else
                owner.lease_reservation_id and
                leases_db.lease_id_of(context, owner.lease_reservation_id))
    lease = None
    if lease_id:
        try:
            lease = leases_db.lease_get(context, lease_id)
        except exception.LeaseNotFound:
            pass
    return booking, lease


def missing_now(context, booking=None, lease=None):
    """How many instances (devices) of a lease, or of a booking without
    one, are held on failed hosts from now on."""
    now = timeutils.utcnow()
    if lease is not None:
        held = hosts_db.held_on_failed_hosts(
            context, now,
            lease_reservation_ids=[r.id for r in lease.reservations])
    else:
        held = hosts_db.held_on_failed_hosts(context, now,
                                             booking_id=booking.id)
    return sum(a.amount for a in held)


# An owner of allocations on a host that changed, as counted in the
# change's transaction: its booking and lease (either may be None) and
# how many instances (devices) it lacks from then on.
Counted = collections.namedtuple('Counted', 'owner booking lease missing')


def _count(context, owners, moves):
    """Within the host change's transaction: each owner's lease gets its
    hosts replaced (``moves``), what it lacks and its degraded flag. Not
    quiet, unlike the delivery writers after a commit: a count that
    cannot be written rolls the host change back, and the next health
    check makes it again."""
    now = timeutils.utcnow()
    counted = []
    for owner in owners:
        booking, lease = _found(context, owner)
        if booking is None and lease is None:
            continue
        missing = missing_now(context, booking, lease)
        if lease is not None:
            if moves.get(owner):
                deliveries_db.delivery_add(context, lease.owner_type,
                                           lease.owner_id, 0, 1)
            deliveries_db.delivery_missing(context, lease.owner_type,
                                           lease.owner_id, missing, now)
            leases_db.lease_update(context, lease.id,
                                   {'degraded': bool(missing)})
        counted.append(Counted(owner, booking, lease, missing))
    return counted


def _sync(context, lease, sync_lease):
    if lease.status != states.Lease.ACTIVE:
        return  # one yet to start starts on its allocations
    try:
        sync_lease(context, lease.id)
    except exception.CloudError as exc:
        # The periodic lease repair tries again.
        LOG.warning('Lease %s not synced with its new hosts yet: %s',
                    lease.id, exc)


def _settle_failure(context, found, moves, details, sync_lease):
    booking, lease, missing = found.booking, found.lease, found.missing
    if moves:
        if lease is not None:
            _sync(context, lease, sync_lease)
        _tell(context, 'healed', booking, lease, dict(
            details, moved=sum(m.instances for m in moves),
            to_hosts=sorted({h for m in moves for h in m.to_hosts}),
            missing=missing))
    if missing:
        _tell(context, 'degraded', booking, lease,
              dict(details, missing=missing))


def _settle_return(context, found, host, sync_lease):
    if found.lease is not None:
        _sync(context, found.lease, sync_lease)
    if not found.missing:
        _tell(context, 'restored', found.booking, found.lease,
              {'host': host.name, 'missing': 0})


def _tell(context, event, booking, lease, details):
    if booking is not None:
        if booking.status in states.Booking.LIVE:
            sync.emit(context, event, booking, **details)
    elif lease.owner_id and lease.status not in (
            states.Lease.TERMINATED, states.Lease.DELETING):
        sync.emit_for_owner(context, event, lease, **details)
