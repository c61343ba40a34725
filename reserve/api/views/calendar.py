"""The body of GET /v1/calendar: rows of bars, and the free capacity.

A bar of the caller's own project shows its status and id; another
project's shows as ``busy``, with neither id nor project (an
administrator, allowed reserve:calendar:all_projects, sees them all as
they are, with their project).
"""
from reserve.common import states
from reserve.common import timeutils
from reserve.devices import states as device_states

BUSY = 'busy'
STATUSES = (states.Booking.ALL + tuple(
    s for s in device_states.DeviceReservation.ALL
    if s not in states.Booking.ALL) + (BUSY,))


def _time(value):
    return timeutils.isoformat(value)


def held_bar(held, own, sees_all):
    """One bar of a booking, lease allocation or device reservation."""
    bar = {'kind': held.kind, 'start': _time(held.start),
           'end': _time(held.end), 'own': own, 'count': held.count}
    if own or sees_all:
        bar['status'] = held.status
        bar['id'] = held.id
    else:
        bar['status'] = BUSY
    if sees_all:
        bar['project_id'] = held.project_id
    return bar


def maintenance_bar(start, end, note):
    return {'kind': 'maintenance', 'start': _time(start), 'end': _time(end),
            'note': note}


def calendar_view(view, subject, start, end, now, rows, free):
    """rows: [(label, [bar])]; free: [(start, end, free)]."""
    return {'calendar': {
        'view': view,
        'subject': subject,
        'start': _time(start),
        'end': _time(end),
        'now': _time(now),
        'rows': [{'label': label, 'bars': bars} for label, bars in rows],
        'free': [{'start': _time(s), 'end': _time(e), 'free': n}
                 for s, e, n in free],
        'statuses': list(STATUSES),
    }}
