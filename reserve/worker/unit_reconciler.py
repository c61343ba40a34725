"""The reconciler of GPU-unit reservations, run by the worker beside
the bookings' (reconciler.py): the database is the truth, messages are
hints. On every reservation the booking desk claimed:

* live with no lease for [worker]pending_create_timeout (a lost
  create_unit_lease): the creation is cast again (the manager answers
  with the same lease if it made one);
* cancelled while its lease still runs, or is DELETING with its end
  still ahead, or with no lease and its claim not released (a lost
  delete_unit_lease): the deletion is cast again.

What a lost lease left attached on a host is the manager's
(reserve.devices.lifecycle.settle): only it talks to libvirt.
"""
import datetime

from oslo_config import cfg
from oslo_log import log as logging

from reserve.common import states
from reserve.common import timeutils
from reserve.db import unit_reservations as unit_reservations_db
from reserve.devices import states as device_states

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

Status = device_states.UnitReservation


def _end_ahead(lease, now):
    """Whether a lease's end_lease is still to come after ``now`` (a
    deletion that did not make it due)."""
    return any(e.event_type == states.Event.END and
               e.status == states.Event.UNDONE and e.time > now
               for e in lease.events)


class UnitReconciler:
    def __init__(self, worker_api):
        self.worker_api = worker_api

    def run(self, context):
        now = timeutils.utcnow()
        counts = {
            'unit_leases': self._recast_leases(context, now),
            'unit_cancels': self._recast_cancels(context, now),
        }
        if any(counts.values()):
            LOG.info('Unit reconciler: %s', counts)
        return counts

    def _overdue(self, context, now, statuses):
        """(reservation, its lease or None) of the unreleased ones of
        ``statuses`` untouched for [worker]pending_create_timeout."""
        cutoff = now - datetime.timedelta(
            seconds=CONF.worker.pending_create_timeout)
        found = [r for r in unit_reservations_db.unit_reservations_unreleased(
            context, statuses) if r.updated_at < cutoff]
        if not found:
            return []
        return [(r, unit_reservations_db.unit_reservation_lease(context, r.id))
                for r in found]

    def _recast_leases(self, context, now):
        stale = [r for r, lease in self._overdue(
            context, now, (Status.PENDING, Status.NEEDS_REVIEW))
            if lease is None]
        for reservation in stale:
            LOG.warning('Device reservation %s still has no lease since '
                        '%s: casting its creation again', reservation.id,
                        reservation.updated_at)
            # Touch it so that it is not recast on every run.
            unit_reservations_db.unit_reservation_update(
                context, reservation.id, {})
            self.worker_api.create_unit_lease(context, reservation.id)
        return len(stale)

    def _recast_cancels(self, context, now):
        stale = [r for r, lease in self._overdue(
            context, now, (Status.CANCELLED,))
            if lease is None or lease.status not in (
                states.Lease.DELETING, states.Lease.TERMINATED)
            or (lease.status == states.Lease.DELETING and
                _end_ahead(lease, now))]
        for reservation in stale:
            LOG.warning('Device reservation %s is cancelled but not '
                        'released: casting its deletion again',
                        reservation.id)
            unit_reservations_db.unit_reservation_update(
                context, reservation.id, {})
            self.worker_api.delete_unit_lease(context, reservation.id)
        return len(stale)
