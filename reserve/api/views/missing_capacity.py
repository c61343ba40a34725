"""What a reservation lacks now (microversion 1.3): one entry per failed
host still holding part of it, {host, instances or devices, since,
reason}; [] when it is whole."""
from reserve.api import microversion
from reserve.common import context as reserve_context
from reserve.common import states
from reserve.common import timeutils
from reserve.db import hosts as hosts_db
from reserve.devices import states as device_states


def shown():
    return microversion.serves(microversion.PLAYBOOK)


def _entry(host, what, amount):
    return {'host': host.name, what: amount,
            'since': timeutils.isoformat(host.failed_at),
            'reason': host.failure}


def of_booking(booking):
    if booking.status not in states.Booking.LIVE:
        return []
    held = hosts_db.held_on_failed_hosts(
        reserve_context.get_admin_context(), timeutils.utcnow(),
        booking_id=booking.id)
    return [_entry(a.host, 'instances', a.amount) for a in held]


def failed_hosts(ctx):
    """{host id: host} of the failed hosts, read once for a page."""
    return {h.id: h for h in hosts_db.host_list(ctx) if h.failure}


def of_device_reservation(reservation, failed):
    host = failed.get(reservation.host_id)
    if host is None or reservation.status not in \
            device_states.DeviceReservation.LIVE:
        return []
    return [_entry(host, 'devices', len(reservation.devices))]


def schema(what):
    """The response schema of the field, ``what`` instances or devices."""
    return {'type': 'array', 'description': (
        'Since 1.3: what the reservation lacks now, per failed host that '
        'still holds it; [] when it is whole'),
        'items': {'type': 'object', 'required': [
            'host', what, 'since', 'reason'], 'properties': {
            'host': {'type': 'string'}, what: {'type': 'integer'},
            'since': {'type': ['string', 'null'], 'format': 'date-time'},
            'reason': {'type': ['string', 'null']}}}}
