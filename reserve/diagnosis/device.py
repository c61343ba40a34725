"""The diagnosis of a device reservation (/v1/device-reservations/{id}):
the reservation, its lease and events (reserve.plugins.device_gpu), its
libvirt host and the hostdevs and mdevs of its attachments in the
domains' XML (reserve.devices.attachments)."""
from reserve.common import exception
from reserve.common import timeutils
from reserve.db import device_reservations as device_reservations_db
from reserve.db import hosts as hosts_db
from reserve.devices import hosts
from reserve.devices import states
from reserve.diagnosis import findings
from reserve.diagnosis import lease as lease_layers
from reserve.diagnosis import libvirt_layers
from reserve.diagnosis import owner


def _host(context, host_id):
    try:
        return hosts_db.host_get(context, host_id)
    except exception.HostNotFound:
        return None


def _connect(host):
    """(the host's connection, None) or (None, why it cannot be had)."""
    if host is None or host.kind != states.LIBVIRT:
        return None, 'not a libvirt host'
    try:
        return hosts.connect(host.uri), None
    except exception.ReserveException as exc:
        return None, exc.message
    except Exception as exc:  # noqa: BLE001 - any libvirt failure
        return None, type(exc).__name__


def diagnose(context, reservation_id):
    """The diagnosis of a device reservation (DeviceReservationNotFound)."""
    now = timeutils.utcnow()
    reservation = device_reservations_db.device_reservation_get(
        context, reservation_id)
    lease = device_reservations_db.device_reservation_lease(
        context, reservation.id)
    live = reservation.status in states.DeviceReservation.LIVE
    booking_layer, missing = owner.device_layer(reservation, lease, now)
    layers = [booking_layer,
              lease_layers.lease_layer(lease, now, missing),
              lease_layers.events_layer(lease, now)]
    host = _host(context, reservation.host_id)
    started = live and lease_layers.started(lease)
    if host is not None:
        with hosts.host_lock(host.id):
            conn, error = _connect(host)
            layers.append(libvirt_layers.host_layer(reservation, host, conn,
                                                    error, live))
            layers.append(libvirt_layers.domains_layer(
                reservation, conn, started,
                lease_layers.teardown_pending(lease)))
    else:
        layers.append(libvirt_layers.host_layer(reservation, None, None,
                                                None, live))
        layers.append(libvirt_layers.domains_layer(reservation, None,
                                                   started, False))
    return findings.diagnosis(findings.DEVICE_RESERVATION, reservation.id,
                              layers)
