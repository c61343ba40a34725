"""What a refused booking is offered instead.

A booking that does not fit (NoCapacity) is answered with the nearest
windows of the same shape (as many instances, as long) that do fit,
one starting before the asked start and one after it, each searched
over ``[booking] free_slots_default_days`` on its side, and the most
instances that fit in the asked window. The windows come from
free-slots (admission.free_slots), so each is one that admission would
take at that moment; the search runs after the refused transaction,
outside the capacity lock, over a day on each side first, then a week,
then all of them. A later end that does not fit is answered
with the latest end that does (admission.latest_end).
"""
import datetime

from oslo_config import cfg

from reserve.booking import admission
from reserve.common import timeutils

CONF = cfg.CONF


def nearest(windows, start, length):
    """(before, after): the latest start earlier than ``start`` and the
    earliest later one at which [s, s + length) lies within one of
    ``windows`` ([(window start, window end)]); None where there is
    none. ``start`` is a refused one: [start, start + length) lies in no
    window."""
    before = after = None
    for window_start, window_end in windows:
        if window_end - window_start < length:
            continue
        latest = min(start, window_end - length)
        if window_start <= latest < start and (
                before is None or latest > before):
            before = latest
        earliest = max(start, window_start)
        if start < earliest and earliest + length <= window_end and (
                after is None or earliest < after):
            after = earliest
    return before, after


# The spans searched on each side, nearest first, up to [booking]
# free_slots_default_days: free-slots costs as many steps as its span
# holds bookings, and on a busy flavor that is most of a refusal's cost,
# while the nearest window is most often within a day.
SPANS_DAYS = (1, 7)


def search(context, flavor, start, end, count, bypass_maintenance):
    """{'before': (start, end) or None, 'after': (start, end) or None}
    of a booking of ``count`` instances of ``flavor`` for as long as
    [start, end). A window found within a span is the nearest on its
    side: an earlier one after the asked start (a later one before it)
    would lie within that span too."""
    length = end - start
    found = {'before': None, 'after': None}
    widest = CONF.booking.free_slots_default_days
    for days in sorted({d for d in SPANS_DAYS if d < widest} | {widest}):
        reach = datetime.timedelta(days=days)
        windows = admission.free_slots(context, flavor, start - reach,
                                       end + reach, count,
                                       bypass_maintenance)
        for side, at in zip(('before', 'after'),
                            nearest(windows, start, length)):
            if found[side] is None and at is not None:
                found[side] = (at, at + length)
        if found['before'] and found['after']:
            break
    return found


def _window_text(window):
    if window[1] is None:
        return 'from %s, open-ended' % timeutils.isoformat(window[0])
    return 'from %s to %s' % (timeutils.isoformat(window[0]),
                              timeutils.isoformat(window[1]))


def describe(offer):
    """The sentence of the refusal's message that says what fits."""
    found = [_window_text(offer[side]) + ' (%s)' % (
        'earlier' if side == 'before' else 'later')
        for side in ('before', 'after') if offer[side]]
    if not found:
        return ('No window of this shape fits within %d days either side.'
                % CONF.booking.free_slots_default_days)
    return 'The nearest windows of this shape that fit: %s.' % (
        ' and '.join(found))


def describe_end(latest):
    """The sentence of a refused later end's message that says what
    fits."""
    if latest is None:
        return 'It cannot be moved any later now.'
    return 'It can be moved to %s at the latest.' % timeutils.isoformat(
        latest)
