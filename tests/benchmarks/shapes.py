"""Shapes for the decision benchmarks: hosts, the bookings already on
them, and the windows of the decisions that are timed.

Pure standard library, so that both reserve's benchmark and
blazar_pickup.py (run by a throwaway blazar virtualenv) import it, and
deterministic: the same (hosts, bookings, seed) give the same shape
under either interpreter.

    shape = make_shape(1000, 100000)
    shape.hosts[0]       # {'name': 'bench-host-00000', 'vcpus': 64, ...}
    shape.bookings[0]    # {'host': 0, 'start': datetime, 'end': ...,
                         #  'count': 2, 'vcpus': 8, ...}
    shape.request        # the first decision's window and amount
    shape.requests(20)   # 20 decisions on 20 different days

Times are naive UTC datetimes from BASE. Bookings start uniformly over
SPAN (a year; the last ones end up to MAX_HOURS past it), so their
density is constant in time and those outside a decision's window must
not change its cost. Each host's bookings are laid down in start order
and a booking is only placed where the host holds it at its start, so
no host is ever overbooked on any resource.

Durations are drawn so that a host's vCPUs are UTILISATION busy on
average, but never longer than MAX_HOURS (1 hour to 3 days): a host
with few bookings a year cannot be that busy, and ``shape.busy`` says
how busy the hosts really are (about 0.5 at 100 hosts x 100k bookings,
0.14 at 1,000 x 100k, 0.014 at 1,000 x 10k). Pass a larger
``max_hours`` to load sparse shapes more, or a ``load``: the vCPU load
the durations aim at, uncapped (up to LOADED_MAX_HOURS) so that a
sparse shape is as busy as asked (``load`` 0.6 makes 1,000 x 1M and
10,000 x 1M about 50 % busy, 2.0 about 90 %: a full host holds the
bookings that meet it back until one ends).
"""
import dataclasses
import datetime
import heapq
import random

BASE = datetime.datetime(2030, 1, 1)
SPAN_DAYS = 365
HOST = {'vcpus': 64, 'memory_mb': 524288, 'disk_gb': 2000}
# The flavor of the decisions timed.
FLAVOR = {'vcpus': 8, 'memory_mb': 65536, 'disk_gb': 100}
# Per-instance sizes of the bookings, with weights. Four of the largest
# fill a host exactly, so any single booking fits an idle host.
SIZES = (
    ({'vcpus': 4, 'memory_mb': 32768, 'disk_gb': 50}, 2),
    (FLAVOR, 6),
    ({'vcpus': 16, 'memory_mb': 131072, 'disk_gb': 200}, 2),
)
MAX_COUNT = 4               # instances in a booking: 1 to 4
MIN_HOURS = 1
MAX_HOURS = 72
UTILISATION = 0.6           # the vCPU load durations aim at
LOADED_MAX_HOURS = 90 * 24  # the longest booking of a shape with a load

# The decisions: AMOUNT instances of FLAVOR for REQUEST_HOURS from
# REQUEST_HOUR o'clock, on days around REQUEST_DAY (mid-year).
REQUEST_DAY = 180
REQUEST_HOUR = 9
REQUEST_HOURS = 24
REQUEST_AMOUNT = 4
REQUEST_DAYS = 120          # requests() cycles over days 120 to 239

_RESOURCES = ('vcpus', 'memory_mb', 'disk_gb')
_MINUTE = datetime.timedelta(minutes=1)


@dataclasses.dataclass
class Shape:
    hosts: list
    flavor: dict
    bookings: list
    seed: int
    busy: float             # mean vCPU utilisation of the hosts over SPAN
    base: datetime.datetime = BASE

    @property
    def request(self):
        """The first decision: REQUEST_AMOUNT x flavor for a day."""
        return next(self.requests(1))

    def requests(self, n):
        """``n`` decisions, each on a different day (and after
        REQUEST_DAYS of them, a different hour) in mid-year, so repeated
        decisions do not read the same bookings."""
        return requests(n, self.base, self.flavor)

    def overlapping(self, start, end):
        """The bookings whose [start, end) meets [start, end)."""
        return [b for b in self.bookings
                if b['start'] < end and start < b['end']]


def requests(n, base=BASE, flavor=FLAVOR):
    """The windows of Shape.requests, the same for every shape (a kept
    database needs no shape made)."""
    for i in range(n):
        # Days 180, 181, 179, 182, 178, ... within REQUEST_DAYS.
        k = i % REQUEST_DAYS
        offset = (k + 1) // 2 * (1 if k % 2 else -1)
        start = base + datetime.timedelta(
            days=REQUEST_DAY + offset,
            hours=REQUEST_HOUR + i // REQUEST_DAYS)
        window = {
            'start': start,
            'end': start + datetime.timedelta(hours=REQUEST_HOURS),
            'amount': REQUEST_AMOUNT,
        }
        window.update(flavor)
        yield window


def make_shape(hosts, bookings, seed=0, max_hours=MAX_HOURS,
               span_days=SPAN_DAYS, load=None):
    """``bookings`` bookings spread evenly over ``hosts`` hosts.

    span_days: how long the bookings spread over. Ten times the bookings
    over ten times the span keep their density (and durations), so the
    decisions' windows meet the same bookings and only those outside
    grow: the shape that shows whether a decision is flat in them.

    load: the vCPU load the durations aim at instead of UTILISATION,
    with ``max_hours`` raised to LOADED_MAX_HOURS (None: neither)."""
    utilisation = UTILISATION
    if load is not None:
        utilisation, max_hours = load, max(max_hours, LOADED_MAX_HOURS)
    rnd = random.Random(seed)
    span = span_days * 24 * 60                  # minutes
    sizes = [size for size, _ in SIZES]
    weights = [weight for _, weight in SIZES]
    mean_load = ((1 + MAX_COUNT) / 2.0 *
                 sum(s['vcpus'] * w for s, w in SIZES) / sum(weights))
    host_rows = [dict(HOST, name='bench-host-%05d' % i)
                 for i in range(hosts)]
    rows = []
    used = 0                                    # vCPU-minutes booked
    for index in range(hosts):
        n = bookings // hosts + (index < bookings % hosts)
        if not n:
            continue
        # Durations uniform in [MIN, 2 * mean - MIN] minutes; the mean
        # aims at UTILISATION and is capped so none exceeds max_hours.
        mean = utilisation * HOST['vcpus'] * span / (n * mean_load)
        mean = max(MIN_HOURS * 60,
                   min(mean, (MIN_HOURS + max_hours) * 30))
        longest = int(2 * mean) - MIN_HOURS * 60
        pending = [(rnd.randrange(span), seq,
                    rnd.randint(MIN_HOURS * 60, longest),
                    rnd.randint(1, MAX_COUNT),
                    rnd.choices(sizes, weights)[0])
                   for seq in range(n)]
        heapq.heapify(pending)
        used += _place(index, pending, rows)
    for row in rows:
        row['start'] = BASE + row['start'] * _MINUTE
        row['end'] = BASE + row['end'] * _MINUTE
    busy = used / float(max(hosts, 1) * HOST['vcpus'] * span)
    return Shape(hosts=host_rows, flavor=dict(FLAVOR), bookings=rows,
                 seed=seed, busy=busy)


def _place(host, pending, rows):
    """Sweep ``pending`` (start, seq, minutes, count, size) in start
    order onto ``host``: a booking takes as many of its instances as the
    host holds at its start (a host's load only rises at a start, so
    that is enough to never overbook), or waits for the next booking to
    end if not even one fits. Returns the vCPU-minutes placed."""
    active = []                     # (end, vcpus, memory_mb, disk_gb)
    load = [0, 0, 0]
    capacity = [HOST[r] for r in _RESOURCES]
    placed = 0
    while pending:
        start, seq, minutes, count, size = heapq.heappop(pending)
        while active and active[0][0] <= start:
            ended = heapq.heappop(active)
            for i in range(3):
                load[i] -= ended[i + 1]
        demand = [size[r] for r in _RESOURCES]
        fits = min((capacity[i] - load[i]) // demand[i] for i in range(3))
        if fits < 1:
            heapq.heappush(pending, (active[0][0], seq, minutes, count,
                                     size))
            continue
        count = min(count, fits)
        taken = [count * d for d in demand]
        heapq.heappush(active, (start + minutes, *taken))
        for i in range(3):
            load[i] += taken[i]
        placed += taken[0] * minutes
        row = {'host': host, 'start': start, 'end': start + minutes,
               'count': count}
        row.update(size)
        rows.append(row)
    return placed
