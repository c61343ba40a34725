"""What a refused device reservation is offered (the error object's
counter_offer since microversion 1.11; reserve.booking
.device_counter_offer finds it)."""
import urllib.parse

from reserve.common import timeutils

AVAILABILITY = '/v1/devices/availability'


def _window(window):
    if window is None:
        return None
    return {'start': timeutils.isoformat(window[0]),
            'end': timeutils.isoformat(window[1])}


def availability_path(request, host):
    """The availability read that counts the devices of ``request``
    (selection.Request; ``host``: its host as the caller named it)."""
    query = [(k, v) for k, v in (('model', request.model), ('host', host),
                                 ('mdev_type', request.mdev_type)) if v]
    if request.numa_local:
        query.append(('numa_local', 'true'))
    return AVAILABILITY + ('?' + urllib.parse.urlencode(query)
                           if query else '')


def counter_offer_view(request, host, availability, offer):
    """The counter_offer of a refused device reservation (``request``:
    selection.Request, ``host`` as named, ``offer``: search's answer)."""
    return {
        'device_count': request.device_count or len(request.device_ids),
        'device_ids': list(request.device_ids) or None,
        'model': request.model,
        'host': host,
        'numa_local': request.numa_local,
        'mdev_type': request.mdev_type,
        'before': _window(offer['before']),
        'after': _window(offer['after']),
        'max_device_count': offer['most'],
        'availability': availability,
    }


def latest_end_view(request, host, availability, latest):
    """The counter_offer of a refused later end: the latest end that
    fits (None: no later one), no windows."""
    view = counter_offer_view(request, host, availability, {
        'before': None, 'after': None, 'most': None})
    view['latest_end'] = timeutils.isoformat(latest)
    return view
