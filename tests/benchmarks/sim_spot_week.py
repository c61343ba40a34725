"""How much of the fenced GPU-hours a week uses, with spot lending
(reserve.spot.budget.of_host) and without, under the chaos run's booking
pattern.

Not a test: a simulation that prints figures; no database, no cloud.
It needs only reserve.spot.budget (and reserve.capacity.maths for
--placement reserve).

    .venv/bin/python tests/benchmarks/sim_spot_week.py
    .venv/bin/python tests/benchmarks/sim_spot_week.py --step 5 \\
        --shapes busy-70
    .venv/bin/python tests/benchmarks/sim_spot_week.py --seats 1:1,2:1,4:1

The cloud: --hosts hosts (20) of --gpus GPUs (4) each, all fenced; a
seat of a booking is one instance of --seat-gpus GPUs (1). Fenced
GPU-hours are hosts x GPUs x 168 h.

The bookings are the chaos run's (tests/integration/chaos.py, the long
Profile and Chaos.book_one/_cancel_later), stretched to a week: that
profile makes its bookings over 600 s, so every duration of it is
multiplied by 604800 / 600 = 1008:

* made evenly spaced in time (the chaos run's fixed gap), from 4 days
  before the week (so that it starts loaded) to a day after it;
* start uniform 5-90 s after being made: 1.4-25.2 h here;
* length uniform 10-180 s: 2.8-50.4 h here;
* one instance each, as the chaos run books (--seats draws other sizes,
  e.g. 1:3,2:1 for its device reservations' one or two GPUs);
* 10 % of those accepted are cancelled, uniform 1-30 s after being made
  (17 min-8.4 h here): before their start they never run, after it they
  end then;
* refused when no host holds the booking for its window plus the
  hand-over guard ([booking]guard_seconds, 60 s). Placement is first
  fit: the first host, by index, with enough free GPUs for the whole
  window takes all the seats (--placement reserve spreads them as
  reserve.capacity.maths.place does: the freest hosts first, as few as
  possible).

Only the rate changes between shapes: "empty" aims at 20 % of the fenced
GPU-hours booked, "busy-50/70/90" at 50, 70 and 90 % (the number of
bookings a week is tuned in a few placement-only passes until the booked
share is within a point of the aim; past saturation the refusals keep it
below), and "chaos" keeps the chaos run's own rate, 500 bookings a week.
Only the week [0, 168 h) is counted.

The owners (the same draws with spot and without): each booking's owner
uses a fraction uniform in --use (0.3-1.0) of its seats (rounded at
random, so a one-seat booking is used with that probability), boots all
of them at once a uniform 0-20 % of the booking's length after its
start (--boot-late) and stops them a uniform 0-20 % of it before its end
(--stop-early), or at the cancel.

Spot: each run of the spot task (every --step seconds; the service's
[spot]interval is 5 s, the default here is 60 s, which gives the same
shares within 0.1 point at a twelfth of the time: check with --step 5)
calls budget.of_host for each host with the allocations the manager
knows then (bookings made and not cancelled, ``started`` once their
start has passed) and the owners' seats in use, with [spot]lead_time and
idle_margin (600 s, 1; defaults read from reserve/conf/spot.py). Spot
servers of one GPU each then fill the budget (unlimited demand; with
--spot-demand N, N GPUs of spot servers cloud-wide at most, first fit
over the hosts); when a host holds more than its budget, its oldest go
(a reclaim). As reserve.spot.lending does:

* the spot servers beyond of_host with lead_time + warning_time, and
  with the reservations ending within warning_time taken back, are
  warned, oldest first, in every run (--forecast ahead: also those
  beyond of_host
  warning_time from now, which drops what ends before then); a reclaim
  has notice when its server was warned warning_time (300 s) before;
* a lease's end calls of_host with taken_back = its reservation and
  reclaims at once what exceeds that (--no-take-back: no such call).

A reclaim at a run is the owners' (no notice by design) for the part
that of_host with the previous run's seats in use would not have asked,
the calendar's (a booking within the lead time) for the rest; one at a
lease's end is the end's for the part that of_host without taken_back
would not have asked. New spot servers are booted only up to the
forecast of the warnings, as the spot inventory lending.py sets allows
(--fill budget: up to of_host), so that none is booted less than
warning_time before a booking takes it back.

An owner's boot lands in the host's free GPUs (GPUs less owners' seats
in use less spot servers); what does not fit waits, and is tried again
after each run of the spot task (the margin's seats of each waiting boot
first) and whenever an owner stops on the host.

Figures per shape, GPU-hours of the week and their shares of the fenced
ones: booked (seats x window), owner (in use by the owners, with spot),
spot, of which on idle seats (the rest on unbooked GPUs); used without
spot (owner use with no spot at all / fenced) and with spot ((owner +
spot) / fenced). Then reclaims (spot GPUs taken back) by cause and
notice, the GPU-hours the reclaimed servers had run (lost when
reclaim_action is delete), owner seats that waited for a reclaim (by
design when an owner boots more than idle_margin seats within one run)
and the longest wait; and two lines that must be 0:

* margin violations: boot attempts that found fewer free GPUs than
  min(seats wanted, idle_margin) seats while spot servers were on the
  host (the margin is what of_host promises lands at once);
* starts held by spot: bookings whose start found spot servers on GPUs
  they booked (spot + owners' seats in use + the booking's GPUs > the
  host's GPUs at its start), and those GPUs.

The exit status is 1 when one of them is not 0.
"""
import argparse
import collections
import dataclasses
import datetime
import heapq
import os
import random
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, REPO)

from reserve.capacity import maths  # noqa: E402
from reserve.conf import booking as booking_conf  # noqa: E402
from reserve.conf import spot as spot_conf  # noqa: E402
from reserve.spot import budget  # noqa: E402

HOUR = 3600.0
DAY = 24 * HOUR
WEEK = 7 * DAY
BASE = datetime.datetime(2030, 1, 7)    # t = 0, a Monday
WARMUP = 4 * DAY                        # bookings made before the week
TAIL = 1 * DAY                          # and after it

# The chaos run's long profile (tests/integration/chaos.py: Profile()
# and the 1-30 s of Chaos._cancel_later), in seconds of that run.
CHAOS_LOAD_SECONDS = 600.0
CHAOS_BOOKINGS = 500
CHAOS_START_WITHIN = (5.0, 90.0)
CHAOS_LENGTH = (10.0, 180.0)
CHAOS_CANCEL_SHARE = 0.1
CHAOS_CANCEL_AFTER = (1.0, 30.0)
SCALE = WEEK / CHAOS_LOAD_SECONDS       # 1008

# name: booked share of the fenced GPU-hours aimed at (None: the chaos
# run's own rate).
SHAPES = collections.OrderedDict([
    ('empty', 0.2), ('busy-50', 0.5), ('busy-70', 0.7), ('busy-90', 0.9),
    ('chaos', None)])

_SPOT = {opt.name: opt.default for opt in spot_conf.spot_opts}
_GUARD = {opt.name: opt.default
          for opt in booking_conf.booking_opts}['guard_seconds']


@dataclasses.dataclass
class Booking:
    index: int
    made: float
    start: float
    end: float
    seats: int
    cancel: float = None      # when it is cancelled, if it is
    # the owner's use: seats, and when they boot and stop
    used: int = 0
    boot: float = 0.0
    stop: float = 0.0
    hosts: dict = None        # {host: seats}; None: refused

    @property
    def runs(self):
        """Whether it reaches its start (not cancelled before)."""
        return self.cancel is None or self.cancel > self.start

    @property
    def until(self):
        """Its real end: the cancel when that comes after the start."""
        if self.cancel is not None and self.cancel > self.start:
            return min(self.end, self.cancel)
        return self.end


def _overlap(a, b, lo=0.0, hi=WEEK):
    return max(0.0, min(b, hi) - max(a, lo))


# Bookings -------------------------------------------------------------------

def parse_seats(text):
    """'1:3,2:1' -> ([1, 2], [3, 1]); '1' -> ([1], [1])."""
    sizes, weights = [], []
    for part in text.split(','):
        size, _, weight = part.partition(':')
        sizes.append(int(size))
        weights.append(float(weight or 1))
    return sizes, weights


def draw_bookings(per_week, args, seed):
    """The chaos pattern at ``per_week`` bookings a week, with the
    owners' use drawn too (from a stream of its own)."""
    rnd = random.Random(seed)
    use_rnd = random.Random(seed + 7919)
    span = WARMUP + WEEK + TAIL
    n = max(1, int(round(per_week * span / WEEK)))
    gap = span / n
    within = [s * SCALE for s in args.start_within]
    length = [s * SCALE for s in CHAOS_LENGTH]
    cancel_after = [s * SCALE for s in CHAOS_CANCEL_AFTER]
    sizes, weights = args.seats
    rows = []
    for i in range(n):
        made = -WARMUP + i * gap
        start = made + rnd.uniform(*within)
        end = start + rnd.uniform(*length)
        seats = rnd.choices(sizes, weights)[0]
        cancel = None
        if rnd.random() < CHAOS_CANCEL_SHARE:
            cancel = made + rnd.uniform(*cancel_after)
        b = Booking(i, made, start, end, seats, cancel)
        wanted = use_rnd.uniform(*args.use) * seats
        b.used = int(wanted) + (use_rnd.random() < wanted - int(wanted))
        span_b = end - start
        b.boot = start + use_rnd.uniform(0, args.boot_late) * span_b
        b.stop = end - use_rnd.uniform(0, args.stop_early) * span_b
        rows.append(b)
    return rows


def _peak(entries, start, end):
    """Most GPUs ``entries`` ([start, hold_end, gpus]) hold at once over
    [start, end)."""
    changes = []
    for s, e, gpus in entries:
        if s < end and start < e:
            changes.append((max(s, start), gpus))
            changes.append((e, -gpus))
    changes.sort()
    peak = load = 0
    for _, delta in changes:
        load += delta
        peak = max(peak, load)
    return peak


def place(bookings, args):
    """Sets each booking's ``hosts`` (None when refused), in the order
    they are made and cancelled; a cancel frees the rest of the window
    for the bookings made after it."""
    calendar = [[] for _ in range(args.hosts)]
    entries = {}
    events = [(b.made, 0, b.index) for b in bookings]
    events += [(b.cancel, 1, b.index) for b in bookings
               if b.cancel is not None]
    events.sort()
    guard = args.guard
    for when, kind, index in events:
        b = bookings[index]
        if kind == 1:
            for host, entry in entries.get(index, ()):
                if b.cancel <= b.start:
                    calendar[host].remove(entry)
                else:
                    entry[1] = b.cancel + guard
            continue
        window = (b.start, b.end + guard)
        fits = {}
        for host in range(args.hosts):
            held = calendar[host]
            held[:] = [e for e in held if e[1] > when]
            fit = (args.gpus - _peak(held, *window)) // args.seat_gpus
            if args.placement == 'first-fit' and fit >= b.seats:
                fits = {host: fit}
                break
            fits[host] = fit
        if args.placement == 'first-fit':
            chosen = ({h: b.seats for h, fit in fits.items()
                       if fit >= b.seats} or None)
        else:
            chosen = maths.place(fits, b.seats)
        b.hosts = chosen
        if chosen:
            entries[index] = []
            for host, seats in chosen.items():
                entry = [b.start, b.end + guard, seats * args.seat_gpus]
                calendar[host].append(entry)
                entries[index].append((host, entry))


def booked_hours(bookings, args):
    return sum(b.seats * args.seat_gpus * _overlap(b.start, b.until)
               for b in bookings if b.hosts and b.runs) / HOUR


def bookings_for(aim, args, seed):
    """The placed bookings of a shape, and the bookings a week made."""
    fenced = args.hosts * args.gpus * WEEK / HOUR
    if aim is None:
        per_week = CHAOS_BOOKINGS * WEEK / (CHAOS_LOAD_SECONDS * SCALE)
        bookings = draw_bookings(per_week, args, seed)
        place(bookings, args)
        return bookings, per_week
    sizes, weights = args.seats
    mean_seats = sum(s * w for s, w in zip(sizes, weights)) / sum(weights)
    mean_hours = sum(CHAOS_LENGTH) / 2 * SCALE / HOUR
    per_week = aim * fenced / (mean_seats * args.seat_gpus * mean_hours)
    for _ in range(8):
        bookings = draw_bookings(per_week, args, seed)
        place(bookings, args)
        share = booked_hours(bookings, args) / fenced
        if abs(share - aim) < 0.01:
            break
        per_week *= min(2.0, aim / max(share, 1e-6))
    return bookings, per_week


# The week, run by run -------------------------------------------------------

def _lent(found):
    """GPUs a budget.Budget lends (its idle seats and unbooked GPUs)."""
    return found.idle_seats + found.unbooked


class Alloc:
    """A booking's seats on one host, as the spot task sees them."""
    __slots__ = ('booking', 'host', 'seats', 'key', 'waiting', 'started',
                 'running')

    def __init__(self, booking, host, seats, gpus):
        self.booking, self.host, self.seats = booking, host, seats
        self.key = 'rsv-%d' % booking.index
        start = BASE + datetime.timedelta(seconds=booking.start)
        end = BASE + datetime.timedelta(seconds=booking.end)
        self.waiting = budget.Held(start, end, seats, gpus, self.key)
        self.started = budget.Held(start, end, seats, gpus, self.key,
                                   started=True)
        self.running = False

    @property
    def held(self):
        return self.started if self.running else self.waiting


MADE, CANCEL, END, STOP, START, BOOT = range(6)


class Week:
    def __init__(self, bookings, args):
        self.args = args
        self.g = args.seat_gpus
        self.G = args.gpus
        self.margin = args.margin
        self.lead = datetime.timedelta(seconds=args.lead_time)
        self.warned_lead = datetime.timedelta(
            seconds=args.lead_time + args.warning_time)
        hosts = range(args.hosts)
        self.visible = [[] for _ in hosts]     # Allocs the manager knows
        self.used = [{} for _ in hosts]        # {key: seats in use}
        self.used_before = [{} for _ in hosts]  # at the previous run
        self.used_gpus = [0] * args.hosts
        self.spot = [collections.deque() for _ in hosts]  # [boot, warned]
        self.pending = [[] for _ in hosts]     # [alloc, seats, since]
        self.allocs = {}
        self.f = collections.Counter()
        self.waits = []                        # seconds a seat waited
        self.used_total = 0                    # owners' GPUs, cloud-wide
        self.last = None
        self.events = []
        for b in bookings:
            if not b.hosts:
                continue
            self.allocs[b.index] = [Alloc(b, h, s, self.g)
                                    for h, s in b.hosts.items()]
            self._push(b.made, MADE, b)
            if not b.runs:
                self._push(b.cancel, CANCEL, b)
                continue
            self._push(b.start, START, b)
            self._push(b.until, END, b)
            stop = min(b.stop, b.until)
            if b.used and b.boot < stop:
                self._push(b.boot, BOOT, b)
                self._push(stop, STOP, b)

    def _push(self, when, kind, b):
        heapq.heappush(self.events, (when, kind, b.index, b))

    def _of_host(self, host, now, used, lead, taken_back=()):
        at = BASE + datetime.timedelta(seconds=now)
        return budget.of_host(self.G, [a.held for a in self.visible[host]],
                              used, at, lead, self.margin, taken_back)

    # the owners' GPUs in use, integrated over the week
    def _use(self, when, host, key, seats):
        if self.last is not None:
            self.f['owner_s'] += self.used_total * _overlap(self.last, when)
        self.last = when
        self.used_total += seats * self.g
        self.used_gpus[host] += seats * self.g
        self.used[host][key] = self.used[host].get(key, 0) + seats

    def _free(self, host):
        return (self.G - self.used_gpus[host] - len(self.spot[host])) // self.g

    def _land(self, when, host, request, wanted, checked):
        """Lands up to ``wanted`` of a waiting boot's seats; counts a
        margin violation when ``checked`` and fewer than the margin's
        seats land with spot servers on the host."""
        got = min(wanted, max(0, self._free(host)))
        if (checked and got < min(wanted, self.margin) and
                self.spot[host] and 0 <= when < WEEK):
            self.f['violations'] += 1
        if got:
            alloc = request[0]
            self._use(when, host, alloc.key, got)
            request[1] -= got
            if when > request[2] and 0 <= when < WEEK:
                self.waits.extend([when - request[2]] * got)
        return got

    def _retry(self, when, host, checked):
        """The host's waiting boots, the margin's seats of each first."""
        queue = self.pending[host]
        if not queue:
            return
        for request in queue:
            self._land(when, host, request, min(request[1], self.margin),
                       checked)
        for request in queue:
            if request[1]:
                self._land(when, host, request, request[1], False)
        queue[:] = [r for r in queue if r[1]]

    def _reclaim(self, host, now, count, cause):
        """The ``count`` oldest spot servers of the host go."""
        spot, f = self.spot[host], self.f
        counted = 0 <= now < WEEK
        for _ in range(count):
            booted, warned = spot.popleft()
            if not counted:
                continue
            f['reclaims'] += 1
            f['reclaimed_run_s'] += now - booted
            if cause != 'calendar':
                f['reclaims_' + cause] += 1
            elif (warned is not None and
                    now - warned >= self.args.warning_time - 1e-6):
                f['reclaims_noticed'] += 1
            elif now - booted < self.args.warning_time:
                f['reclaims_young'] += 1
            else:
                f['reclaims_late'] += 1

    def _event(self, when, kind, b):
        allocs = self.allocs[b.index]
        if kind == MADE:
            for a in allocs:
                self.visible[a.host].append(a)
        elif kind == CANCEL:
            for a in allocs:
                self.visible[a.host].remove(a)
        elif kind == END:
            for a in allocs:
                host = a.host
                if self.args.take_back:
                    # reserve.spot.lending.take_back, at the lease's end;
                    # what of_host without taken_back would not have
                    # asked is the end's, the rest the calendar's.
                    used = self.used[host]
                    units = _lent(self._of_host(host, when, used,
                                                self.lead, {a.key}))
                    over = len(self.spot[host]) - units
                    if over > 0:
                        plain = _lent(self._of_host(host, when, used,
                                                    self.lead))
                        calendar = min(over, max(
                            0, len(self.spot[host]) - plain))
                        self._reclaim(host, when, calendar, 'calendar')
                        self._reclaim(host, when, over - calendar, 'end')
                self.visible[host].remove(a)
        elif kind == START:
            for a in allocs:
                a.running = True
                host = a.host
                over = (len(self.spot[host]) + self.used_gpus[host] +
                        a.seats * self.g - self.G)
                if over > 0 and 0 <= when < WEEK:
                    self.f['starts_held'] += 1
                    self.f['start_gpus_held'] += over
                    if b.start - b.made < self.args.lead_time:
                        self.f['starts_held_short_notice'] += 1
        elif kind == BOOT:
            left = b.used
            for a in allocs:
                seats = min(left, a.seats)
                left -= seats
                if seats:
                    request = [a, seats, when]
                    self._land(when, a.host, request, seats, True)
                    if request[1]:
                        self.pending[a.host].append(request)
        elif kind == STOP:
            for a in allocs:
                host = a.host
                before = len(self.pending[host])
                self.pending[host] = [r for r in self.pending[host]
                                      if r[0] is not a]
                if len(self.pending[host]) < before and 0 <= when < WEEK:
                    self.f['boots_never_landed'] += 1
                seats = self.used[host].get(a.key, 0)
                if seats:
                    self._use(when, host, a.key, -seats)
                    del self.used[host][a.key]
                self._retry(when, host, False)

    def _run(self, now):
        """One run of the spot task at ``now`` (seconds)."""
        args, f = self.args, self.f
        budgets = []
        for host in range(args.hosts):
            used = self.used[host]
            found = self._of_host(host, now, used, self.lead)
            # As lending.py: reservations ending within the warning time
            # take back what they lent.
            at = BASE + datetime.timedelta(seconds=now + args.warning_time)
            ending = {a.held.reservation for a in self.visible[host]
                      if a.held.started and a.held.end <= at}
            later = self._of_host(host, now, used, self.warned_lead, ending)
            if args.forecast == 'ahead':
                ahead = self._of_host(host, now + args.warning_time, used,
                                      self.lead)
                if _lent(ahead) < _lent(later):
                    later = ahead
            over = len(self.spot[host]) - _lent(found)
            budgets.append((found, later, over > 0))
            if over > 0:
                # What the previous run's seats in use would not have
                # asked is the owners' boots'.
                before = _lent(self._of_host(
                    host, now, self.used_before[host], self.lead))
                calendar = min(over, max(0, len(self.spot[host]) - before))
                self._reclaim(host, now, calendar, 'calendar')
                self._reclaim(host, now, over - calendar, 'owner')
            self.used_before[host] = dict(used)
        # New spot servers up to the budget (--fill warned: and to what
        # no booking takes back within the warning time), first fit over
        # the hosts up to the demand.
        room = (args.spot_demand - sum(len(s) for s in self.spot)
                if args.spot_demand else None)
        for host in range(args.hosts):
            spot = self.spot[host]
            found, later, _ = budgets[host]
            units = _lent(found)
            if args.fill == 'forecast':
                units = min(units, _lent(later))
            while len(spot) < units and (room is None or room > 0):
                spot.append([now, None])
                if room is not None:
                    room -= 1
        span = _overlap(now, now + args.step)
        for host in range(args.hosts):
            spot = self.spot[host]
            found, later, _ = budgets[host]
            # Warned: what a booking within lead + warning time, or a
            # reservation ending within the warning time, takes.
            warned = max(0, len(spot) - _lent(later))
            for server in list(spot)[:warned]:
                if server[1] is None:
                    server[1] = now
                    if 0 <= now < WEEK:
                        f['warnings'] += 1
            on_unbooked = min(len(spot), found.unbooked)
            f['spot_s'] += len(spot) * span
            f['spot_idle_s'] += (len(spot) - on_unbooked) * span
            self._retry(now, host, True)

    def run(self):
        step = self.args.step
        now = -HOUR
        while now < WEEK:
            while self.events and self.events[0][0] <= now:
                when, kind, _, b = heapq.heappop(self.events)
                self._event(when, kind, b)
            self._run(now)
            now += step
        self.f['owner_s'] += self.used_total * _overlap(self.last, WEEK)
        return self.f


def simulate(name, aim, args, seed):
    began = time.perf_counter()
    bookings, per_week = bookings_for(aim, args, seed)
    week = Week(bookings, args)
    f = week.run()
    in_week = [b for b in bookings if 0 <= b.made < WEEK]
    planned = sum(b.used * args.seat_gpus *
                  _overlap(b.boot, min(b.stop, b.until))
                  for b in bookings if b.hosts and b.runs and b.used
                  ) / HOUR
    waits = sorted(week.waits)
    row = {name: int(value) for name, value in f.items()}
    row.update({
        'shape': name,
        'per_week': per_week,
        'made': len(in_week),
        'refused': sum(1 for b in in_week if not b.hosts),
        'cancelled': sum(1 for b in in_week
                         if b.hosts and b.cancel is not None),
        'fenced': args.hosts * args.gpus * WEEK / HOUR,
        'booked': booked_hours(bookings, args),
        'planned': planned,
        'owner': f['owner_s'] / HOUR,
        'spot': f['spot_s'] / HOUR,
        'spot_idle': f['spot_idle_s'] / HOUR,
        'reclaimed_run': f['reclaimed_run_s'] / HOUR,
        'waited': len(waits),
        'wait_max': waits[-1] if waits else 0.0,
        'seconds': time.perf_counter() - began,
    })
    return collections.defaultdict(int, row)


# Report ---------------------------------------------------------------------

def _pct(part, whole):
    return 100.0 * part / whole if whole else 0.0


def _row(cells):
    return ' '.join('%-8s' % c if i == 0 else '%7s' % c
                    for i, c in enumerate(cells))


def report(rows, args):
    print('%d hosts x %d GPUs, seats of %d GPU; spot task every %g s, '
          'idle_margin %d, lead_time %d s, warning_time %d s; spot demand '
          '%s, forecast %s, fill %s, take-back at the end %s; placement '
          '%s, seats %s, start %g-%g s of the chaos run after being made; '
          'seed %d' % (
              args.hosts, args.gpus, args.seat_gpus, args.step, args.margin,
              args.lead_time, args.warning_time,
              args.spot_demand or 'unlimited', args.forecast, args.fill,
              'on' if args.take_back else 'off', args.placement,
              args.seats_text, args.start_within[0], args.start_within[1],
              args.seed))
    print()
    print('Bookings made in the week, and its GPU-hours')
    print(_row(('shape', 'a week', 'made', 'refused', 'cancel', 'fenced',
                'booked', 'owner', 'spot', 'on idle', 'lost')))
    for r in rows:
        print(_row((r['shape'], '%.0f' % r['per_week'], r['made'],
                    r['refused'], r['cancelled'], '%.0f' % r['fenced'],
                    '%.0f' % r['booked'], '%.0f' % r['owner'],
                    '%.0f' % r['spot'], '%.0f' % r['spot_idle'],
                    '%.1f' % (round(r['planned'] - r['owner'], 1) + 0.0))))
    print()
    print('Shares of the fenced GPU-hours')
    print(_row(('shape', 'booked', 'owner', 'spot', 'no spot',
                'w/ spot', 'gain')))
    for r in rows:
        without = _pct(r['planned'], r['fenced'])
        with_ = _pct(r['owner'] + r['spot'], r['fenced'])
        print(_row((r['shape'], '%.1f%%' % _pct(r['booked'], r['fenced']),
                    '%.1f%%' % _pct(r['owner'], r['fenced']),
                    '%.1f%%' % _pct(r['spot'], r['fenced']),
                    '%.1f%%' % without, '%.1f%%' % with_,
                    '%+.1f' % (with_ - without))))
    print()
    print('Reclaims (spot GPUs), owners\' waits, and the checks (the last '
          'three must be 0)')
    print(_row(('shape', 'reclaims', 'notice', 'young', 'late', 'owner',
                'end', 'run h', 'warned', 'waited', 'max s', 'violat',
                'starts', 'GPUs')))
    for r in rows:
        print(_row((r['shape'], r['reclaims'], r['reclaims_noticed'],
                    r['reclaims_young'], r['reclaims_late'],
                    r['reclaims_owner'], r['reclaims_end'],
                    '%.0f' % r['reclaimed_run'], r['warnings'], r['waited'],
                    '%.0f' % r['wait_max'], r['violations'],
                    r['starts_held'], r['start_gpus_held'])))
    print()
    print('a week: bookings offered a week; cancel: accepted, then '
          'cancelled; owner: GPU-h in use by the owners (with spot); on '
          'idle: spot GPU-h on idle seats (the rest on unbooked GPUs); '
          'lost: owner GPU-h lost to boots waiting for a reclaim. no '
          'spot: owner use with no spot / fenced; w/ spot: (owner + spot) '
          '/ fenced; gain: points. Reclaims for a booking within the lead '
          'time: with warning_time of notice, without it as the server '
          'was younger than warning_time (young) or warned late (late); '
          'owner: for owners\' boots; end: at a lease\'s end '
          '(taken_back); run h: GPU-h the reclaimed servers had run; '
          'warned: warnings sent; waited: owner seats that waited for a '
          'reclaim (max s: the longest wait); violat: margin violations; '
          'starts / GPUs: bookings whose start found spot servers on '
          'their GPUs.')
    for r in rows:
        if r['boots_never_landed'] or r['starts_held_short_notice']:
            print('%s: %d boots stopped before all their seats landed; '
                  '%d of the starts held by spot were of bookings made '
                  'less than lead_time before their start' % (
                      r['shape'], r['boots_never_landed'],
                      r['starts_held_short_notice']))
    print('(%.1f s)' % sum(r['seconds'] for r in rows))


def _pair(text):
    lo, hi = (float(x) for x in text.split(','))
    return lo, hi


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--hosts', type=int, default=20)
    parser.add_argument('--gpus', type=int, default=4,
                        help='GPUs of each host')
    parser.add_argument('--seat-gpus', type=int, default=1,
                        help='GPUs of one instance (seat) of a booking')
    parser.add_argument('--seats', default='1',
                        help='instances of a booking, size:weight,... '
                             '(default 1: the chaos run\'s)')
    parser.add_argument('--placement', choices=('first-fit', 'reserve'),
                        default='first-fit')
    parser.add_argument('--shapes', default=','.join(SHAPES),
                        help='of %s' % ', '.join(SHAPES))
    parser.add_argument('--start-within', type=_pair,
                        default=CHAOS_START_WITHIN,
                        help='seconds of the chaos run from made to start, '
                             'lo,hi (x %g here)' % SCALE)
    parser.add_argument('--use', type=_pair, default=(0.3, 1.0),
                        help='fraction of its seats an owner uses, lo,hi')
    parser.add_argument('--boot-late', type=float, default=0.2,
                        help='owners boot up to this share of the length '
                             'after the start')
    parser.add_argument('--stop-early', type=float, default=0.2,
                        help='and stop up to this share before the end')
    parser.add_argument('--step', type=float, default=60,
                        help='seconds between two runs of the spot task '
                             '(the service: [spot]interval, %d)'
                             % _SPOT['interval'])
    parser.add_argument('--margin', type=int, default=_SPOT['idle_margin'])
    parser.add_argument('--lead-time', type=int, default=_SPOT['lead_time'])
    parser.add_argument('--warning-time', type=int,
                        default=_SPOT['warning_time'])
    parser.add_argument('--guard', type=int, default=_GUARD,
                        help='hand-over guard after a booking, seconds')
    parser.add_argument('--forecast', choices=('lead', 'ahead'),
                        default='lead',
                        help='what is warned: beyond of_host with '
                             'lead_time + warning_time (lead, as '
                             'reserve.spot.lending does), or also beyond '
                             'of_host warning_time from now (ahead)')
    parser.add_argument('--fill', choices=('budget', 'forecast'),
                        default='forecast',
                        help='new spot servers up to of_host (budget), or '
                             'also to the forecast (forecast, as '
                             'reserve.spot.lending does)')
    parser.add_argument('--no-take-back', dest='take_back',
                        action='store_false',
                        help='no of_host(taken_back=...) reclaim at a '
                             'lease\'s end')
    parser.add_argument('--spot-demand', type=int, default=0,
                        help='GPUs of spot servers wanted cloud-wide '
                             '(0: unlimited)')
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args()
    args.seats_text = args.seats
    args.seats = parse_seats(args.seats)
    names = [n for n in args.shapes.split(',') if n]
    unknown = [n for n in names if n not in SHAPES]
    if unknown:
        parser.error('unknown shapes: %s' % ', '.join(unknown))
    rows = [simulate(name, SHAPES[name], args,
                     args.seed + 101 * list(SHAPES).index(name))
            for name in names]
    report(rows, args)
    bad = [r['shape'] for r in rows
           if r['violations'] or r['starts_held']]
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
