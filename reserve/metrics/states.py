"""Bookings, device reservations and GPU devices by state, with the
values the API shows (GET /v1/reservations, /v1/device-reservations,
/v1/devices as an administrator sees them at the latest microversion).
Every state has a sample, 0 when nothing is in it, so that a series
never vanishes when its last member leaves."""
import collections

from prometheus_client import core

from reserve.common import states as common_states
from reserve.db import devices as devices_db
from reserve.db import metrics as metrics_db
from reserve.db import models
from reserve.db import spot_devices as spot_devices_db
from reserve.devices import holds
from reserve.devices import states


def bookings(context):
    found = metrics_db.status_counts(context, models.Booking,
                                     common_states.Booking.CLOSABLE)
    family = core.GaugeMetricFamily(
        'reserve_bookings', 'Bookings (/v1/reservations) by status.',
        labels=['status'])
    for status in common_states.Booking.ALL:
        family.add_metric([status], found.get(status, 0))
    return family


def device_reservations(context):
    found = metrics_db.status_counts(
        context, models.DeviceReservation, states.DeviceReservation.LIVE)
    family = core.GaugeMetricFamily(
        'reserve_device_reservations',
        'Device reservations (/v1/device-reservations) by status.',
        labels=['status'])
    for status in states.DeviceReservation.ALL:
        family.add_metric([states.in_words(status)], found.get(status, 0))
    return family


def device_states(context):
    """{(host name, state): devices}: each device (a physical function
    or a virtual one) in the state /v1/devices shows it in: lent on the
    spot market (in-use while a spot domain holds it), else missing,
    reserved (held now, or sharing hardware with a held device), in-use
    outside reserve, or available."""
    holders = holds.held_now(context)
    devices = devices_db.device_list(context)
    market = spot_devices_db.on_market(
        context, states.DeviceReservation.ACTIVE, states.Attachment.DETACHED)
    by_address = {(d.host_id, d.pci_address): d for d in devices}
    counts = collections.Counter()
    for device in devices:
        if device.id in market:
            state = (states.DeviceShown.IN_USE if market[device.id]
                     else states.DeviceShown.SPOT)
        else:
            state = holds.device_state(device, holders, by_address)
        counts[(device.host.name, state)] += 1
    return counts


def devices(context):
    counts = device_states(context)
    family = core.GaugeMetricFamily(
        'reserve_gpu_devices',
        'GPU devices of the libvirt hosts (/v1/devices, virtual functions '
        'included), by host and state.', labels=['host', 'state'])
    for host in sorted({host for host, _ in counts}):
        for state in states.DeviceShown.ALL:
            family.add_metric([host, states.in_words(state)],
                              counts.get((host, state), 0))
    return family
