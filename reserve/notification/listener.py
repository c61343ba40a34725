"""Listens to the manager's lease notifications and syncs bookings."""
from oslo_log import log as logging
import oslo_messaging as messaging

from reserve.common import states
from reserve.notification import sync

LOG = logging.getLogger(__name__)


class LeaseEventsEndpoint:
    filter_rule = messaging.NotificationFilter(
        publisher_id=r'^reserve\.manager', event_type=r'^lease\.')

    def info(self, ctxt, publisher_id, event_type, payload, metadata):
        lease_id = payload.get('lease_id')
        LOG.debug('%s for lease %s from %s', event_type, lease_id,
                  publisher_id)
        if event_type == 'lease.event.start_lease':
            sync.apply_lease_status(ctxt, lease_id, states.Lease.ACTIVE)
        elif event_type == 'lease.event.end_lease':
            sync.apply_lease_status(ctxt, lease_id, states.Lease.TERMINATED)
        elif event_type == 'lease.event.before_end_lease':
            for booking in sync.bookings_of_lease(ctxt, lease_id):
                if booking.status in states.Booking.LIVE:
                    sync.emit(ctxt, 'before_end', booking)
        elif event_type == 'lease.create':
            for booking in sync.bookings_of_lease(ctxt, lease_id):
                sync.emit(ctxt, 'allocated', booking)
        return messaging.NotificationResult.HANDLED
