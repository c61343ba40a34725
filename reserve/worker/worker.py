"""The worker's RPC endpoint: turns bookings and device reservations
(which the booking desk admitted) into leases.

Every method is idempotent and safe to run again: the reconciler casts
them again whenever a booking's next step is overdue.
"""
from oslo_log import log as logging
import oslo_messaging as messaging

from reserve.common import exception
from reserve.common import lease_request
from reserve.common import states
from reserve.db import bookings as bookings_db
from reserve.db import device_reservations as device_reservations_db
from reserve.db import flavors as flavors_db
from reserve.db import leases as leases_db
from reserve.devices import holds as device_holds
from reserve.devices import runs as device_runs
from reserve.devices import states as device_states
from reserve.manager import rpcapi as manager_rpcapi

LOG = logging.getLogger(__name__)


class BookingWorker:
    target = messaging.Target(version='1.2')

    def __init__(self, manager_api=None, standby_pass=None):
        self._manager_api = manager_api
        # reserve.worker.standby_loop.StandbyLoop, woken by
        # promote_standby (none: the next interval's pass does it).
        self._standby_pass = standby_pass

    @property
    def manager_api(self):
        if self._manager_api is None:
            self._manager_api = manager_rpcapi.ManagerAPI()
        return self._manager_api

    def create_lease(self, context, booking_id):
        try:
            booking = bookings_db.booking_get(context, booking_id)
        except exception.BookingNotFound:
            return
        if booking.status != states.Booking.PENDING_CREATE:
            return  # done already, or cancelled
        # The booking names a catalogue flavor; the lease, a nova one.
        flavor = flavors_db.flavor_get(context, booking.flavor_id)
        # The hosts were chosen at admission: the lease adopts the
        # booking's allocations, sized from the catalogue's record.
        request = lease_request.LeaseRequest.for_owner(
            states.Owner.BOOKING, booking.id, booking.project_id,
            booking.user_id, booking.start, booking.end,
            [{'resource_type': states.FLAVOR_INSTANCE,
              'nova_flavor_id': flavor.nova_flavor_id,
              'nova_flavor': flavor.nova_flavor,
              'booking_id': booking.id,
              'instance_count': booking.instance_count}])
        try:
            lease = self.manager_api.create_lease(context, request)
        except messaging.MessagingTimeout:
            # Left PENDING_CREATE: the reconciler casts it again, and the
            # manager answers with the same lease if it made one.
            LOG.warning('Manager did not answer for booking %s; will retry',
                        booking_id)
            return
        except exception.ReserveException as exc:
            # The manager wrote the booking ERROR (its status is the
            # manager's: reserve/manager/booking_status.py).
            LOG.info('Booking %s failed: %s', booking_id, exc.message)
            return
        # The manager made it ALLOCATED with its lease, unless it was
        # cancelled while we were at it: the lease must not outlive it.
        if bookings_db.booking_get(context, booking_id).closed_as:
            LOG.info('Booking %s was cancelled meanwhile; deleting lease '
                     '%s', booking_id, lease['id'])
            self.manager_api.delete_lease(context, lease['id'])
            return
        LOG.info('Booking %s allocated as lease %s', booking_id,
                 lease['id'])

    def update_lease(self, context, booking_id):
        try:
            booking = bookings_db.booking_get(context, booking_id)
        except exception.BookingNotFound:
            return
        if not booking.lease_id or booking.status not in (
                states.Booking.ALLOCATED, states.Booking.ACTIVE):
            return  # create_lease will use the new end
        try:
            self.manager_api.update_lease(
                context, booking.lease_id,
                {'end': booking.end})
        except exception.ReserveException as exc:
            # Keep the booking truthful: it ends when its lease ends.
            LOG.warning('Booking %s: end not moved: %s', booking_id,
                        exc.message)
            try:
                lease = leases_db.lease_get(context, booking.lease_id)
            except exception.LeaseNotFound:
                return  # cancelled and torn down meanwhile
            bookings_db.booking_update(context, booking_id,
                                       {'end': lease.end,
                                        'status_reason': 'end not moved: %s' %
                                        exc.user_message})

    def delete_lease(self, context, booking_id, lease_id=None):
        if lease_id is None:
            try:
                lease_id = bookings_db.booking_get(context,
                                                   booking_id).lease_id
            except exception.BookingNotFound:
                return
        if lease_id:
            self.manager_api.delete_lease(context, lease_id)

    def promote_standby(self, context, booking_id):
        """Capacity was freed (by ``booking_id``): the standby list's
        pass runs now rather than at its next interval."""
        LOG.debug('Reservation %s freed capacity: standby pass now',
                  booking_id)
        if self._standby_pass is not None:
            self._standby_pass.wake()

    def share_lease(self, context, booking_id):
        """The lease's objects follow the booking's shares at once (the
        manager syncs a started lease; one yet to start shares at its
        start). Lost, the repair task applies them within its
        interval."""
        try:
            booking = bookings_db.booking_get(context, booking_id)
        except exception.BookingNotFound:
            return
        if booking.lease_id:
            self.manager_api.sync_lease(context, booking.lease_id)

    # device reservations ----------------------------------------------

    def create_device_lease(self, context, device_reservation_id):
        """Have the manager make the lease of a held device reservation
        (owned by it: the manager answers with the same lease if it made
        one); the device:gpu plugin adopts the hold."""
        found = device_reservations_db.device_reservation_row(
            context, device_reservation_id)
        if (found is None or found.released_at is not None or
                found.status not in device_states.DeviceReservation.LIVE):
            return  # cancelled, or over
        if device_reservations_db.device_reservation_lease_state(
                context, device_reservation_id):
            return
        request = device_runs.lease_request(
            found.id, found.project_id, found.user_id, found.start,
            found.end)
        try:
            lease = self.manager_api.create_lease(context, request)
        except messaging.MessagingTimeout:
            LOG.warning('Manager did not answer for device reservation %s; '
                        'will retry', device_reservation_id)
            return
        except exception.ReserveException as exc:
            # The manager cancelled it and released its hold
            # (reserve/manager/owners.py).
            LOG.info('Device reservation %s got no lease: %s',
                     device_reservation_id, exc.message)
            return
        current = device_reservations_db.device_reservation_row(
            context, device_reservation_id)
        if (current is None or
                current.status == device_states.DeviceReservation.CANCELLED):
            # Cancelled while we were at it: the lease must not outlive it.
            self.manager_api.delete_lease(context, lease['id'])
            return
        LOG.info('Device reservation %s has lease %s', device_reservation_id,
                 lease['id'])

    def delete_device_lease(self, context, device_reservation_id):
        """A cancelled device reservation: its lease is deleted (its end
        runs now and detaches); without one, its hold is released."""
        found = device_reservations_db.device_reservation_row(
            context, device_reservation_id)
        if (found is None or
                found.status != device_states.DeviceReservation.CANCELLED):
            return
        lease = device_reservations_db.device_reservation_lease_state(
            context, device_reservation_id)
        if lease is None:
            device_holds.release(context, device_reservation_id)
        elif lease.status != states.Lease.TERMINATED:
            self.manager_api.delete_lease(context, lease.id)
