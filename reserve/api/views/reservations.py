"""The representation of a booking (/v1/reservations)."""
from reserve.api import microversion
from reserve.api.views import deliveries
from reserve.api.views import missing_capacity
from reserve.api.views import sharing
from reserve.common import timeutils


def reservations_view(bookings):
    """The API representation of a page of bookings, the microversion
    asked once."""
    names = _names()
    return [_view(booking, names) for booking in bookings]


def _names():
    """Whether the view has compute_flavor, reserved_flavor_id, series_id
    and the standby fields, at the request's microversion."""
    return (not microversion.serves(microversion.ONE_NAME),
            microversion.serves(microversion.GLOSSARY_NAMES),
            microversion.serves(microversion.SERIES),
            microversion.serves(microversion.STANDBY))


def reservation_view(booking):
    """The API representation of a booking."""
    return _view(booking, _names())


def _view(booking, names):
    before_one_name, reserved_flavor, series, standby = names
    view = {
        'id': booking.id,
        'project_id': booking.project_id,
        'user_id': booking.user_id,
        'flavor_id': booking.flavor_id,
        'instance_count': booking.instance_count,
        'start': timeutils.isoformat(booking.start),
        'end': timeutils.isoformat(booking.end),
        'status': booking.status,
        'status_reason': booking.status_reason,
        'lease_id': booking.lease_id,
        'reserved_flavor_id': booking.reserved_flavor_id,
        'created_at': timeutils.isoformat(booking.created_at),
        'updated_at': timeutils.isoformat(booking.updated_at),
    }
    if series:
        view['series_id'] = booking.series_id
    if standby:
        view['standby_since'] = timeutils.isoformat(booking.standby_since)
        view['standby_until'] = timeutils.isoformat(booking.standby_until)
    if before_one_name:
        view['compute_flavor'] = booking.reserved_flavor_id
        if not reserved_flavor:
            del view['reserved_flavor_id']
    return view


def show(booking):
    """The answer about one booking."""
    view = reservation_view(booking)
    if missing_capacity.shown():
        view['missing_capacity'] = missing_capacity.of_booking(booking)
    if sharing.shown():
        view['shared_project_ids'] = sharing.seen(booking)
    return {'reservation': view}


def show_one(found):
    """The answer about one booking, ``found`` = (booking, its delivery
    row or None): from 1.3 with what it got (its delivery)."""
    booking, delivery = found
    answer = show(booking)
    if microversion.serves(microversion.PLAYBOOK):
        answer['reservation']['delivery'] = deliveries.delivery_view(
            delivery)
    return answer


def _window(window):
    if window is None:
        return None
    return {'start': timeutils.isoformat(window[0]),
            'end': timeutils.isoformat(window[1])}


def counter_offer_view(flavor, count, max_count, before=None, after=None,
                       **more):
    """What a refused booking of ``count`` instances of ``flavor`` is
    offered, the error object's counter_offer: the windows ``before``
    and ``after`` ((start, end) or None), and ``more`` fields
    (latest_end of a later end)."""
    view = {
        'flavor_id': flavor.id,
        'instance_count': count,
        'before': _window(before),
        'after': _window(after),
        'max_instance_count': max_count,
        'free_slots': '/v1/flavors/%s/free-slots?instance_count=%d' % (
            flavor.id, count),
    }
    view.update(more)
    return view
