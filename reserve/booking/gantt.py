"""The rows of a Gantt chart: who holds which lane over time.

Pure functions, no I/O; the calendar API (reserve.api.views.calendar)
draws what they return, and the terminal timeline draws that.

A lane is one slot of a flavor, one instance of a host or one GPU
device. An item holds ``count`` lanes over [start, end + guard): the
guard is the hand-over time the calendar keeps after every occupant
(reserve.booking.calendar), so two items a guard apart never share a
lane. Items are laid out by start, each on the lowest lanes free at its
start, which never needs more lanes than the most items hold at one
instant (an interval graph is coloured by its clique number): since
admission keeps that within the flavor's slots, the rows stay within
them too. Items beyond (a maintenance window added on a full calendar,
an eviction under way) go on extra rows, so nothing is hidden.
"""
import heapq

from reserve.booking import calendar


def lay_out(items, lanes, guard):
    """Rows of lanes (at least ``lanes``) for ``items``.

    items: objects with ``start``, ``end`` and ``count``; guard: what each
    keeps after its end. Returns a list of rows, each the list of items
    on that lane, by start; an item of count N is on N rows.
    """
    rows = [[] for _ in range(lanes)]
    free = list(range(lanes))
    heapq.heapify(free)
    busy = []  # (held until, lane)
    for item in sorted(items, key=lambda i: (i.start, i.end)):
        while busy and busy[0][0] <= item.start:
            heapq.heappush(free, heapq.heappop(busy)[1])
        for _ in range(item.count):
            if free:
                lane = heapq.heappop(free)
            else:
                lane = len(rows)
                rows.append([])
            rows[lane].append(item)
            heapq.heappush(busy, (item.end + guard, lane))
    return rows


def free_steps(lanes, occupants, guard, start, end):
    """[(step start, step end, lanes free)] covering [start, end): what
    the occupants ((start, end, count) triples) leave of ``lanes``, each
    until its end + guard, never below 0."""
    steps = calendar.load_steps(occupants, guard, start, end)
    bounds = [t for t, _ in steps[1:]] + [end]
    return [(t, until, max(lanes - load, 0))
            for (t, load), until in zip(steps, bounds)]
