"""What a reservation got (its delivery), and the report of a period.

Figures of a delivery row (models.Delivery): seconds_to_usable is from
the start of the window to the lease becoming ACTIVE;
missing_instance_minutes counts each instance missing for a minute once,
up to now for what is missing still.
"""
from reserve.common import states
from reserve.common import timeutils

# The API's noun for each kind of owner.
KINDS = {states.Owner.BOOKING: 'reservation',
         states.Owner.DEVICE_RESERVATION: 'device_reservation'}


def _missing_seconds(row, now):
    seconds = row.missing_seconds
    if row.missing and row.missing_since:
        seconds += row.missing * max(
            0, int((now - row.missing_since).total_seconds()))
    return seconds


def _to_usable(row):
    if row.usable_at is None:
        return None
    return max(0, int((row.usable_at - row.start).total_seconds()))


def delivery_view(row, now=None):
    """The delivery of one reservation (row None: its lease is not made
    yet, nothing happened to it)."""
    if row is None:
        return {'usable_at': None, 'seconds_to_usable': None,
                'hosts_replaced': 0, 'repairs': 0, 'missing_instances': 0,
                'missing_instance_minutes': 0, 'stuck_servers': []}
    now = now or timeutils.utcnow()
    return {
        'usable_at': timeutils.isoformat(row.usable_at),
        'seconds_to_usable': _to_usable(row),
        'hosts_replaced': row.hosts_replaced,
        'repairs': row.repairs,
        'missing_instances': row.missing,
        'missing_instance_minutes': round(_missing_seconds(row, now) / 60.0,
                                          1),
        'stuck_servers': list(row.stuck_servers or ()),
    }


def _group(rows, now):
    waits = [w for w in (_to_usable(r) for r in rows) if w is not None]
    return {
        'reservations': len(rows),
        'usable': len(waits),
        'seconds_to_usable': {
            'mean': round(sum(waits) / len(waits), 1) if waits else None,
            'max': max(waits) if waits else None},
        'hosts_replaced': sum(r.hosts_replaced for r in rows),
        'repairs': sum(r.repairs for r in rows),
        'missing_instance_minutes': round(
            sum(_missing_seconds(r, now) for r in rows) / 60.0, 1),
        'stuck_servers': sum(len(r.stuck_servers or ()) for r in rows),
    }


def report_view(rows, start, end, now=None):
    """The report of the reservations whose window starts in [start,
    end): one entry per catalogue flavor (bookings) and one for device
    reservations, then the total."""
    now = now or timeutils.utcnow()
    groups = {}
    for row in rows:
        groups.setdefault((row.owner_type, row.flavor_id), []).append(row)
    entries = []
    for (owner_type, flavor_id), found in sorted(
            groups.items(), key=lambda item: (item[0][0], item[0][1] or '')):
        entry = {'kind': KINDS.get(owner_type, owner_type),
                 'flavor_id': flavor_id}
        entry.update(_group(found, now))
        entries.append(entry)
    return {'delivery_report': {
        'start': timeutils.isoformat(start), 'end': timeutils.isoformat(end),
        'groups': entries, 'total': _group(rows, now)}}
