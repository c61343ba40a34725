"""The capacity model's maths: pure functions, no I/O.

A host has a capacity ({vcpus, memory_mb, disk_gb, gpus: {key: n}}, what
is left once other consumers' usage is taken off) and allocations on it. An
allocation holds ``amount`` instances of a size (the same keys) over
[start, until): its window plus the hand-over guard. What a host offers
an instance size ("need") over time is a step function: at every instant,
how many more instances of that size fit beside the allocations holding it
then. A booking's instances stay on the host they start on, so a host
holds ``n`` of them for a window when it holds ``n`` at every instant of
it: the minimum of its steps over the window.

A booking of ``count`` instances fits over a window when

* the hosts together hold ``count``: the sum over the hosts of each
  host's minimum over the window;
* and, for a catalogue flavor, its own slots calendar has ``count`` free
  at every instant (booking.calendar's load, as a step function of free
  slots).

Both only shrink as the window grows, so the windows a booking fits in
are exactly the sub-windows of a few maximal ones (free_windows), which
may overlap: two hosts free one after the other each hold a booking,
but not one that spans both.

Times may be datetimes or numbers (the tests); intervals are half-open.
"""
import collections

from reserve.capacity import gpus as gpu_maths

RESOURCES = ('vcpus', 'memory_mb', 'disk_gb')
# What "fits" means when a need asks for nothing at all.
UNBOUNDED = 10 ** 6

Allocation = collections.namedtuple('Allocation', 'start until amount size')


def fit(free, used_gpus, capacity_gpus, need):
    """How many instances of ``need`` fit in ``free`` {resource: amount}
    with ``used_gpus`` of ``capacity_gpus`` taken."""
    if any(free.get(r, 0) < 0 for r in RESOURCES):
        return 0
    counts = [free.get(r, 0) // need[r] for r in RESOURCES if need.get(r)]
    if need.get('gpus'):
        # None: the need asks no GPU after all ({'VGPU': 0})
        gpu_fit = gpu_maths.fit(capacity_gpus or {}, used_gpus,
                                need['gpus'])
        if gpu_fit is not None:
            counts.append(gpu_fit)
    return max(0, min(counts)) if counts else UNBOUNDED


def empty_fit(capacity, need):
    """What a host with no allocations holds of ``need``."""
    return fit(capacity, {}, capacity.get('gpus'), need)


def steps(capacity, allocations, need, start, end):
    """The host's offer of ``need`` over [start, end) as [(t, fit)], t
    ascending from ``start``; each fit holds until the next t (the last
    until ``end``). ``allocations`` may hold the host outside the window."""
    deltas = collections.defaultdict(list)
    base = []
    for allocation in allocations:
        if (allocation.start >= end or allocation.until <= start or
                not allocation.amount):
            continue
        if allocation.start <= start:
            base.append((allocation, 1))
        else:
            deltas[allocation.start].append((allocation, 1))
        if allocation.until < end:
            deltas[allocation.until].append((allocation, -1))
    free = {r: capacity.get(r, 0) for r in RESOURCES}
    used_gpus = collections.Counter()
    capacity_gpus = capacity.get('gpus') or {}

    def apply(changes):
        for allocation, sign in changes:
            size, n = allocation.size, allocation.amount * sign
            for r in RESOURCES:
                free[r] -= size.get(r, 0) * n
            for key, per in (size.get('gpus') or {}).items():
                used_gpus[key] += per * n

    apply(base)
    result = [(start, fit(free, used_gpus, capacity_gpus, need))]
    for t in sorted(deltas):
        apply(deltas[t])
        now = fit(free, used_gpus, capacity_gpus, need)
        if now != result[-1][1]:
            result.append((t, now))
    return result


def _sweep_key(event):
    return event[0], event[1]


def _peaks(allocations, start, end, use_of, width):
    """The most each of ``width`` resources is used at one instant of
    [start, end) by ``allocations`` (all meeting it),
    ``use_of(allocation)`` being an allocation's use of each."""
    if len(allocations) == 1:
        return use_of(allocations[0])
    events = []
    for allocation in allocations:
        use = use_of(allocation)
        # Ends sort before starts at the same instant: half-open windows.
        events.append((max(allocation.start, start), 1, use))
        if allocation.until < end:
            events.append((allocation.until, 0, use))
    events.sort(key=_sweep_key)
    load, peak = [0] * width, [0] * width
    for _, rising, use in events:
        if rising:
            for i in range(width):
                load[i] += use[i]
                if load[i] > peak[i]:
                    peak[i] = load[i]
        else:
            for i in range(width):
                load[i] -= use[i]
    return peak


def least_fit(capacity, allocations, need, start, end):
    """least(steps(capacity, allocations, need, start, end)), without the
    steps: what a decision needs, for every busy host, fast.

    A host short of nothing fits floor((capacity - used) / need) of each
    resource, which only falls as its use rises, so the fewest over the
    window is what fits beside each resource's peak use: the peaks are
    found in one sweep, one use vector per allocation. A GPU key of the need
    is a resource of its own, whose use is what the allocations take from the
    capacity serving it (reserve.capacity.gpus).
    """
    gpu_need = sorted((key, per) for key, per in
                      (need.get('gpus') or {}).items() if per)

    def use_of(allocation):
        size, n = allocation.size, allocation.amount
        use = [size.get('vcpus', 0) * n, size.get('memory_mb', 0) * n,
               size.get('disk_gb', 0) * n]
        if gpu_need:
            held = size.get('gpus') or {}
            use.extend(gpu_maths.taking(held, key) * n
                       for key, _ in gpu_need)
        return use

    # An empty allocation (until == start) holds nothing, as in steps.
    meeting = [c for c in allocations
               if c.start < end and c.until > start and c.amount and
               c.start < c.until]
    width = len(RESOURCES) + len(gpu_need)
    peak = (_peaks(meeting, start, end, use_of, width) if meeting
            else [0] * width)
    free = [capacity.get(r, 0) - peak[i] for i, r in enumerate(RESOURCES)]
    if any(f < 0 for f in free):
        return 0
    counts = [free[i] // need[r] for i, r in enumerate(RESOURCES)
              if need.get(r)]
    have = capacity.get('gpus') or {}
    for i, (key, per) in enumerate(gpu_need, len(RESOURCES)):
        counts.append(max(gpu_maths.serving(have, key) - peak[i], 0) // per)
    return max(0, min(counts)) if counts else UNBOUNDED


def free_windows(host_steps, idle, slot_steps, count, start, end, guard):
    """The maximal windows [s, e) within [start, end) in which a booking
    of ``count`` instances fits, s ascending.

    host_steps: the step functions (over [start, end + guard)) of the
    hosts whose offer changes in that time; idle: what the other hosts
    hold, a constant; slot_steps: the flavor's free slots as a step
    function, or None when only the hosts count. A booking [s, e) needs
    [s, e + guard): it fits exactly when it lies within one of the
    windows returned.
    """
    horizon = end + guard
    if end <= start:
        return []
    functions = list(host_steps)
    if slot_steps is not None:
        functions.append(slot_steps)
    times = sorted({start} | {t for f in functions for t, _ in f
                              if start <= t < horizon})
    bounds = times + [horizon]
    k = len(times)
    # values[f][m]: function f on segment m, [bounds[m], bounds[m + 1]).
    values = []
    for f in functions:
        row, pointer, current = [], 0, f[0][1]
        for t in times:
            while pointer < len(f) and f[pointer][0] <= t:
                current = f[pointer][1]
                pointer += 1
            row.append(current)
        values.append(row)
    hosts = values[:len(host_steps)]
    slots = values[len(host_steps)] if slot_steps is not None else None

    # Sliding minima over segments i..j, one deque of indices per row.
    queues = [collections.deque() for _ in values]

    def minimum(q, row):
        return row[q[0]] if q else None

    def holds_with(j):
        total = idle
        for q, row in zip(queues, hosts):
            here = row[j]
            low = minimum(q, row)
            total += here if low is None else min(low, here)
        if total < count:
            return False
        if slots is not None:
            low = minimum(queues[-1], slots)
            here = slots[j]
            if (here if low is None else min(low, here)) < count:
                return False
        return True

    windows = []
    j = -1
    last_reach = -1
    for i in range(k):
        for q in queues:
            if q and q[0] < i:
                q.popleft()
        if j < i - 1:
            j = i - 1
        while j + 1 < k and holds_with(j + 1):
            j += 1
            for q, row in zip(queues, values):
                while q and row[q[-1]] >= row[j]:
                    q.pop()
                q.append(j)
        if j >= i and j > last_reach:
            window_end = bounds[j + 1] - guard
            if window_end > times[i]:
                windows.append((times[i], min(window_end, end)))
                last_reach = j
    return windows


def place(fits, amount, affinity=None):
    """Spread ``amount`` instances over hosts by what each holds
    ({host_id: fit}); {host_id: amount} or None.

    affinity True: all on one host (the tightest that holds them);
    False: each on a different host; None: as few hosts as possible.
    """
    ranked = sorted(((s, h) for h, s in fits.items() if s > 0),
                    key=lambda item: (-item[0], item[1]))
    if affinity is True:
        fitting = [(s, h) for s, h in ranked if s >= amount]
        if not fitting:
            return None
        _, host = min(fitting)
        return {host: amount}
    if affinity is False:
        if len(ranked) < amount:
            return None
        return {host: 1 for _, host in ranked[:amount]}
    placed, left = {}, amount
    for held, host in ranked:
        take = min(held, left)
        placed[host] = take
        left -= take
        if not left:
            return placed
    return None


def most_placed(fits, amount, affinity=None):
    """How many of ``amount`` instances ``place`` could place."""
    held = [s for s in fits.values() if s > 0]
    if affinity is True:
        return min(max(held, default=0), amount)
    if affinity is False:
        return min(len(held), amount)
    return min(sum(held), amount)
