"""What a refused device reservation is offered instead.

A device reservation refused for its devices (DevicesDoNotFit: not as
many devices of what it asks go together; DevicesUnavailable: the
devices it names are held) is answered, as a refused booking is
(reserve.booking.counter_offer), with the nearest windows of the same
shape that fit, one starting before the asked start and one after it,
each searched over ``[booking] free_slots_default_days`` on its side,
and the most devices that fit in the asked window. The same shape is
the same request (as many devices, or the same ones; the model, the
host, NUMA locality, the mdev type, the hosts its domains narrowed it
to) for as long, or open-ended again.

Each window is tried with the selection a hold makes
(reserve.devices.selection over holds.devices_within, which is
holds.devices_over from one read), as the caller sees the devices now:
a device another project holds now stays out of sight, as in
/v1/devices/availability, so that the offer tells no more than the
availability does. Whether a request fits changes only where a hold
overlapping its window starts or stops overlapping it: after the end
of a hold, and at a window that ends where a hold starts, so those are
the only starts tried. Read outside any lock: each window is one that a
hold would take at that moment.
"""
import bisect
import datetime

from oslo_config import cfg

from reserve.common import exception
from reserve.devices import holds
from reserve.devices import selection
from reserve.devices import states

CONF = cfg.CONF


def _fits(over, request, start, end):
    try:
        selection.select(over(start, end), request)
    except exception.Conflict:
        return False
    return True


def search(context, request, start, end, viewer, now):
    """{'before': (start, end) or None, 'after': (start, end) or None,
    'most': the most devices that fit in [start, end)} of a refused
    ``request`` (selection.Request) over [start, end), end None when
    open-ended (then the windows offered are open-ended: (start, None);
    none before, since one fitting earlier would fit at the asked start
    too). ``viewer``: the project the devices are seen as (None: all)."""
    reach = datetime.timedelta(days=CONF.booking.free_slots_default_days)
    latest = now + datetime.timedelta(days=CONF.booking.max_query_days)
    low = max(now, start - reach)
    high = min(latest, (end or start) + reach)
    host_ids = [request.host_id] if request.host_id else (
        list(request.host_ids) or None)
    over, reservations = holds.devices_within(
        context, min(low, start), states.OPEN_END if end is None else
        max(high, end), viewer=viewer, host_ids=host_ids)
    length = None if end is None else end - start

    def window(at):
        return (at, None if length is None else at + length)

    def fits(at):
        return _fits(over, request, at,
                     states.OPEN_END if length is None else at + length)

    before = None
    if length is not None:
        starts = sorted({r.start - length for r in reservations
                         if low <= r.start - length < start}, reverse=True)
        before = next((at for at in starts if fits(at)), None)
    ends = sorted({r.end for r in reservations
                   if start < r.end and not states.is_open_end(r.end) and
                   (r.end if length is None else r.end + length) <= high})
    after = next((at for at in ends if fits(at)), None)
    return {'before': before and window(before),
            'after': after and window(after),
            'most': selection.most(
                over(start, states.OPEN_END if end is None else end),
                request)}


def latest_end(context, reservation, end, now):
    """The latest end before ``end`` (None: open-ended) to which the live
    ``reservation`` could move now (its later end refused), or None when
    it cannot move later at all; an open-ended reservation is never
    refused a later end. Its devices stay free the longer the less it
    grows: a binary search over the starts of the holds in the way."""
    end = end or states.OPEN_END
    request = selection.Request(
        device_ids=tuple(u.device_id for u in reservation.devices),
        host_id=reservation.host_id)
    over, reservations = holds.devices_within(
        context, reservation.start, end, host_ids=[reservation.host_id],
        exclude=reservation.id)
    latest = now + datetime.timedelta(days=CONF.booking.max_query_days)
    ends = sorted({r.start for r in reservations
                   if reservation.end < r.start <= min(end, latest)})
    fitting = bisect.bisect_left(
        ends, True, key=lambda at: not _fits(over, request,
                                             reservation.start, at))
    return ends[fitting - 1] if fitting else None
