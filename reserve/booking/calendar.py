"""The calendar of a flavor: which windows a booking fits in.

Pure functions, no I/O; the admission check, free-slots and availability
all ask these, so they cannot disagree.

A flavor has ``slots`` instances the cloud fences at once. Occupants are
(start, end, count) triples: a booking holds ``count`` slots, a
maintenance window all of them. Every occupant keeps its slots ``guard``
longer than its end (the time to hand the GPU over), a new booking as
well: ``count`` new instances fit in [start, end) when at every instant t
of [start, end + guard)

    (slots held by the occupants at t) + count <= slots

where an occupant holds its slots over [its start, its end + guard).
Intervals are half-open, so an occupant leaving at t and another arriving
at t never meet; the loads at one instant are summed before they are
compared, so the answer does not depend on the order occupants come in.

Times may be datetimes with a timedelta guard, or numbers (the tests).
"""
import collections


def _steps(occupants, guard, start, end):
    """The load over [start, end) as [(t, load from t on)], t ascending,
    the first t being ``start``."""
    base = 0
    deltas = collections.defaultdict(int)
    for o_start, o_end, count in occupants:
        held_until = o_end + guard
        if o_start >= end or held_until <= start or count == 0:
            continue
        if o_start <= start:
            base += count
        else:
            deltas[o_start] += count
        if held_until < end:
            deltas[held_until] -= count
    steps = [(start, base)]
    load = base
    for t in sorted(deltas):
        if deltas[t]:
            load += deltas[t]
            steps.append((t, load))
    return steps


def load_steps(occupants, guard, start, end):
    """The slots the occupants hold over [start, end) as [(t, load)]."""
    return _steps(occupants, guard, start, end)


def free_slots(slots, occupants, start, end, count, guard):
    """The windows within [start, end) where ``count`` more instances fit.

    Returns maximal, disjoint [(gap_start, gap_end)], ascending: a booking
    [s, e) with start <= s < e <= end fits exactly when some gap has
    gap_start <= s and e <= gap_end.
    """
    if end <= start:
        return []
    horizon = end + guard
    gaps = []
    opened = None

    def close(at):
        # A booking must leave ``guard`` before the next occupant, so the
        # gap for its end stops that much earlier; at the horizon it is
        # ``end`` itself.
        if opened is not None and at - guard > opened:
            gaps.append((opened, at - guard))

    for t, load in _steps(occupants, guard, start, horizon):
        fits = load + count <= slots
        if fits and opened is None:
            opened = t
        elif not fits and opened is not None:
            close(t)
            opened = None
    close(horizon)
    return gaps


def fits(slots, occupants, start, end, count, guard):
    """Whether ``count`` more instances fit in [start, end): the one check
    admission makes, asked of free_slots itself."""
    return free_slots(slots, occupants, start, end, count, guard) == [
        (start, end)]


def least_free(slots, occupants, start, end, guard):
    """The fewest slots free at any instant of [start, end) (never below
    0); occupants count until their end + guard."""
    if end <= start:
        return slots
    peak = max(load for _, load in _steps(occupants, guard, start, end))
    return max(0, slots - peak)


def max_count(slots, occupants, start, end, guard):
    """The largest instance count a booking of [start, end) can have now:
    count fits exactly when count <= max_count (the booking's own guard
    included)."""
    return least_free(slots, occupants, start, end + guard, guard)
