"""Capacity maths over time windows: pure functions, no I/O.

A host fits ``n`` more instances over a window when, at every instant of
the window, what the overlapping allocations use plus ``n`` instances
stays within its capacity. Windows are half-open: [start, end).

GPUs count like the other resources: a capacity, a usage and a need may
carry ``gpus`` ({key: count}, see gpus.py), so that a host never takes
more GPU instances than it has GPUs, whatever CPUs it has left.
"""
from reserve.plugins import gpus as gpu_maths

RESOURCES = ('vcpus', 'memory_mb', 'disk_gb')


def _fits(free, need, gpu_fit=None):
    counts = [free[r] // need[r] for r in RESOURCES if need.get(r)]
    if any(free[r] < 0 for r in RESOURCES):
        return 0
    if gpu_fit is not None:
        counts.append(gpu_fit)
    return min(counts) if counts else None


def host_slots(capacity, usages, need, start, end):
    """How many instances of ``need`` fit on a host over [start, end).

    capacity: {resource: amount, 'gpus': {key: count}}; usages: dicts
    with start, end, count and the per-instance resources (and gpus).
    None means unbounded (``need`` asks for nothing).
    """
    need_gpus = need.get('gpus') or {}
    points = {start}
    for usage in usages:
        if usage['start'] < end and usage['end'] > start:
            points.add(max(usage['start'], start))
            points.add(usage['end'])
    best = None
    for point in sorted(p for p in points if start <= p < end):
        free = dict((r, capacity.get(r, 0)) for r in RESOURCES)
        used_gpus = {}
        for usage in usages:
            if usage['start'] <= point < usage['end']:
                for r in RESOURCES:
                    free[r] -= usage.get(r, 0) * usage['count']
                for key, n in (usage.get('gpus') or {}).items():
                    used_gpus[key] = (used_gpus.get(key, 0) +
                                      n * usage['count'])
        gpu_fit = None
        if need_gpus:
            gpu_fit = gpu_maths.fit(capacity.get('gpus') or {}, used_gpus,
                                    need_gpus)
        fits = _fits(free, need, gpu_fit)
        if fits is not None and (best is None or fits < best):
            best = fits
    return best


def place(slots_by_host, amount, affinity=None):
    """Spread ``amount`` instances over hosts; {host_id: count} or None.

    affinity True: all on one host; False: each on a different host;
    None: pack onto as few hosts as possible.
    """
    ranked = sorted(((s, h) for h, s in slots_by_host.items() if s),
                    key=lambda item: (-item[0], item[1]))
    if affinity is True:
        fitting = [(s, h) for s, h in ranked if s >= amount]
        if not fitting:
            return None
        # the tightest host that fits keeps the big ones free
        slots, host = min(fitting, key=lambda item: (item[0], item[1]))
        return {host: amount}
    if affinity is False:
        if len(ranked) < amount:
            return None
        return {host: 1 for _, host in ranked[:amount]}
    placed, left = {}, amount
    for slots, host in ranked:
        take = min(slots, left)
        placed[host] = take
        left -= take
        if not left:
            return placed
    return None
