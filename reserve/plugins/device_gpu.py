"""device:gpu — GPU devices of a libvirt host reserved for projects.

The devices are held by the booking desk
(reserve.booking.device_admission) before the lease is asked for: its
reserve adopts that hold. At start they are handed to the reservation's
domains as PCI hostdevs or mediated devices, at the end taken back (see
reserve.devices.runs). The lease reservation's id is the device
reservation's (/v1/device-reservations/<id>).
"""
from reserve.capacity import store as capacity_store
from reserve.common import exception
from reserve.db import device_reservations as device_reservations_db
from reserve.devices import holds
from reserve.devices import repair
from reserve.devices import runs
from reserve.devices import states
from reserve.plugins import base


class DeviceGpuPlugin(base.ResourcePlugin):
    resource_type = states.RESOURCE_TYPE

    def reserve(self, context, lease_values, values):
        request = values.get('device_reservation') or {}
        found = request.get('id') and device_reservations_db \
            .device_reservation_find(context, request['id'],
                                     collections=('devices',))
        if not found:
            raise exception.Invalid(
                reason='a device:gpu reservation is made through '
                       '/v1/device-reservations')
        return runs.adopt(context, found)

    def build(self, context, lease, reservation):
        """Nothing to prepare: the devices are handed over at start."""

    def on_start(self, context, lease, reservation):
        runs.start(context, reservation.id)

    def sync(self, context, lease, reservation):
        """Devices taken from their domains by hand are given back."""
        return repair.reattach(context, reservation.id)

    def on_end(self, context, lease, reservation):
        runs.end(context, reservation.id)

    def check_new_window(self, context, lease, reservation, start, end):
        found = device_reservations_db.device_reservation_get(
            context, reservation.id)
        holds.check_window(context, found, start, end)
        # Called in the transaction that moves the lease: the device
        # reservation's own window (what its holds use) moves with it,
        # while it is live (a compare-and-swap: a cancel that got there
        # first wins, and the whole move is refused).
        if not device_reservations_db.device_reservation_update(
                context, reservation.id,
                {'start': start, 'end': end},
                expected_status=states.DeviceReservation.LIVE):
            raise exception.InvalidState(
                what='Device reservation %s' % reservation.id,
                status=states.in_words(
                    device_reservations_db.device_reservation_get(
                        context, reservation.id).status),
                reason='it was cancelled or ended; its end cannot move')
        capacity_store.allocations_set_end(
            context, end, lease_reservation_id=reservation.id)
