"""The offer search: concrete windows of a shape, ready to book.

A search asks for ``count`` instances of a catalogue flavor for
``length``, starting at some time of [earliest, latest]. Every start at
which the capacity the admission counts (admission.free_capacity: the
flavor's slots and the hosts, with every booking, lease and maintenance
window on them) holds such a booking is one admission would take now.
Of those the search offers:

* by start (``SORT_START``): the earliest start, then the earliest one
  at or after the end of that offer, and so on: offers of one flavor
  never overlap, and each is the earliest that fits after the one before;
* by hosts (``SORT_HOSTS``): the starts where a host's capacity rises
  and those of the sweep above, each placed the way admission places a
  booking (maths.place, fewest hosts first), the fewest hosts first, then
  the earliest; overlapping ones dropped, as by start.

The earliest start that fits is found by trying the start asked, then
each time a host's offer or the free slots rise (Capacity), each try
placed as admission places a booking, reading only the hosts it could
choose; not by working out every window that fits (maths.free_windows,
whose cost grows with the busy hosts times their changes). On a cloud
with room the first try fits, and a search reads about what as many
decisions read.

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
from reserve.capacity import store
from reserve.common import exception
from reserve.common import timeutils
from reserve.db import api as db_api

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


def _least(steps, times, start, end):
    """The least value of the step function ``steps`` ([(t, value)], t
    ascending; ``times``: its t's) over [start, end)."""
    i = max(bisect.bisect_right(times, start) - 1, 0)
    least = steps[i][1]
    for t, value in steps[i + 1:]:
        if t >= end:
            break
        if value < least:
            least = value
    return least


def _rising(steps):
    """The times at which the step function ``steps`` rises."""
    return [t for (t, value), (_, before) in zip(steps[1:], steps)
            if value > before]


class _Within:
    """A window of a Board, as model.Offer reads a board: the allocations
    of its hosts that meet [start, start + span), in seconds from its
    start. An Offer over it places a booking of that window exactly as
    admission does, reading (lazily, once for every window) only the
    hosts it could choose."""

    def __init__(self, board, start, span):
        self.board = board
        self.offset = store.seconds(start, board.start)
        self.span = store.seconds(start + span, start)

    def allocations_of(self, host_ids, need):
        low, high = self.offset, self.offset + self.span
        return {h: [a._replace(start=a.start - low, until=a.until - low)
                    for a in held if a.start < high and a.until > low]
                for h, held in self.board.allocations_of(
                    host_ids, need).items()}

    def idle_hosts(self, host_ids, wanted):
        """Board.idle_hosts of this window: the first ``wanted`` of
        ``host_ids`` (in their order, among the board's first
        IDLE_SEARCH) that nothing holds over it (model.first_idle). The
        database says which are idle over this window
        (Board.idle_between); no allocation is read (on a busy cloud
        most hosts are held somewhere in the board's weeks, and reading
        all they hold to find the few idle over one window cost most of
        a search)."""
        low, high = self.offset, self.offset + self.span
        return model.first_idle(
            host_ids, wanted,
            lambda batch: self.board.idle_between(batch, low, high),
            held=lambda host_id: self.board.known_held(host_id, low, high))


class Capacity:
    """What admission counts for a booking of ``count`` instances of one
    flavor for ``length``, from a lazy FreeCapacity of the range of
    starts: the flavor's free slots, and the hosts, on which a window is
    placed as admission places it (model.Offer over _Within), reading
    the hosts it could choose.

    The windows of one length that fit can only start at the start asked
    or when the free slots or a host's offer rise: between two rises, a
    later window loses nothing on its left that it would not lose on its
    right.
    """

    def __init__(self, found, count, length):
        self.offer = found.offer
        self.count, self.length = count, length
        self.window = length + model.guard()
        self.slots = (found.slot_steps, [t for t, _ in found.slot_steps])
        # The starts searched: [first, last].
        self.first = found.start
        self.last = found.end - length
        self._rises = None

    def rises(self):
        """Every time a host's offer or the free slots rise, ascending
        (worked out, reading every host, when first asked)."""
        if self._rises is None:
            offer = self.offer
            times = set(_rising(self.slots[0]))
            for host_id, held in offer.busy_allocations().items():
                times.update(
                    offer.board.start + datetime.timedelta(seconds=t)
                    for t in _rising(maths.steps(
                        offer.ranked.host_of[host_id].capacity, held,
                        offer.need, 0, offer.board.span)))
            self._rises = sorted(times)
        return self._rises

    def placed_on(self, start):
        """How many hosts admission places the booking starting at
        ``start`` on, or None when it does not fit."""
        if _least(*self.slots, start, start + self.window) < self.count:
            return None
        placed = model.Offer(_Within(self.offer.board, start, self.window),
                             self.offer.ranked, self.offer.need).place(
                                 self.count)
        return None if placed is None else len(placed)

    def _tries(self, when):
        """The starts worth trying at or after ``when``, in order: it
        and each rise after it, each first as a whole minute."""
        yield when
        rises = self.rises()
        for t in rises[bisect.bisect_right(rises, when):]:
            yield t

    def first_fit(self, when):
        """(start, hosts) of the earliest booking starting at or after
        ``when`` that fits (a whole minute when one fits as well as the
        exact start), or None."""
        when = max(when, self.first)
        for t in self._tries(when):
            if t > self.last:
                return None
            for start in dict.fromkeys((_whole_minute(t), t)):
                if start <= self.last:
                    hosts = self.placed_on(start)
                    if hosts is not None:
                        return start, hosts
        return None

    def sweep(self, when, limit):
        """Up to ``limit`` (start, hosts): the earliest booking that
        fits, then the earliest at or after its end, and so on."""
        found = []
        while len(found) < limit:
            fit = self.first_fit(when)
            if fit is None:
                break
            found.append(fit)
            when = fit[0] + self.length
        return found

    def at_rises(self, when, limit):
        """Up to ``limit`` (start, hosts) of the bookings that fit
        starting at a rise after ``when`` (where fewer hosts may do)."""
        found = []
        for t in self._tries(when):
            if t > self.last or len(found) == limit:
                break
            start = _whole_minute(t)
            hosts = self.placed_on(start) if start <= self.last else None
            if hosts is not None:
                found.append((start, hosts))
        return found


def _earliest_start(earliest, now):
    """No sooner than an offer can be booked until it lapses."""
    wait = max(CONF.booking.offer_hold_seconds - CONF.api.past_tolerance, 0)
    return max(earliest, now + datetime.timedelta(seconds=wait))


def _flavor_offers(ctx, flavor, count, length, earliest, latest, sort,
                   limit, bypass_maintenance):
    """[Found] of one flavor, in the order asked."""
    found = admission.free_capacity(ctx, flavor, earliest, latest + length,
                                    bypass_maintenance, lazy=True,
                                    count=count)
    if found is None:
        return []
    capacity = Capacity(found, count, length)
    if sort == SORT_START:
        starts = capacity.sweep(earliest, limit)
    else:
        starts = set(capacity.sweep(earliest, HOSTS_CANDIDATES))
        starts.update(capacity.at_rises(earliest, HOSTS_CANDIDATES))
        starts = sorted(starts, key=lambda s: (s[1], s[0]))
    offers = [Found(flavor, start, start + length, count, hosts)
              for start, hosts in starts]
    if sort == SORT_HOSTS:
        offers = _apart(offers)
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
    # One reader for the lot: every try reads the same snapshot, and
    # the dozens of small reads of a search on a busy cloud do not each
    # begin a transaction of their own.
    with db_api.reader.using(ctx):
        for flavor in usable:
            offers.extend(_flavor_offers(ctx, flavor, count, length,
                                         earliest, latest, sort, limit,
                                         bypass_maintenance))
    if sort == SORT_HOSTS:
        key = (lambda o: (o.hosts, o.start, o.flavor.name))
    else:
        key = (lambda o: (o.start, o.hosts, o.flavor.name))
    return sorted(offers, key=key)[:limit]
