"""The reconciler: the database is the truth, messages are hints.

Run periodically by the worker, it walks the owners of leases of both
kinds (states.Owner: bookings and device reservations, joined to their
leases by the owner key) and drives on every one whose next step is
overdue, whatever message was lost on the way. For each kind (_KINDS):

* live, with no lease, untouched for [worker]pending_create_timeout (a
  lost creation cast, or a manager that did not answer): its creation
  is cast again (the manager answers with the same lease if it made
  one). A device reservation made more than [devices]lease_lead_seconds
  ahead of its start gets its lease here, once the start comes within
  that lead (reserve.devices.runs.lease_due), and is waited for from
  then on;
* cancelled (or over) while its lease still runs, or is DELETING with
  its end still ahead (a lost deletion cast, or a manager that died
  between the two), or, for a device reservation, with no lease and its
  hold not released: its deletion is cast again. For bookings this is
  also where a lease with no owner at all goes.

Each one recast is touched, so that the next run leaves it to the cast
just sent. Then, for bookings only:

* a booking whose end was moved while its lease still ends at the old
  time (a lost update_lease): the update is cast again;
* the allocations of a booking that is over and never got a lease are
  released;
* COMPLETE bookings are purged [worker]purge_after_days after their end.

A booking never falls behind its lease (the manager moves both in one
transaction: reserve/manager/owners.py), and what a lost lease left
attached on a host is the manager's (reserve.devices.lifecycle.settle):
only it talks to libvirt.
"""
import collections
import datetime

from oslo_config import cfg
from oslo_log import log as logging

from reserve.capacity import store as capacity_store
from reserve.common import states
from reserve.common import timeutils
from reserve.db import bookings as bookings_db
from reserve.db import device_reservations as device_reservations_db
from reserve.db import leases as leases_db
from reserve.devices import runs as device_runs
from reserve.devices import states as device_states

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

DeviceStatus = device_states.DeviceReservation


def _end_ahead(lease, now):
    """Whether a lease's end_lease is still to come after ``now`` (a
    deletion that did not make it due)."""
    return any(e.event_type == states.Event.END and
               e.status == states.Event.UNDONE and e.time > now
               for e in lease.events)


# Bookings -----------------------------------------------------------------

def _bookings_awaiting_lease(context, cutoff, now):
    return bookings_db.booking_list_stale(
        context, states.Booking.PENDING_CREATE, cutoff)


def _bookings_not_torn_down(context, cutoff, now):
    # Leases, by the owner key: of a booking gone or over, or of none.
    return leases_db.lease_list_orphans(context, created_before=cutoff)


def _touch_booking(context, booking):
    bookings_db.booking_update(context, booking.id, {},
                               expected_status=booking.status)


# Device reservations --------------------------------------------------------

def _with_leases(context, reservations):
    """(reservation, its lease or None) of each."""
    return [(r, device_reservations_db.device_reservation_lease(context, r.id))
            for r in reservations]


def _lease_falls_due(reservation, now):
    """Whether a reservation held far ahead gets its lease now: due, and
    not asked for since (its creation was never cast)."""
    due_at = device_runs.lease_due_at(reservation.start)
    return reservation.updated_at < due_at <= now


def _device_reservations_awaiting_lease(context, cutoff, now):
    # Only those whose start is within the lead: the others are not due.
    due = device_reservations_db.device_reservations_unreleased(
        context, (DeviceStatus.PENDING, DeviceStatus.NEEDS_REVIEW),
        starting_before=device_runs.latest_due_start(now))
    asked = [r for r in due
             if r.updated_at < cutoff or _lease_falls_due(r, now)]
    return [r for r, lease in _with_leases(context, asked) if lease is None]


def _device_reservations_not_torn_down(context, cutoff, now):
    cancelled = [
        r for r in device_reservations_db.device_reservations_unreleased(
            context, (DeviceStatus.CANCELLED,)) if r.updated_at < cutoff]
    return [r for r, lease in _with_leases(context, cancelled)
            if lease is None or lease.status not in (
                states.Lease.DELETING, states.Lease.TERMINATED)
            or (lease.status == states.Lease.DELETING and
                _end_ahead(lease, now))]


def _touch_device_reservation(context, reservation):
    device_reservations_db.device_reservation_update(context, reservation.id,
                                                     {})


def _delete_device_lease(worker_api, context, reservation):
    _touch_device_reservation(context, reservation)
    worker_api.delete_device_lease(context, reservation.id)


# What the walk needs of each kind of owner: how to find the overdue
# (``awaiting``: owners live with no lease, ``falls_due`` telling those
# that are asked for the first time; ``not_torn_down``: what is
# over while its lease or hold is not let go, ``torn_what`` saying
# what it is), how to touch an owner, the worker's casts (a deletion
# touches what it recasts), and the names of the counts run() returns.
Kind = collections.namedtuple('Kind', [
    'what', 'awaiting', 'falls_due', 'awaiting_count', 'create', 'touch',
    'torn_what', 'not_torn_down', 'not_torn_down_count', 'delete'])

_KINDS = (
    Kind('Booking',
         _bookings_awaiting_lease, lambda booking, now: False, 'recast',
         lambda api, context, booking: api.create_lease(context, booking.id),
         _touch_booking,
         'Lease', _bookings_not_torn_down, 'orphans',
         lambda api, context, lease: api.delete_lease(context, None,
                                                      lease_id=lease.id)),
    Kind('Device reservation',
         _device_reservations_awaiting_lease, _lease_falls_due,
         'device_leases',
         lambda api, context, rsv: api.create_device_lease(context, rsv.id),
         _touch_device_reservation,
         'Device reservation', _device_reservations_not_torn_down,
         'device_cancels',
         _delete_device_lease),
)


class Reconciler:
    def __init__(self, worker_api):
        self.worker_api = worker_api

    def run(self, context):
        now = timeutils.utcnow()
        cutoff = now - datetime.timedelta(
            seconds=CONF.worker.pending_create_timeout)
        counts = {}
        for kind in _KINDS:
            counts[kind.awaiting_count] = self._recast_creations(
                context, kind, kind.awaiting(context, cutoff, now), now)
            counts[kind.not_torn_down_count] = self._recast_deletions(
                context, kind, kind.not_torn_down(context, cutoff, now))
        counts.update({
            'updates': self._recast_updates(context, cutoff),
            'released': capacity_store.allocations_release_stale(context),
            'purged': self._purge(context, now),
        })
        if any(counts.values()):
            LOG.info('Reconciler: %s', counts)
        return counts

    def _recast_creations(self, context, kind, owners, now):
        for owner in owners:
            if kind.falls_due(owner, now):
                LOG.info('%s %s starts at %s: casting the creation of its '
                         'lease', kind.what, owner.id, owner.start)
            else:
                LOG.warning('%s %s still has no lease since %s: casting '
                            'its creation again', kind.what, owner.id,
                            owner.updated_at)
            # Touched so that it is not recast on every run.
            kind.touch(context, owner)
            kind.create(self.worker_api, context, owner)
        return len(owners)

    def _recast_deletions(self, context, kind, found):
        for item in found:
            LOG.warning('%s %s: its owner is over (or gone) but it is not '
                        'let go of: casting its deletion again',
                        kind.torn_what, item.id)
            kind.delete(self.worker_api, context, item)
        return len(found)

    def _recast_updates(self, context, cutoff):
        stale = bookings_db.booking_list_end_not_on_lease(context, cutoff)
        for booking in stale:
            LOG.warning('Booking %s ends at %s but its lease %s does not: '
                        'casting the update again', booking.id,
                        booking.end, booking.lease_id)
            _touch_booking(context, booking)
            self.worker_api.update_lease(context, booking.id)
        return len(stale)

    def _purge(self, context, now):
        cutoff = now - datetime.timedelta(days=CONF.worker.purge_after_days)
        return bookings_db.booking_purge(context, cutoff)
