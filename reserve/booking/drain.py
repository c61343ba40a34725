"""Taking a host out of service: host maintenance windows and draining.

A host maintenance window takes the whole host from its start to its end
(and the hand-over guard after it); setting a host non-reservable takes
it from now on. The reservations holding the host then are named in a
409, by the ids their users hold, unless the operator forces it. Forced,
each is moved to other hosts that have room for its whole window (what
is left of it, if it has started), in the same transaction and by the
same capacity model as admission; only where no host has room is it
cancelled (ERROR, with the reason), and its user is told by mail.

The cloud follows after the commit: a moved reservation that is already
running gets its new hosts from the manager at once (sync_lease); one
yet to start simply starts on them; a cancelled one's lease is torn
down.
"""
import collections
import datetime

from oslo_log import log as logging

from reserve.booking import admission
from reserve.booking import cancel
from reserve.capacity import maths
from reserve.capacity import model
from reserve.capacity import store
from reserve.common import exception
from reserve.common import timeutils
from reserve.db import bookings as bookings_db
from reserve.db import flavors as flavors_db
from reserve.db import hosts as hosts_db
from reserve.db import leases as leases_db
from reserve.notification import sync

LOG = logging.getLogger(__name__)

# Allocations named in a 409; the count says how many more.
LISTED = 20
FOREVER = datetime.datetime(9999, 1, 1)

# moved: [Moved]; cancelled: [bookings], as they were once cancelled.
Outcome = collections.namedtuple('Outcome', 'moved cancelled')
# What moved, read inside the transaction: reservation_id is the id its
# user holds (the booking's), lease_id its lease if it has one.
Moved = collections.namedtuple('Moved',
                               'reservation_id instances to_hosts lease_id')


def _holder(context, allocation):
    """The booking behind an allocation, or None (a lease of its own)."""
    if allocation.booking_id:
        return bookings_db.booking_get(context, allocation.booking_id)
    lease_id = leases_db.lease_id_of(context, allocation.lease_reservation_id)
    found = bookings_db.booking_list_by_lease(context, lease_id) if lease_id \
        else []
    return found[0] if found else None


def _describe(context, allocations):
    shown = []
    for allocation in allocations[:LISTED]:
        booking = _holder(context, allocation)
        shown.append('%s (project %s, %s to %s, %d instance(s) here)' % (
            booking.id if booking else allocation.lease_reservation_id,
            booking.project_id if booking else '?',
            timeutils.isoformat(allocation.start),
            timeutils.isoformat(allocation.end), allocation.amount))
    if len(allocations) > LISTED:
        shown.append('and %d more' % (len(allocations) - LISTED))
    return ', '.join(shown)


def _host_filter(context, booking):
    if booking is None:
        return None
    flavor = flavors_db.flavor_get(context, booking.flavor_id)
    return model.host_filter_of(flavor.nova_flavor or {})


def move_off(context, state, host, allocation, whole=True):
    """Move ``allocation``'s instances off ``host`` to the hosts that have
    room for what is left of its window, in the caller's capacity
    transaction (``state``: read under its lock after the host changed):
    all of them or none (``whole``), or as many as fit. Returns the
    Moved, or None when nothing moved."""
    booking = _holder(context, allocation)
    start = max(allocation.start, timeutils.utcnow())
    guard = model.guard()
    board = model.Board(context, state, start, allocation.end + guard,
                        guard, exclude_allocation=allocation.id)
    need = {'vcpus': allocation.vcpus, 'memory_mb': allocation.memory_mb,
            'disk_gb': allocation.disk_gb, 'gpus': allocation.gpus or {}}
    fits = board.offer(need, _host_filter(context, booking)).fits
    fits.pop(host.id, None)
    amount = allocation.amount if whole else maths.most_placed(
        fits, allocation.amount)
    placed = maths.place(fits, amount) if amount else None
    if placed is None:
        return None
    lease_reservation_id = allocation.lease_reservation_id
    lease_id = (booking.lease_id if booking else
                leases_db.lease_id_of(context, lease_reservation_id))
    held_by = booking.id if booking else lease_reservation_id
    store.allocation_move(context, allocation, placed)
    LOG.info('Moved %d instance(s) of reservation %s from host %s to %s',
             amount, held_by, host.name, placed)
    return Moved(held_by, amount, sorted(placed), lease_id)


def _evict(context, host, allocations, reason):
    """Move each allocation off ``host`` where the others have room; cancel
    the bookings of the rest. Runs in the caller's capacity transaction,
    after the change that takes the host away."""
    state = store.lock(context)  # read again: the host just changed
    moved, cancelled = [], []
    for allocation in allocations:
        found = move_off(context, state, host, allocation)
        if found is not None:
            moved.append(found)
            continue
        booking = _holder(context, allocation)
        if booking is None:
            LOG.error('Lease reservation %s keeps %d instance(s) on host %s:'
                      ' no other host has room',
                      allocation.lease_reservation_id, allocation.amount,
                      host.name)
            continue
        updated = cancel.evict(context, booking.id, reason)
        if updated is not None:
            cancelled.append(updated)
            LOG.warning('Reservation %s cancelled: %s', booking.id, reason)
    return Outcome(moved, cancelled)


def _refuse_or_log(context, host, allocations, force, what):
    if not allocations:
        return
    if not force:
        raise exception.HostHoldsReservations(
            host=host.name, what=what, count=len(allocations),
            reservations=_describe(context, allocations))
    LOG.warning('%s of host %s forced over %d reservation(s)', what,
                host.name, len(allocations))


def create_window(context, host, start, end, note, force):
    """A maintenance window on ``host``; returns (window, Outcome)."""
    guard = model.guard()
    with admission.capacity_transaction(context):
        allocations = store.allocations_on_host(context, host.id, start,
                                                end, guard)
        _refuse_or_log(context, host, allocations, force, 'Maintenance')
        window_id = hosts_db.host_window_create(context, {
            'host_id': host.id, 'start': start, 'end': end,
            'note': note}).id
        reason = ('cancelled by the operators: host %s is in maintenance '
                  'from %s to %s and no other host had room for this '
                  'reservation' % (host.name, timeutils.isoformat(start),
                                   timeutils.isoformat(end)))
        outcome = _evict(context, host, allocations, reason)
    LOG.info('Host %s in maintenance from %s to %s (%s): %d reservation(s)'
             ' moved, %d cancelled', host.name, start, end, window_id,
             len(outcome.moved), len(outcome.cancelled))
    return hosts_db.host_window_get(context, window_id), outcome


def withdraw(context, host, force):
    """Make ``host`` non-reservable; returns the Outcome."""
    guard = model.guard()
    with admission.capacity_transaction(context):
        allocations = store.allocations_on_host(
            context, host.id, timeutils.utcnow(), FOREVER, guard)
        _refuse_or_log(context, host, allocations, force, 'Withdrawal')
        hosts_db.host_update(context, host.id, {'reservable': False})
        reason = ('cancelled by the operators: host %s was withdrawn from '
                  'reservations and no other host had room for this '
                  'reservation' % host.name)
        outcome = _evict(context, host, allocations, reason)
    LOG.info('Host %s withdrawn from reservations: %d reservation(s) moved,'
             ' %d cancelled', host.name, len(outcome.moved),
             len(outcome.cancelled))
    return outcome


def follow_up(context, outcome, worker_api, manager_api):
    """After the commit: running reservations that moved get their new
    hosts; cancelled ones lose their lease, and their users are told."""
    for lease_id in sorted({m.lease_id for m in outcome.moved
                            if m.lease_id}):
        manager_api.sync_lease(context, lease_id)
    for booking in outcome.cancelled:
        sync.emit(context, 'cancelled', booking)
        if booking.lease_id:
            worker_api.delete_lease(context, booking.id,
                                    lease_id=booking.lease_id)


def outcome_view(outcome):
    return {
        'moved': [{'reservation_id': m.reservation_id,
                   'instances': m.instances, 'to_hosts': m.to_hosts}
                  for m in outcome.moved],
        'cancelled': [b.id for b in outcome.cancelled],
    }
