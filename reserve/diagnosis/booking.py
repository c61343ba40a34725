"""The diagnosis of a booking (/v1/reservations/{id}): the booking, its
lease and events, then the fence its flavor:instance lease reservation
builds (reserve.plugins.flavor_instance): flavor, aggregate, provider
inventories, servers and the reserved hosts' compute services."""
from reserve.common import states
from reserve.common import timeutils
from reserve.db import bookings as bookings_db
from reserve.db import hosts as hosts_db
from reserve.db import leases as leases_db
from reserve.db import sharing as sharing_db
from reserve.diagnosis import compute_hosts
from reserve.diagnosis import fence_objects
from reserve.diagnosis import findings
from reserve.diagnosis import lease as lease_layers
from reserve.diagnosis import owner
from reserve.diagnosis import providers
from reserve.diagnosis import servers
from reserve.diagnosis import subject

CLOUD_LAYERS = ('flavor', 'aggregate', 'providers', 'servers', 'host')


def _instance_reservation(lease):
    if lease is None:
        return None
    return next((r for r in lease.reservations
                 if r.resource_type == states.FLAVOR_INSTANCE), None)


def _cloud_layers(context, booked, nova, placement):
    if booked.rsv_id is None or (booked.reservation is None and
                                 not booked.over):
        # No lease reservation (yet, or any more while the booking lives):
        # nothing says what the cloud should hold.
        return [findings.layer(name, {'exists': False}, {'exists': False})
                for name in CLOUD_LAYERS]
    nova_hosts = [h for h in hosts_db.host_list(context) if h.kind == 'nova']
    layers = [fence_objects.flavor_layer(booked, nova),
              fence_objects.aggregate_layer(booked, nova),
              providers.providers_layer(booked, placement, nova_hosts),
              servers.servers_layer(context, booked, nova)]
    if not booked.over:
        layers.append(compute_hosts.host_layer(booked, nova))
    return layers


def diagnose(context, booking_id, nova, placement):
    """The diagnosis of booking ``booking_id`` (BookingNotFound)."""
    now = timeutils.utcnow()
    booking = bookings_db.booking_get(context, booking_id)
    lease = leases_db.lease_get_by_owner(context, states.Owner.BOOKING,
                                         booking.id)
    reservation = _instance_reservation(lease)
    booked = subject.Booked(
        booking=booking, lease=lease, reservation=reservation,
        rsv_id=reservation.id if reservation else booking.reserved_flavor_id,
        now=now, shares=sharing_db.shares_of(context, booking.id))
    booking_layer, missing = owner.booking_layer(booking, lease, now)
    layers = [booking_layer,
              lease_layers.lease_layer(lease, now, missing),
              lease_layers.events_layer(lease, now)]
    layers.extend(_cloud_layers(context, booked, nova, placement))
    return findings.diagnosis(findings.RESERVATION, booking.id, layers)
