"""Latency of the booking desk's calendar: admission, free slots and
availability, as the number of bookings grows.

Not a test: a script that prints figures. For each backend it builds
throwaway databases and measures, per request, p50 and p99 of

* an admission (reserve.booking.admission.book: lock, gauntlet, quota
  with its recheck, calendar, insert, commit);
* a free-slots answer (admission.free_slots);
* the availability of every flavor for a window (catalogue list +
  admission.availability);

in two shapes: one flavor holding 1,000, 10,000 and 100,000 bookings
(the growth series), and 100,000 bookings across 1,000 flavors. Query
windows are sized so that each overlaps about 100 bookings of its
flavor, so the series shows whether the cost follows the overlapping
bookings or the table; on the 1,000 flavors availability is also asked
for a window that overlaps every booking (the worst case). The headline
shapes are measured again through the whole WSGI stack (webtest,
noauth), as a client sees them.

    python3 tests/benchmarks/bench_calendar.py                # all
    python3 tests/benchmarks/bench_calendar.py --backends sqlite --quick
    python3 tests/benchmarks/bench_calendar.py --shapes catalogue --no-api

MariaDB is reached as tests/fixtures/backends.py does
(RESERVE_TEST_MYSQL_URL, default root@127.0.0.1:3306).
"""
import argparse
import datetime
import math
import os
import random
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))

from oslo_config import cfg  # noqa: E402
import sqlalchemy as sa  # noqa: E402

from reserve.booking import admission  # noqa: E402
from reserve.booking import catalogue  # noqa: E402
from reserve.capacity import model  # noqa: E402
from reserve.common import context as reserve_context  # noqa: E402
from reserve.common import states  # noqa: E402
from reserve.common import timeutils  # noqa: E402
from reserve import conf as reserve_conf  # noqa: E402,F401
from reserve.db import api as db_api  # noqa: E402
from reserve.db import desk  # noqa: E402
from reserve.db import flavors as flavors_db  # noqa: E402
from reserve.db import migration  # noqa: E402
from reserve.db import models  # noqa: E402
from reserve.db import slot_days  # noqa: E402
from tests.fixtures import backends  # noqa: E402
from tests.fixtures import database  # noqa: E402

CONF = cfg.CONF
HOUR = datetime.timedelta(hours=1)
OVERLAP = 100            # bookings a query window should overlap
MEAN_HOURS = 4           # bookings last 1 to 7 hours
PROJECTS = 1000
TARGETS = {'admission': 25.0, 'free_slots': 50.0, 'availability': 500.0}


# Databases -------------------------------------------------------------------

class Database:
    """A throwaway database of ``backend`` with reserve's schema."""

    def __init__(self, backend):
        self.backend = backend
        self.name = 'reserve_bench_%s' % uuid.uuid4().hex[:8]
        if backend == 'sqlite':
            self.dir = tempfile.mkdtemp(prefix='reserve-bench-')
            self.url = 'sqlite:///%s/bench.sqlite' % self.dir
        else:
            admin = sa.create_engine(backends.SERVERS[backend],
                                     isolation_level='AUTOCOMMIT')
            with admin.connect() as conn:
                conn.execute(sa.text('CREATE DATABASE %s' % self.name))
            admin.dispose()
            url = sa.engine.make_url(backends.SERVERS[backend]).set(
                database=self.name)
            if backend == 'mysql':
                url = url.update_query_dict({'charset': 'utf8mb4'})
            self.url = url.render_as_string(hide_password=False)
        CONF.set_override('connection', self.url, group='database')
        database.reset_engine()
        migration.upgrade()

    def drop(self):
        database.reset_engine()
        if self.backend != 'sqlite':
            admin = sa.create_engine(backends.SERVERS[self.backend],
                                     isolation_level='AUTOCOMMIT')
            with admin.connect() as conn:
                conn.execute(sa.text('DROP DATABASE IF EXISTS %s' %
                                     self.name))
            admin.dispose()


def _now():
    return timeutils.utcnow()


def load(flavors, per_flavor, span, rnd):
    """``flavors`` catalogue flavors with ``per_flavor`` bookings each,
    spread over ``span`` from tomorrow on; returns the flavor rows."""
    engine = db_api.get_engine()
    now = _now()
    origin = now + 24 * HOUR
    flavor_rows = [{
        'id': str(uuid.uuid4()), 'name': 'bench-%04d' % i,
        'nova_flavor_id': 'nova-%04d' % i, 'slots': 200, 'active': True,
        'is_public': True, 'max_length_hours': None,
        'longest_booking': 7 * 3600, 'created_at': now, 'updated_at': now,
    } for i in range(flavors)]
    with engine.begin() as conn:
        conn.execute(models.Flavor.__table__.insert(), flavor_rows)
    batch = []
    seconds = int(span.total_seconds())
    statuses = list(states.Booking.LIVE) * 3 + [states.Booking.COMPLETE]
    for flavor in flavor_rows:
        for _ in range(per_flavor):
            start = origin + datetime.timedelta(
                seconds=rnd.randrange(0, seconds, 60))
            batch.append({
                'id': str(uuid.uuid4()),
                'project_id': 'project-%d' % rnd.randrange(PROJECTS),
                'user_id': 'bench', 'flavor_id': flavor['id'],
                'instance_count': rnd.randint(1, 2), 'start': start,
                'end': start + datetime.timedelta(
                    hours=rnd.randint(1, 2 * MEAN_HOURS - 1)),
                'status': rnd.choice(statuses),
                'created_at': now, 'updated_at': now})
            if len(batch) >= 5000:
                with engine.begin() as conn:
                    conn.execute(models.Booking.__table__.insert(), batch)
                batch = []
    if batch:
        with engine.begin() as conn:
            conn.execute(models.Booking.__table__.insert(), batch)
    # The flavors' slots held by day, as the bookings' writes keep them.
    with engine.begin() as conn:
        slot_days.rebuild(conn)
    if engine.dialect.name == 'mysql':
        with engine.begin() as conn:
            conn.execute(sa.text('ANALYZE TABLE bookings, flavors'))
    elif engine.dialect.name == 'sqlite':
        with engine.begin() as conn:
            conn.execute(sa.text('ANALYZE'))
    return flavors_db.flavor_list(reserve_context.get_admin_context())


def span_for(per_flavor, window_hours):
    """The span over which a flavor's bookings spread so that a window of
    ``window_hours`` overlaps about OVERLAP of them."""
    return datetime.timedelta(
        hours=per_flavor * (window_hours + MEAN_HOURS) / OVERLAP)


# Measuring -------------------------------------------------------------------

def percentile(samples, pct):
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(pct / 100.0 * len(ordered)) - 1)]


def timed(func, count):
    samples = []
    for i in range(count):
        began = time.perf_counter()
        func(i)
        samples.append((time.perf_counter() - began) * 1000.0)
    return samples


def _user(rnd):
    project = 'project-%d' % rnd.randrange(PROJECTS)
    return reserve_context.RequestContext(user_id='bench',
                                          project_id=project,
                                          roles=['member', 'reader'])


ALL = 'all'             # availability hours: a window over every booking


def _window(rnd, span, hours):
    origin = _now() + 24 * HOUR
    if hours == ALL:
        # Bookings start within the span and last under 2 * MEAN_HOURS.
        return origin, origin + span + 2 * MEAN_HOURS * HOUR
    start = origin + datetime.timedelta(
        seconds=rnd.randrange(0, int(span.total_seconds() -
                                     hours * 3600), 60))
    return start, start + datetime.timedelta(hours=hours)


def overlap_of(flavor, span, hours, rnd, samples=20):
    """Bookings the calendar reads for a window, on average."""
    ctx = reserve_context.get_admin_context()
    seen = []
    for _ in range(samples):
        start, end = _window(rnd, span, hours)
        seen.append(len(desk.bookings_in_window(
            ctx, [flavor], start, end + model.guard(),
            model.guard())[flavor.id]))
    return sum(seen) / len(seen)


def handler_reads(flavor, span, hours, rnd):
    """MariaDB: index entries read by one calendar query (what the scan
    costs, whatever the timer says)."""
    engine = db_api.get_engine()
    if engine.dialect.name != 'mysql':
        return None
    start, end = _window(rnd, span, hours)
    guard = model.guard()
    b = models.Booking
    query = (sa.select(b.flavor_id, b.start, b.end,
                       b.instance_count)
             .where(b.flavor_id.in_([flavor.id]))
             .where(b.end > start - guard)
             .where(b.end <= end + guard +
                    datetime.timedelta(seconds=flavor.longest_booking))
             .where(b.start < end + guard)
             .where(b.status.in_(states.Booking.LIVE)))
    with engine.connect() as conn:
        def reads():
            rows = conn.execute(sa.text(
                "SHOW SESSION STATUS LIKE 'Handler_read%'")).all()
            return sum(int(value) for _, value in rows)
        before = reads()
        conn.execute(query).all()
        return reads() - before


def measure_availability(flavors, span, hours, rnd, count):
    admin = reserve_context.get_admin_context()

    def availability(i):
        start, end = _window(rnd, span, hours)
        listed = catalogue.visible_list(admin, True)
        admission.availability(admin, listed, start, end)

    return timed(availability, count)


def measure_core(flavors, span, hours, availability_hours, rnd, count):
    """Per-request latencies of the desk's own functions, in ms."""
    target = flavors[0]
    ok = []

    def book(i):
        start, end = _window(rnd, span, hours)
        try:
            admission.book(_user(rnd), target, start, end, 1)
            ok.append(1)
        except Exception:  # noqa: BLE001 - a refusal is a request too
            ok.append(0)

    def free(i):
        start, end = _window(rnd, span, hours)
        admission.free_slots(_user(rnd), target, start, end, 1, False)

    results = {'admission': timed(book, count),
               'free_slots': timed(free, count),
               'availability': measure_availability(
                   flavors, span, availability_hours, rnd,
                   max(10, count // 10))}
    return results, sum(ok) / len(ok)


def measure_api(flavors, span, hours, availability_hours, rnd, count):
    """The same three requests through the whole WSGI stack."""
    from oslo_messaging import conffixture
    import webtest

    from reserve.api import app as api_app
    from reserve.common import policy
    from reserve.common import rpc

    conffixture.ConfFixture(CONF)
    CONF.set_override('auth_strategy', 'noauth', group='api')
    CONF.set_override('transport_url', 'fake://')
    rpc.cleanup()
    policy.reset()
    app = webtest.TestApp(api_app.setup_app(),
                          extra_environ={'REMOTE_ADDR': '127.0.0.1'})
    target = flavors[0]

    def headers():
        return {'X-User-Id': 'bench', 'X-Roles': 'member,reader',
                'X-Project-Id': 'project-%d' % rnd.randrange(PROJECTS)}

    def iso(value):
        return timeutils.isoformat(value)

    def book(i):
        start, end = _window(rnd, span, hours)
        app.post_json('/v1/reservations', {
            'flavor_id': target.id, 'start': iso(start), 'end': iso(end)},
            headers=headers(), expect_errors=True)

    def free(i):
        start, end = _window(rnd, span, hours)
        app.get('/v1/flavors/%s/free-slots?start=%s&end=%s' % (
            target.id, iso(start), iso(end)), headers=headers())

    def availability(i):
        start, end = _window(rnd, span, availability_hours)
        app.get('/v1/flavors/availability?start=%s&end=%s' % (
            iso(start), iso(end)), headers=headers())

    try:
        return {'admission': timed(book, count),
                'free_slots': timed(free, count),
                'availability': timed(availability, max(10, count // 10))}
    finally:
        rpc.cleanup()
        policy.reset()


# Reporting -------------------------------------------------------------------

def _hours(hours):
    return 'all-bookings' if hours == ALL else '%g h' % hours


def line(label, name, samples, extra=''):
    p50, p99 = percentile(samples, 50), percentile(samples, 99)
    target = TARGETS[name]
    print('  %-41s %-12s n=%-4d p50 %8.2f ms  p99 %8.2f ms  [%s p99 <= '
          '%g ms]%s' % (label, name, len(samples), p50, p99,
                        'within' if p99 <= target else 'OVER', target,
                        extra))


def run_shape(backend, flavors, per_flavor, span_hours, window_hours,
              availability_hours, rnd, count, api):
    """One database shape: ``flavors`` x ``per_flavor`` bookings spread
    over ``span_hours``; admissions and free slots ask windows of
    ``window_hours``, availability windows of each ``availability_hours``.
    """
    span = datetime.timedelta(hours=span_hours)
    db = Database(backend)
    try:
        began = time.perf_counter()
        rows = load(flavors, per_flavor, span, rnd)
        loaded = time.perf_counter() - began
        label = '%d bookings on %d flavor%s' % (
            flavors * per_flavor, flavors, 's' if flavors > 1 else '')
        overlap = overlap_of(rows[0], span, window_hours, rnd)
        reads = handler_reads(rows[0], span, window_hours, rnd)
        print('%s, %s: loaded in %.1f s; a %g h window overlaps %.0f '
              'live bookings of its flavor%s' % (
                  backend, label, loaded, window_hours, overlap,
                  '; the calendar query reads %d index entries' % reads
                  if reads is not None else ''))
        if ALL in availability_hours:
            start, end = _window(rnd, span, ALL)
            met = desk.bookings_in_window(
                reserve_context.get_admin_context(), rows, start, end,
                model.guard())
            print('  the all-bookings window meets %d live bookings' %
                  sum(len(found) for found in met.values()))
        results, accepted = measure_core(rows, span, window_hours,
                                         availability_hours[0], rnd, count)
        for name, samples in results.items():
            line(label, name, samples,
                 '  accepted %d%%' % (accepted * 100)
                 if name == 'admission' else
                 '  (%s window)' % _hours(availability_hours[0])
                 if name == 'availability' else '')
        for hours in availability_hours[1:]:
            samples = measure_availability(rows, span, hours, rnd,
                                           max(10, count // 10))
            line(label, 'availability', samples,
                 '  (%s window)' % _hours(hours))
        if api:
            for name, samples in measure_api(rows, span, window_hours,
                                             availability_hours[0], rnd,
                                             count).items():
                line(label + ' (HTTP)', name, samples)
        sys.stdout.flush()
    finally:
        db.drop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--backends', default='sqlite,mysql')
    parser.add_argument('--requests', type=int, default=400,
                        help='requests measured per figure')
    parser.add_argument('--quick', action='store_true',
                        help='smaller shapes, fewer requests')
    parser.add_argument('--shapes', default='growth,catalogue',
                        help='growth (one flavor, ever more bookings), '
                             'catalogue (100,000 bookings on 1,000 '
                             'flavors), or both')
    parser.add_argument('--no-api', action='store_true',
                        help='skip the figures through the WSGI stack')
    args = parser.parse_args()
    shapes = args.shapes.split(',')
    CONF([], project='reserve', default_config_files=[])
    CONF.set_override('reservations', 10 ** 6, group='quota')
    CONF.set_override('instance_hours', 10 ** 9, group='quota')
    rnd = random.Random(2026)
    count = 50 if args.quick else args.requests
    growth = (1000, 10000) if args.quick else (1000, 10000, 100000)
    window = 4
    for backend in args.backends.split(','):
        print('== %s ==' % backend)
        # One flavor: the same density of bookings, ever more of them.
        for per_flavor in growth if 'growth' in shapes else ():
            run_shape(backend, 1, per_flavor,
                      per_flavor * (window + MEAN_HOURS) / OVERLAP, window,
                      (window,), rnd, count,
                      api=per_flavor == growth[-1] and not args.no_api)
        if args.quick or 'catalogue' not in shapes:
            continue
        # 1,000 flavors of 100 bookings over 80 h: a 76 h window overlaps
        # about the 100 of its flavor; availability over 4 h meets ~10
        # per flavor, over 76 h most of the 100,000, over the whole span
        # every one.
        run_shape(backend, 1000, 100, 80, 76, (4, 76, ALL), rnd, count,
                  api=not args.no_api)


if __name__ == '__main__':
    main()
