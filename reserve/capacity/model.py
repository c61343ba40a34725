"""The one capacity model: what the enrolled hosts hold over time.

Admission, a later end, free-slots, availability, host maintenance and
the manager's own host selection all ask this module, so they cannot
disagree: an accepted booking has its hosts chosen (its allocations written
in the same transaction), and what the calendar offers is what a booking
would be given.

Per host it counts vCPUs, memory, disk and GPUs at every instant: the
capacity record of the host (reserve.capacity.refresh, read from
placement outside any lock), less the allocations of every booking and lease
on it, whatever catalogue entry or nova flavor they came from, less its
maintenance windows. Non-reservable hosts hold nothing new.
"""
import collections
import datetime
import itertools
import threading

from oslo_config import cfg

from reserve.capacity import gpus as gpu_maths
from reserve.capacity import host_filters
from reserve.capacity import maths
from reserve.capacity import store

CONF = cfg.CONF

HOST_FILTER_SPEC = 'reserve:resource_properties'


def guard():
    """The time kept free after each allocation ([booking]guard_seconds) for
    the host to be turned around before the next."""
    return datetime.timedelta(seconds=CONF.booking.guard_seconds)


def size_of(nova_flavor):
    """The size one instance of a recorded nova flavor takes on a host."""
    return {'vcpus': nova_flavor.get('vcpus', 0),
            'memory_mb': nova_flavor.get('memory_mb', 0),
            'disk_gb': (nova_flavor.get('disk_gb', 0) +
                        nova_flavor.get('ephemeral_gb', 0)),
            'gpus': gpu_maths.configured_demand(
                nova_flavor.get('extra_specs') or {}, CONF)}


def host_filter_of(nova_flavor):
    return host_filters.parse((nova_flavor.get('extra_specs') or {})
                              .get(HOST_FILTER_SPEC))


class Ranked:
    """The candidate hosts of a need, as if nothing were on them: what
    each holds (``fit_of``), and the hosts that hold something grouped by
    it, most first, each group by id (``groups``). The same for every
    decision until a host changes, so it is kept per process (_rank)."""

    def __init__(self, candidates, need):
        self.host_of = {h.id: h for h in candidates}
        by_key, self.fit_of = {}, {}
        groups = collections.defaultdict(list)
        for host in candidates:
            fit = by_key.get(host.key)
            if fit is None:
                fit = by_key[host.key] = maths.empty_fit(host.capacity, need)
            self.fit_of[host.id] = fit
            if fit > 0:
                groups[fit].append(host.id)
        self.groups = [(fit, sorted(ids)) for fit, ids in
                       sorted(groups.items(), reverse=True)]


_ranked_lock = threading.Lock()
_ranked = {}
_RANKED_KEPT = 256


def _rank(hosts, need, host_filter):
    """Ranked of the reservable ``hosts`` (store.hosts' list, the same
    object while they are unchanged) matching ``host_filter``."""
    key = (repr(sorted(need.items())), repr(host_filter))
    with _ranked_lock:
        found = _ranked.get(key)
    if found is not None and found[0] is hosts:
        return found[1]
    ranked = Ranked([h for h in hosts if h.reservable and
                     host_filters.matches(host_filter, h.capabilities)], need)
    with _ranked_lock:
        if len(_ranked) >= _RANKED_KEPT:
            _ranked.clear()
        _ranked[key] = (hosts, ranked)
    return ranked


class Offer:
    """What the candidate hosts of a need hold of it over a board's
    window: an idle host (no allocation then) what ``ranked`` says, a busy one
    the least it holds over the window, worked out from its allocations when
    first asked (fit_of). A placement (place) looks at the candidates in
    rank order only until they hold the amount; on a lazy board, only
    their allocations are read."""

    # Hosts looked up together when the ranking needs more, doubling.
    FIRST_LOOKUP = 8

    def __init__(self, board, ranked, need):
        self.board, self.ranked, self.need = board, ranked, need
        self._fits = {}
        self._busy = None

    def _allocations(self, host_ids):
        return self.board.allocations_of(host_ids, self.need)

    def fit_of(self, host_id):
        fit = self._fits.get(host_id)
        if fit is None:
            allocations = self._allocations([host_id])[host_id]
            fit = self._fits[host_id] = (
                maths.least_fit(self.ranked.host_of[host_id].capacity,
                                allocations, self.need, 0, self.board.span)
                if allocations else self.ranked.fit_of[host_id])
        return fit

    def busy_allocations(self):
        """{host_id: allocations} of the candidates with allocations (all read,
        once: free-slots asks for them twice)."""
        if self._busy is None:
            found = self._allocations(list(self.ranked.fit_of))
            self._busy = {h: c for h, c in found.items() if c}
        return self._busy

    @property
    def fits(self):
        """{host_id: what it holds} of every candidate."""
        self.busy_allocations()
        return {h: self.fit_of(h) for h in self.ranked.fit_of}

    def total(self):
        return sum(self.fits.values())

    @property
    def idle(self):
        """What the candidates with no allocation hold together."""
        busy = self.busy_allocations()
        return sum(fit for h, fit in self.ranked.fit_of.items()
                   if h not in busy)

    @property
    def busy(self):
        """The step functions of the candidates with allocations, in dates."""
        start = self.board.start
        return [[(start + datetime.timedelta(seconds=t), fit)
                 for t, fit in maths.steps(self.ranked.host_of[h].capacity,
                                           allocations, self.need, 0,
                                           self.board.span)]
                for h, allocations in self.busy_allocations().items()]

    def place(self, amount, affinity=None):
        """Hosts for ``amount`` instances, {host_id: count}, or None when
        the candidates together cannot hold them (maths.place's answer
        over every candidate, so admission agrees with free-slots and
        availability).

        The choice is maths.place's -- as few hosts as possible, those
        holding the most first, then by id -- over the hosts looked at:
        first the idle candidates of the top rank (nothing on them over
        the window, found by the database without reading an allocation,
        among the first Board.IDLE_SEARCH of the rank),
        which are what maths.place over every candidate chooses when
        they hold the amount (a busy host holds less than an idle one of
        its rank, unless what is on it takes nothing of the need);
        otherwise, the other candidates too, in
        rank order a batch at a time (doubling) until those looked at
        hold the amount. On a busy cloud, where no idle host is left,
        this reads the allocations of a few hosts rather than those of
        every host: the hosts chosen hold the most among the first that
        hold the amount, not necessarily of all.

        affinity True: the tightest host holding them all, of every
        candidate."""
        if affinity is True:
            return maths.place(self.fits, amount, affinity)
        looked = {}
        if self.ranked.groups:
            top, ids = self.ranked.groups[0]
            wanted = amount if affinity is False else -(-amount // top)
            for host_id in self.board.idle_hosts(ids, wanted):
                looked[host_id] = self._fits[host_id] = top
            if len(looked) >= wanted:
                return maths.place(looked, amount, affinity)
        held = self._held(looked.values(), affinity)
        order = (h for _, ids in self.ranked.groups for h in ids
                 if h not in looked)
        batch = self.FIRST_LOOKUP
        while held < amount:
            batch_ids = list(itertools.islice(order, batch))
            if not batch_ids:
                return None
            self._allocations(batch_ids)            # one read for the lot
            fits = [self.fit_of(h) for h in batch_ids]
            looked.update(zip(batch_ids, fits))
            held += self._held(fits, affinity)
            batch *= 2
        return maths.place(looked, amount, affinity)

    @staticmethod
    def _held(fits, affinity):
        """What hosts of ``fits`` hold together of a placement: instances,
        or, without sharing a host (affinity False), hosts."""
        if affinity is False:
            return sum(1 for fit in fits if fit > 0)
        return sum(fits)

    def most_placed(self, amount, affinity=None):
        return maths.most_placed(self.fits, amount, affinity)


# How many hosts the last idle-host walk of a rank looked at before it
# found enough, by the rank's first host: the next walk asks that many at
# once. Admission fills the first hosts of a rank first, so on a busy
# cloud every walk passes the same busy hosts before the idle ones (a
# batch of 16, doubling, took five reads to pass 500).
_IDLE_WALKS = {}


def first_idle(host_ids, wanted, idle_of, held=None):
    """The first ``wanted`` of ``host_ids`` (in their order, among the
    first Board.IDLE_SEARCH) that ``idle_of(batch)`` (the set of a
    batch's hosts that are idle) counts idle; fewer when there are not as
    many. Hosts ``held(host_id)`` already knows are held are passed over
    without asking. Asked a batch at a time: the first as many hosts as
    the last walk of the same hosts asked about (_IDLE_WALKS), then
    doubling."""
    ids = list(itertools.islice(host_ids, Board.IDLE_SEARCH))
    key = ids[0] if ids else None
    # Filtered as the walk goes: most walks stop early.
    ids = iter(ids) if held is None else (h for h in ids if not held(h))
    found, first = [], 0
    batch = max(Board.IDLE_LOOKUP, _IDLE_WALKS.get(key, 0))
    while len(found) < wanted:
        asked = list(itertools.islice(ids, batch))
        if not asked:
            break
        batch *= 2
        idle = idle_of(asked)
        for host_id in asked:
            first += 1
            if host_id in idle:
                found.append(host_id)
                if len(found) == wanted:
                    break
    _IDLE_WALKS[key] = first
    return found


class Board:
    """The hosts and what holds them over [start, until).

    Made inside a capacity transaction (after store.lock) for decisions,
    or in a reader for the calendar's answers. Times inside are whole
    seconds from ``start``. A board reads the allocations of every host at
    once, or, ``lazy``, those of the hosts its offers look up (a
    placement needs only the few it could choose).
    """

    # Hosts asked of the database whether they are idle at once,
    # doubling, and how many are asked at most (idle_hosts).
    IDLE_LOOKUP, IDLE_SEARCH = 16, 512

    def __init__(self, context, state, start, until, guard,
                 exclude_booking=None, exclude_lease_reservation=None,
                 exclude_allocation=None, lazy=False):
        self.start, self.until, self.guard = start, until, guard
        self.span = store.seconds(until, start)
        self.hosts = store.hosts(context, state)
        self._window = (context, state, start, until, guard)
        self._excludes = dict(
            exclude_booking=exclude_booking,
            exclude_lease_reservation=exclude_lease_reservation,
            exclude_allocation=exclude_allocation)
        self._windows = store.host_windows_in(context, start, until, guard)
        # {host_id: allocations} of the hosts read so far (of every host once
        # _all), apart for the GPUs allocated.
        self._read, self._gpus_read = {}, {}
        self._all = self._gpus_all = False
        # {host_id: (high, until)} of the hosts idle_between found held
        # over a window ending at ``high``, by something that holds them
        # until ``until`` (seconds from start).
        self._held = {}
        if not lazy:
            self._read_all(False)

    def _read_all(self, gpus):
        if not self._all:
            self._read = store.allocations_in_window(*self._window,
                                                     **self._excludes)
            self._all = True
        if gpus and not self._gpus_all:
            self._gpus_read = store.gpu_allocations_in_window(
                *self._window, **self._excludes)
            self._gpus_all = True

    def _read_some(self, read, reader, host_ids):
        missing = [h for h in host_ids if h not in read]
        if missing:
            found = reader(*self._window, host_ids=missing, **self._excludes)
            for host_id in missing:
                read[host_id] = found.get(host_id, [])

    def _read_hosts(self, host_ids, gpus):
        if len(host_ids) > len(self.hosts) // 2:
            return self._read_all(gpus)
        if not self._all:
            self._read_some(self._read, store.allocations_in_window, host_ids)
        if gpus and not self._gpus_all:
            self._read_some(self._gpus_read, store.gpu_allocations_in_window,
                            host_ids)

    def allocations_of(self, host_ids, need):
        """{host_id: what holds it over the window} for ``host_ids``:
        allocations, maintenance windows and, for a need asking for GPUs, the
        GPUs allocated."""
        gpus = any((need.get('gpus') or {}).values())
        self._read_hosts(host_ids, gpus)
        found = {}
        for host_id in host_ids:
            allocations = list(self._read.get(host_id, ()))
            allocations.extend(self._windows.get(host_id, ()))
            if gpus:
                allocations.extend(self._gpus_read.get(host_id, ()))
            found[host_id] = allocations
        return found

    def idle_hosts(self, host_ids, wanted):
        """The first ``wanted`` of ``host_ids`` (in their order) that
        nothing holds over the window, neither an allocation nor a
        maintenance window, looked for among the first IDLE_SEARCH of
        them (first_idle); fewer when there are not as many. The database
        says which are idle (store.idle_hosts) a batch at a time, unless
        every host's allocations are read already."""
        found = first_idle(host_ids, wanted, self._idle_of)
        for host_id in found:
            # Nothing to read of it any more.
            self._read[host_id] = []
            self._gpus_read[host_id] = []
        return found

    def _idle_of(self, host_ids):
        looked = [h for h in host_ids if h not in self._windows]
        if self._all:
            return {h for h in looked if not self._read.get(h)}
        if not looked:
            return set()
        return store.idle_hosts(*self._window, host_ids=looked,
                                **self._excludes)

    def idle_between(self, host_ids, low, high):
        """The hosts of ``host_ids`` that nothing holds at any instant of
        [low, high) (seconds from the board's start, inside its window):
        no allocation (until its end + the guard) and no maintenance
        window. Hosts whose allocations were read are answered from
        them; the database is asked about the others (store.held_hosts),
        and nothing more is read. Until when the database says a host
        is held is kept for known_held: a sweep of consecutive windows
        passes the same busy hosts, and need not ask about them again."""
        def meets(held):
            return any(a.start < high and a.until > low for a in held)
        idle, unread = set(), []
        for host_id in host_ids:
            if meets(self._windows.get(host_id, ())):
                continue
            if self._all or host_id in self._read:
                if not meets(self._read.get(host_id, ())):
                    idle.add(host_id)
            else:
                unread.append(host_id)
        if unread:
            context, state, start, _until, guard = self._window
            held = store.held_hosts(
                context, state, start + datetime.timedelta(seconds=low),
                start + datetime.timedelta(seconds=high), guard,
                host_ids=unread, **self._excludes)
            for host_id, until in held.items():
                # Held from before ``high`` until low + until.
                self._held[host_id] = (high, low + until)
            idle.update(h for h in unread if h not in held)
        return idle

    def known_held(self, host_id, low, high):
        """Whether an earlier idle_between found something that holds
        the host over [low, high) too: what held it over a window ending
        no later than ``high`` holds it until after ``low``."""
        held = self._held.get(host_id)
        return held is not None and held[0] <= high and low < held[1]

    def offer(self, need, host_filter=None, host_ids=None):
        """What the reservable hosts matching ``host_filter`` (and among
        ``host_ids``, if given) hold of ``need`` over the board's
        window: an Offer."""
        if host_ids is None:
            ranked = _rank(self.hosts, need, host_filter)
        else:
            ranked = Ranked([h for h in self.hosts
                             if h.reservable and h.id in host_ids and
                             host_filters.matches(host_filter,
                                                  h.capabilities)],
                            need)
        return Offer(self, ranked, need)


def short_on_own_hosts(context, state, allocations, start, end,
                       exclude_booking=None, exclude_lease_reservation=None):
    """How many of the instances of ``allocations`` (allocation rows of one
    size) their own hosts cannot hold over [start, end), beside every
    other allocation: instances cannot move, so a later end must fit where
    they are. 0 without allocations."""
    if not allocations:
        return 0
    first = allocations[0]
    need = {'vcpus': first.vcpus, 'memory_mb': first.memory_mb,
            'disk_gb': first.disk_gb, 'gpus': first.gpus or {}}
    board = Board(context, state, start, end + guard(), guard(),
                  exclude_booking=exclude_booking,
                  exclude_lease_reservation=exclude_lease_reservation)
    fits = board.offer(need, host_ids={c.host_id for c in allocations}).fits
    return sum(max(0, c.amount - fits.get(c.host_id, 0)) for c in allocations)


def total(context, need, host_filter=None, hosts=None):
    """How many instances of ``need`` the reservable hosts hold when
    nothing else is on them (the most a catalogue entry can offer).
    hosts: store.hosts' records, when the caller has read them."""
    if hosts is None:
        hosts = store.hosts(context, store.read_state(context))
    return sum(maths.empty_fit(h.capacity, need) for h in hosts
               if h.reservable and host_filters.matches(host_filter,
                                                        h.capabilities))


def fits_anywhere(context, need, host_filter=None):
    """Whether one instance of ``need`` fits on some enrolled host."""
    state = store.read_state(context)
    return any(maths.empty_fit(h.capacity, need) >= 1
               for h in store.hosts(context, state)
               if host_filters.matches(host_filter, h.capabilities))
