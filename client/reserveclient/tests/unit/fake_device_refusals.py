"""The device refusals of the API double: with ``device_slots`` set, the
double's libvirt host has that many devices, and a device reservation
(or a later end) beyond them is refused as the API refuses it: 409
reserve.devices_do_not_fit (a later end: reserve.units_unavailable),
the earliest window of the same request after the reservations in the
way (none before) and the most devices that fit, or the latest end, in
the message and, since 1.11, as the counter_offer."""
import datetime
import urllib.parse

from reserveclient.tests.unit import fake_rest

# A refused device reservation's counter_offer (the server's
# DEVICE_COUNTER_OFFER).
DEVICE_COUNTER_OFFER = (1, 11)
# The end of an open-ended reservation, and the double's "now".
OPEN_END = datetime.datetime(9999, 1, 1)
NOW = datetime.datetime(2026, 12, 4, 15, 2, 11)


def _date(text, default):
    if not text or text == 'now':
        return default
    return datetime.datetime.fromisoformat(text.rstrip('Z'))


def _iso(when):
    return None if when >= OPEN_END else when.isoformat() + 'Z'


def _count(item):
    return item.get('device_count') or len(item.get('device_ids') or ())


def _in_way(api, start, end, mine=None):
    return [r for r in api.device_reservations.items
            if r is not mine and r.get('status') != 'cancelled' and
            _date(r.get('start'), NOW) < end and
            start < _date(r.get('end'), OPEN_END)]


def _availability(body):
    query = [(k, body[k]) for k in ('model', 'host', 'mdev_type')
             if body.get(k)]
    if body.get('numa_local'):
        query.append(('numa_local', 'true'))
    return '/v1/devices/availability' + (
        '?' + urllib.parse.urlencode(query) if query else '')


def _offer(body, **fields):
    offer = {'device_count': _count(body),
             'device_ids': body.get('device_ids') or None,
             'model': body.get('model'), 'host': body.get('host'),
             'numa_local': bool(body.get('numa_local')),
             'mdev_type': body.get('mdev_type'), 'before': None,
             'after': None, 'max_device_count': None,
             'availability': _availability(body)}
    offer.update(fields)
    return offer


def check_create(api, body):
    """Refuse a creation (``body`` under the names of 1.2) beyond the
    double's ``device_slots``."""
    if api.device_slots is None:
        return
    start = _date(body.get('start'), NOW)
    end = _date(body.get('end'), OPEN_END)
    in_way = _in_way(api, start, end)
    most = max(0, api.device_slots - sum(_count(r) for r in in_way))
    if _count(body) <= most:
        return
    ends = [_date(r.get('end'), OPEN_END) for r in in_way]
    window = None
    if max(ends) < OPEN_END:
        after = max(ends)
        window = {'start': _iso(after), 'end': _iso(
            OPEN_END if end >= OPEN_END else after + (end - start))}
    fields = {}
    if api.version() >= DEVICE_COUNTER_OFFER:
        fields['counter_offer'] = _offer(body, after=window,
                                         max_device_count=most)
    raise fake_rest.ApiError(409, (
        'No GPU devices fit: %d device(s) wanted; at most %d fit together '
        'on one host. %s GET %s (with start and end) counts the devices '
        'free over a window.' % (
            _count(body), most,
            'The nearest windows of this shape that fit: from %s%s '
            '(later).' % (window['start'], ' to %s' % window['end']
                          if window['end'] else ', open-ended')
            if window else 'No window of this shape fits within 30 days '
                           'either side.', _availability(body))),
        'reserve.devices_do_not_fit', fields=fields)


def check_later_end(api, item, body):
    """Refuse a later end of ``item`` beyond the double's
    ``device_slots``, with the latest end that fits."""
    if api.device_slots is None or 'end' not in body:
        return
    old_end = _date(item.get('end'), OPEN_END)
    end = _date(body['end'], OPEN_END)
    in_way = _in_way(api, old_end, end, mine=item)
    if end <= old_end or sum(_count(r) for r in in_way) + _count(
            item) <= api.device_slots:
        return
    latest = min(_date(r.get('start'), NOW) for r in in_way)
    latest = _iso(latest) if latest > old_end else None
    fields = {}
    if api.version() >= DEVICE_COUNTER_OFFER:
        fields['counter_offer'] = _offer(item, latest_end=latest)
    raise fake_rest.ApiError(409, (
        'The GPU devices cannot be reserved: reserved later. %s' % (
            'It can be moved to %s at the latest.' % latest if latest
            else 'It cannot be moved any later now.')),
        'reserve.units_unavailable', fields=fields)
