"""The offer search: concrete windows of a shape, ready to book.

A search asks for ``count`` instances of a catalogue flavor for
``length``, starting at some time of [earliest, latest]. The capacity
the admission counts (admission.free_capacity: the flavor's slots and
the hosts, with every booking, lease and maintenance window on them)
gives the maximal windows in which such a booking fits
(maths.free_windows); every start that leaves the booking inside one of
them is one admission would take now. Of those the search offers:

* by start (``SORT_START``): the earliest start, then the earliest one
  at or after the end of that offer, and so on: offers of one flavor
  never overlap, and each is the earliest that fits after the one before;
* by hosts (``SORT_HOSTS``): the starts where a host's capacity rises
  and those of the sweep above, each placed the way admission places a
  booking (maths.place, fewest hosts first), the fewest hosts first, then
  the earliest; overlapping ones dropped, as by start.

Starts are whole minutes (a window whose start is not, and which is too
short to wait for the next minute, is offered at its own start), and no
sooner than the offer can still be booked when it lapses ([booking]
offer_hold_seconds, less [api] past_tolerance).

Each offer says how many hosts its instances would be placed on. An
offer holds no capacity: booking it (POST /v1/reservations
{"offer_id": ...}) runs the admission again.
"""
import bisect
import collections
import datetime

from oslo_config import cfg

from reserve.booking import admission
from reserve.booking import gauntlet
from reserve.booking import quota
from reserve.capacity import maths
from reserve.capacity import model
from reserve.common import exception
from reserve.common import timeutils

CONF = cfg.CONF

SORT_START = 'start'
SORT_HOSTS = 'hosts'
SORTS = (SORT_START, SORT_HOSTS)
# Starts looked at per flavor when sorting by hosts, of the sweep and
# of the hosts' rising edges each.
HOSTS_CANDIDATES = 64

MINUTE = datetime.timedelta(minutes=1)

Found = collections.namedtuple('Found', 'flavor start end count hosts')


def _whole_minute(when):
    """``when`` rounded up to the minute."""
    rounded = when.replace(second=0, microsecond=0)
    return rounded if rounded == when else rounded + MINUTE


def start_ranges(windows, earliest, latest, length):
    """[(first, last)]: the starts within [earliest, latest] of a booking
    of ``length`` lying in one of ``windows`` ([(start, end)]), one range
    per window that has any, in the order of ``windows``."""
    ranges = []
    for window_start, window_end in windows:
        first = max(window_start, earliest)
        last = min(window_end - length, latest)
        if first <= last:
            ranges.append((first, last))
    return ranges


def _first_at_or_after(ranges, when):
    """The earliest start of ``ranges`` at or after ``when`` (a whole
    minute when the range has one), or None."""
    best = None
    for first, last in ranges:
        if last < when:
            continue
        start = max(first, when)
        rounded = _whole_minute(start)
        if rounded <= last:
            start = rounded
        if best is None or start < best:
            best = start
    return best


def sweep(ranges, length, limit):
    """Up to ``limit`` starts of ``ranges``: the earliest, then the
    earliest at or after its end, and so on (never overlapping)."""
    starts = []
    when = min((first for first, _ in ranges), default=None)
    while when is not None and len(starts) < limit:
        start = _first_at_or_after(ranges, when)
        if start is None:
            break
        starts.append(start)
        when = start + length
    return starts


def _least(steps, times, start, end):
    """The least value of the step function ``steps`` ([(t, value)], t
    ascending; ``times``: its t's) over [start, end)."""
    i = max(bisect.bisect_right(times, start) - 1, 0)
    least = steps[i][1]
    for t, value in steps[i + 1:]:
        if t >= end:
            break
        least = min(least, value)
    return least


class Hosts:
    """How admission would place a booking on the hosts of a
    FreeCapacity: the busy hosts' step functions, keyed by host, beside
    what the idle ones hold."""

    def __init__(self, found):
        offer = found.offer
        board_start = offer.board.start
        self.idle = {h: fit for h, fit in offer.ranked.fit_of.items()
                     if h not in offer.busy_allocations()}
        self.steps = {}
        for host_id, held in offer.busy_allocations().items():
            steps = [(board_start + datetime.timedelta(seconds=t), fit)
                     for t, fit in maths.steps(
                         offer.ranked.host_of[host_id].capacity, held,
                         offer.need, 0, offer.board.span)]
            self.steps[host_id] = (steps, [t for t, _ in steps])

    def rising(self, ranges, limit):
        """Up to ``limit`` starts of ``ranges``, the earliest first, at
        which a busy host holds more than just before: where fewer hosts
        may do."""
        times = sorted({t for steps, _ in self.steps.values()
                        for (t, fit), (_, before) in zip(steps[1:], steps)
                        if fit > before})
        starts = []
        for t in times:
            start = _first_at_or_after(ranges, t)
            if start is not None and (not starts or start != starts[-1]):
                starts.append(start)
                if len(starts) == limit:
                    break
        return starts

    def placed_on(self, start, end, count):
        """How many hosts admission places ``count`` instances on over
        [start, end) (its guard included); None when they do not fit."""
        fits = dict(self.idle)
        for host_id, (steps, times) in self.steps.items():
            fits[host_id] = _least(steps, times, start, end)
        placed = maths.place(fits, count)
        return None if placed is None else len(placed)


def _earliest_start(earliest, now):
    """No sooner than an offer can be booked until it lapses."""
    wait = max(CONF.booking.offer_hold_seconds - CONF.api.past_tolerance, 0)
    return max(earliest, now + datetime.timedelta(seconds=wait))


def _flavor_offers(ctx, flavor, count, length, earliest, latest, sort,
                   limit, bypass_maintenance):
    """[Found] of one flavor, in the order asked."""
    guard = model.guard()
    found = admission.free_capacity(ctx, flavor, earliest, latest + length,
                                    bypass_maintenance)
    if found is None:
        return []
    hosts = Hosts(found)
    windows = maths.free_windows(
        [steps for steps, _ in hosts.steps.values()],
        sum(hosts.idle.values()), found.slot_steps, count, found.start,
        found.end, guard)
    ranges = start_ranges(windows, earliest, latest, length)
    if sort == SORT_START:
        starts = sweep(ranges, length, limit)
    else:
        starts = sorted(set(sweep(ranges, length, HOSTS_CANDIDATES)) |
                        set(hosts.rising(ranges, HOSTS_CANDIDATES)))
    offers = []
    for start in starts:
        placed_on = hosts.placed_on(start, start + length + guard, count)
        if placed_on is not None:
            offers.append(Found(flavor, start, start + length, count,
                                placed_on))
    if sort == SORT_HOSTS:
        offers = _apart(sorted(offers, key=lambda o: (o.hosts, o.start)))
    return offers[:limit]


def _apart(offers):
    """``offers`` (of one flavor) in their order, less each one that
    overlaps one kept before it."""
    kept = []
    for offer in offers:
        if all(offer.end <= k.start or k.end <= offer.start for k in kept):
            kept.append(offer)
    return kept


ANY_FLAVOR_WITH = ('gpu_model',)


def gpu_model(flavor):
    """The GPUs one instance of ``flavor`` asks for, whatever their
    number: the keys of its demand (reserve.capacity.gpus), as the
    capacity model counts them; empty for a flavor without GPUs or never
    sized."""
    if not flavor.nova_flavor:
        return frozenset()
    return frozenset(key for key, n in
                     model.size_of(flavor.nova_flavor)['gpus'].items() if n)


def same_gpu_model(flavor, candidates):
    """``flavor`` and the ``candidates`` asking for the same GPUs, by
    name; Invalid (400) when ``flavor`` asks for none."""
    wanted = gpu_model(flavor)
    if not wanted:
        raise exception.Invalid(
            reason='flavor %s asks for no GPU: any_flavor_with=gpu_model '
                   'finds flavors of the GPUs of a GPU flavor' % flavor.name)
    found = {c.id: c for c in candidates
             if not c.spot and gpu_model(c) == wanted}
    found[flavor.id] = flavor
    return sorted(found.values(), key=lambda f: f.name)


def _check_bookable(ctx, flavor, earliest, length):
    """The rules of the gauntlet that do not depend on the start."""
    gauntlet.check_active(flavor)
    gauntlet.check_not_spot(flavor)
    gauntlet.check_granted(flavor, ctx.project_id)
    gauntlet.check_length(flavor, earliest, earliest + length)


def search(ctx, flavors, count, length, earliest, latest, sort, limit,
           bypass_maintenance=False):
    """Up to ``limit`` offers (Found) of ``count`` instances of one of
    ``flavors`` (bookable by the caller) for ``length``, starting within
    [earliest, latest], in the order ``sort`` asks. The gauntlet's rules
    that do not depend on the start run first: a flavor whose bookings
    cannot be this long is left out (or refused, when it is the only
    one), and so is a shape over the project's quota."""
    now = timeutils.utcnow()
    earliest = _earliest_start(earliest, now)
    quota.enforce(ctx, ctx.project_id, quota.new_booking(
        count, earliest, earliest + length))
    usable = []
    for flavor in flavors:
        try:
            _check_bookable(ctx, flavor, earliest, length)
        except exception.ReserveException:
            if len(flavors) == 1:
                raise
            continue
        usable.append(flavor)
    offers = []
    for flavor in usable:
        offers.extend(_flavor_offers(ctx, flavor, count, length, earliest,
                                     latest, sort, limit,
                                     bypass_maintenance))
    if sort == SORT_HOSTS:
        key = (lambda o: (o.hosts, o.start, o.flavor.name))
    else:
        key = (lambda o: (o.start, o.hosts, o.flavor.name))
    return sorted(offers, key=key)[:limit]
