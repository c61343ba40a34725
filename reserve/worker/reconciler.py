"""The reconciler: the database is the truth, messages are hints.

Run periodically by the worker, it drives on every booking whose next
step is overdue, whatever message was lost on the way:

* PENDING_CREATE for too long: the creation is cast again (the manager
  answers with the same lease if it made one);
* a booking whose end was moved while its lease still ends at the old
  time (a lost update_lease): the update is cast again;
* a cancelled booking whose lease still exists: its deletion is cast
  again;
* the host claims of a booking that is over and never got a lease are
  released;
* COMPLETE bookings are purged [worker]purge_after_days after their end.
"""
import datetime

from oslo_config import cfg
from oslo_log import log as logging

from reserve.capacity import store as capacity_store
from reserve.common import states
from reserve.common import timeutils
from reserve.db import bookings as bookings_db
from reserve.db import leases as leases_db

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


class Reconciler:
    def __init__(self, worker_api):
        self.worker_api = worker_api

    def run(self, context):
        now = timeutils.utcnow()
        counts = {
            'recast': self._recast_pending(context, now),
            'updates': self._recast_updates(context, now),
            'orphans': self._delete_orphan_leases(context),
            'released': capacity_store.claims_release_stale(context),
            'purged': self._purge(context, now),
        }
        if any(counts.values()):
            LOG.info('Reconciler: %s', counts)
        return counts

    def _recast_pending(self, context, now):
        cutoff = now - datetime.timedelta(
            seconds=CONF.worker.pending_create_timeout)
        stale = bookings_db.booking_list_stale(
            context, states.Booking.PENDING_CREATE, cutoff)
        for booking in stale:
            LOG.warning('Booking %s still PENDING_CREATE since %s: casting '
                        'its creation again', booking.id, booking.updated_at)
            # Touch it so that it is not recast on every run.
            bookings_db.booking_update(context, booking.id, {},
                                       expected_status=booking.status)
            self.worker_api.create_lease(context, booking.id)
        return len(stale)

    def _recast_updates(self, context, now):
        cutoff = now - datetime.timedelta(
            seconds=CONF.worker.pending_create_timeout)
        stale = bookings_db.booking_list_end_not_on_lease(context, cutoff)
        for booking in stale:
            LOG.warning('Booking %s ends at %s but its lease %s does not: '
                        'casting the update again', booking.id,
                        booking.end_date, booking.lease_id)
            bookings_db.booking_update(context, booking.id, {},
                                       expected_status=booking.status)
            self.worker_api.update_lease(context, booking.id)
        return len(stale)

    def _delete_orphan_leases(self, context):
        # A lease younger than this may belong to a create in flight.
        orphans = leases_db.lease_list_orphans(
            context, created_before=timeutils.utcnow() - datetime.timedelta(
                seconds=CONF.worker.pending_create_timeout))
        for lease in orphans:
            LOG.warning('Lease %s outlives its booking: deleting it',
                        lease.id)
            self.worker_api.delete_lease(context, None, lease_id=lease.id)
        return len(orphans)

    def _purge(self, context, now):
        cutoff = now - datetime.timedelta(days=CONF.worker.purge_after_days)
        return bookings_db.booking_purge(context, cutoff)
