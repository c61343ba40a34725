"""Latency of a capacity decision -- admission with its choice of hosts
-- beside blazar 18.0.0's pickup_hosts, on the same shapes.

Not a test: a script that prints figures. For each shape of shapes.py
(hosts x bookings already on them) and each backend it builds a
throwaway database holding the shape (a reservable nova host per host,
one catalogue flavor, and per booking its ``bookings`` row and its claim
in ``allocations``), then times ``reserve.booking.admission.book`` --
capacity lock, gauntlet, quota (ConfigDriver; --recheck for nova's recheck),
the flavor's slot calendar, the claims of the window, the choice of
hosts, the booking and its claims written, commit -- over the windows
of ``shape.requests(N)``, after one warm-up decision on a window outside
them (the hosts' records are cached per process from then on).

Decision i is made by the project of the shape's i-th booking (the
bookings spread over --projects projects; with --projects 1 every one
is the deciding project's, and its quota reads all of them). Times are
wall clock (the p50/p99 of the issue) and this process's CPU time,
which a busy machine disturbs less (MariaDB's own work is not in it).
The shape's rows are frozen out of the garbage collector's way first.

Per decision it counts the SQL statements sent on reserve's engine, the
calls to reserve's nova and placement clients and the HTTP requests
made (any of those fails the run: a decision must not call a cloud),
the rows the decision reads (claims of the window, bookings of the
flavor's calendar, the project's live bookings for its quota), and the
time spent in each step (PHASES).

"Flat" compares, for the same hosts, the fewest bookings with the most
(denser: a window meets ten times the bookings), and with the most
spread over a ten times longer span (as dense: only the bookings
outside the windows grow), which only reserve's side runs.

blazar's side runs blazar_pickup.py with the virtualenv of
blazar_venv.sh (blazar from PyPI, in process, on SQLite), with fewer
decisions on the big shapes (it takes seconds per decision there).

    .venv/bin/python tests/benchmarks/bench_decision.py       # all
    .venv/bin/python tests/benchmarks/bench_decision.py \\
        --hosts 100,1000 --bookings 10000,100000 --backends sqlite,mysql
    .venv/bin/python tests/benchmarks/bench_decision.py --hosts 10000 \\
        --no-blazar --profile

MariaDB is reached as tests/fixtures/backends.py does
(RESERVE_TEST_MYSQL_URL, default root@127.0.0.1:3306).
"""
import argparse
import contextlib
import cProfile
import datetime
import gc
import io
import json
import math
import os
import platform
import pstats
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)

from keystoneauth1 import session as ks_session  # noqa: E402
from oslo_config import cfg  # noqa: E402
import requests  # noqa: E402
import sqlalchemy as sa  # noqa: E402

from reserve.booking import admission  # noqa: E402
from reserve.booking import calendar  # noqa: E402
from reserve.booking import quota  # noqa: E402
from reserve.capacity import maths  # noqa: E402
from reserve.capacity import model  # noqa: E402
from reserve.capacity import store  # noqa: E402
from reserve.common import context as reserve_context  # noqa: E402
from reserve.common import exception  # noqa: E402
from reserve.common import keystone  # noqa: E402
from reserve.common import nova  # noqa: E402
from reserve.common import placement  # noqa: E402
from reserve.common import states  # noqa: E402
from reserve import conf as reserve_conf  # noqa: E402,F401
from reserve.db import api as db_api  # noqa: E402
from reserve.db import bookings as bookings_db  # noqa: E402
from reserve.db import desk  # noqa: E402
from reserve.db import flavors as flavors_db  # noqa: E402
from reserve.db import models  # noqa: E402
import shapes  # noqa: E402
from tests.fixtures import backends  # noqa: E402

CONF = cfg.CONF
BATCH = 10000                       # rows per executemany
PROJECT = 'bench-project'           # the project deciding
BLAZAR_VENV = os.path.join(HERE, 'blazar_venv.sh')
BLAZAR_PICKUP = os.path.join(HERE, 'blazar_pickup.py')
# p99 targets of the issue, in ms, by hosts; and how much faster than
# blazar's p50 reserve's p99 must be at 1,000 hosts x 100k bookings.
TARGET_SMALL, TARGET_LARGE, LARGE = 25.0, 100.0, 10000
RATIO_TARGET = 300.0


class CloudCalled(AssertionError):
    """A decision called a cloud: the run fails."""


# The database ----------------------------------------------------------------

@contextlib.contextmanager
def throwaway(backend):
    """A new empty database of ``backend`` that reserve's engine uses;
    dropped (its directory removed, for SQLite) however the block ends.
    Yields its URL."""
    name = 'reserve_bench_%s' % uuid.uuid4().hex[:10]
    directory = admin = None
    try:
        if backend == 'sqlite':
            directory = tempfile.mkdtemp(prefix='reserve-bench-')
            url = 'sqlite:///%s/bench.sqlite' % directory
        else:
            admin = sa.create_engine(backends.SERVERS[backend],
                                     isolation_level='AUTOCOMMIT')
            with admin.connect() as conn:
                conn.execute(sa.text('CREATE DATABASE %s' % name))
            made = admin.url.set(database=name)
            if backend == 'mysql':
                made = made.update_query_dict({'charset': 'utf8mb4'})
            url = made.render_as_string(hide_password=False)
        CONF.set_override('connection', url, group='database')
        db_api.reset_engine()
        yield url
    finally:
        db_api.reset_engine()
        CONF.clear_override('connection', group='database')
        if directory is not None:
            shutil.rmtree(directory, ignore_errors=True)
        if admin is not None:
            try:
                with admin.connect() as conn:
                    conn.execute(sa.text('DROP DATABASE IF EXISTS %s' %
                                         name))
            except sa.exc.DBAPIError as exc:
                print('  could not drop database %s: %s' % (name, exc),
                      file=sys.stderr)
            admin.dispose()


def _ids(rnd):
    """Deterministic UUIDs: hosts sort (and tie) the same in every run
    and on every backend."""
    while True:
        yield str(uuid.UUID(int=rnd.getrandbits(128), version=4))


def project_of(index, projects):
    """The project of the shape's ``index``-th booking: PROJECT itself
    for one in ``projects``."""
    spread = index % projects
    return PROJECT if not spread else '%s-%04d' % (PROJECT, spread)


def _insert(conn, table, rows):
    for i in range(0, len(rows), BATCH):
        conn.execute(table.insert(), rows[i:i + BATCH])


def build(engine, shape, projects, seed):
    """Write ``shape`` in reserve's tables, as enrolment and admission
    would have; returns the catalogue flavor's id."""
    ids = _ids(random.Random(seed))
    now = datetime.datetime.now(datetime.timezone.utc).replace(
        tzinfo=None, microsecond=0)
    stamps = {'created_at': now, 'updated_at': now}
    longest = max(int((b['end'] - b['start']).total_seconds())
                  for b in shape.bookings)
    models.Base.metadata.create_all(engine)
    hosts = [dict(stamps, id=next(ids), kind='nova', name=host['name'],
                  service_name=host['name'], vcpus=host['vcpus'],
                  memory_mb=host['memory_mb'], local_gb=host['disk_gb'],
                  reservable=True)
             for host in shape.hosts]
    flavor_id = next(ids)
    size = shape.flavor
    flavor = dict(stamps, id=flavor_id, name='bench',
                  nova_flavor_id='bench', slots=10 ** 6, active=True,
                  is_public=True, max_length_hours=None,
                  longest_booking=longest, nova_flavor={
                      'id': 'bench', 'name': 'bench',
                      'vcpus': size['vcpus'],
                      'memory_mb': size['memory_mb'],
                      'disk_gb': size['disk_gb'], 'ephemeral_gb': 0,
                      'swap_mb': 0, 'extra_specs': {}})
    bookings, claims = [], []
    for i, booking in enumerate(shape.bookings):
        booking_id = next(ids)
        bookings.append(dict(
            stamps, id=booking_id, project_id=project_of(i, projects),
            user_id='bench', flavor_id=flavor_id,
            instance_count=booking['count'], start_date=booking['start'],
            end_date=booking['end'], status=states.Booking.ALLOCATED))
        claims.append(dict(
            stamps, id=next(ids), host_id=hosts[booking['host']]['id'],
            count=booking['count'], start_date=booking['start'],
            end_date=booking['end'], booking_id=booking_id,
            reservation_id=None, vcpus=booking['vcpus'],
            memory_mb=booking['memory_mb'], disk_gb=booking['disk_gb']))
    with engine.begin() as conn:
        _insert(conn, models.Host.__table__, hosts)
        _insert(conn, models.Flavor.__table__, [flavor])
        _insert(conn, models.Booking.__table__, bookings)
        _insert(conn, models.Allocation.__table__, claims)
        _insert(conn, models.CapacityState.__table__, [
            dict(stamps, id=1, generation=1, longest_claim=longest)])
    with engine.begin() as conn:
        if engine.dialect.name == 'mysql':
            conn.execute(sa.text('ANALYZE TABLE hosts, flavors, bookings, '
                                 'allocations'))
        elif engine.dialect.name == 'sqlite':
            conn.execute(sa.text('ANALYZE'))
    return flavor_id


# Counting --------------------------------------------------------------------

class Statements:
    """The statements sent on an engine, and the SELECTs among them."""

    def __init__(self, engine):
        self.engine = engine
        self.statements = self.selects = 0
        sa.event.listen(engine, 'before_cursor_execute', self._count)

    def _count(self, conn, cursor, statement, parameters, context,
               executemany):
        self.statements += 1
        if statement.lstrip()[:6].upper() == 'SELECT':
            self.selects += 1

    def close(self):
        sa.event.remove(self.engine, 'before_cursor_execute', self._count)


class Clouds:
    """Every public method (and lazy client property) of reserve's nova
    and placement clients, keystone's adapters and any HTTP request are
    counted and fail: a decision must not leave the database."""

    def __init__(self):
        self.calls = []
        self.http = []
        self._stack = contextlib.ExitStack()

    def __enter__(self):
        for cls in (nova.NovaClient, placement.PlacementClient):
            for name, attr in list(vars(cls).items()):
                if name.startswith('__'):
                    continue
                label = '%s.%s' % (cls.__name__, name)
                if isinstance(attr, property):
                    fake = property(self._refuse(self.calls, label))
                elif callable(attr):
                    fake = self._refuse(self.calls, label)
                else:
                    continue
                self._stack.enter_context(
                    mock.patch.object(cls, name, fake))
        for owner, name in ((keystone, 'get_adapter'),
                            (ks_session.Session, 'request'),
                            (requests.Session, 'request')):
            self._stack.enter_context(mock.patch.object(
                owner, name, self._refuse(self.http, '%s.%s' % (
                    getattr(owner, '__name__', owner), name))))
        return self

    def __exit__(self, *exc):
        return self._stack.__exit__(*exc)

    @staticmethod
    def _refuse(record, label):
        def refuse(*args, **kwargs):
            record.append(label)
            raise CloudCalled('a decision called %s' % label)
        return refuse


def _rows(found):
    """Rows of a {key: [rows]} answer."""
    return sum(len(rows) for rows in found.values())


# What a decision spends its time in: (owner, attribute, label, rows
# read or None, nested in an entry above). Whatever is not in one of the
# top-level entries is "rest": the transaction's begin and commit, the
# gauntlet, sizing and the ORM's own work.
PHASES = (
    (store, 'lock', 'lock', None, False),
    (flavors_db, 'flavor_lock', 'flavor lock', None, False),
    (desk, 'maintenance_in_window', 'maintenance', None, False),
    (quota, 'enforce', 'quota', None, False),
    (desk, 'project_usage', 'quota read', None, True),
    (desk, 'slot_holders', 'calendar read', len, False),
    (calendar, 'max_count', 'calendar maths', None, False),
    (store, 'hosts', 'hosts', None, False),
    (store, 'claims_in_window', 'claims read', _rows, False),
    (store, 'host_windows_in', 'host windows', None, False),
    (model.Board, 'offer', 'offer', None, False),
    (maths, 'place', 'place', None, False),
    (bookings_db, 'booking_create', 'booking write', None, False),
    (store, 'claims_create', 'claims write', None, False),
    (quota, 'recheck', 'recheck', None, False),
)


class Phases:
    """Time spent in (and rows read by) the steps of PHASES."""

    def __init__(self):
        self.totals = {label: [0.0, 0] for _, _, label, _, _ in PHASES}
        self._stack = contextlib.ExitStack()

    def __enter__(self):
        for owner, name, label, size, _ in PHASES:
            self._stack.enter_context(mock.patch.object(
                owner, name, self._timed(getattr(owner, name),
                                         self.totals[label], size)))
        return self

    def __exit__(self, *exc):
        return self._stack.__exit__(*exc)

    @staticmethod
    def _timed(real, entry, size):
        def timed(*args, **kwargs):
            began = time.perf_counter()
            try:
                found = real(*args, **kwargs)
            finally:
                entry[0] += time.perf_counter() - began
            if size is not None:
                entry[1] += size(found)
            return found
        return timed

    def snapshot(self):
        return {label: tuple(v) for label, v in self.totals.items()}

    @staticmethod
    def per_decision(before, after, n, total_s):
        """{label: (ms, rows)} per decision, with 'rest'."""
        found = {label: ((after[label][0] - before[label][0]) * 1000.0 / n,
                         (after[label][1] - before[label][1]) / n)
                 for label in after}
        top = sum(found[label][0] for _, _, label, _, nested in PHASES
                  if not nested)
        found['rest'] = (total_s * 1000.0 / n - top, 0)
        return found


# Measuring -------------------------------------------------------------------

def percentile(samples, pct):
    """Nearest rank, as blazar_pickup.py has it."""
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(pct / 100.0 * len(ordered)) - 1)]


def decide(flavor, window, project):
    """One decision of ``project``; True when admitted, False when
    refused for want of capacity (anything else fails the run)."""
    user = reserve_context.RequestContext(user_id='bench',
                                          project_id=project,
                                          roles=['member', 'reader'])
    try:
        admission.book(user, flavor, window['start'], window['end'],
                       window['amount'])
        return True
    except exception.NoCapacity:
        return False


def profile(flavor, window, top):
    """cProfile of one decision, the top functions by cumulative and by
    own time, as text."""
    profiler = cProfile.Profile()
    profiler.enable()
    decide(flavor, window, PROJECT)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats('cumulative').print_stats(top)
    stats.sort_stats('tottime').print_stats(top)
    return out.getvalue()


def measure(args, shape, backend):
    """Build ``shape`` on a throwaway ``backend`` and time the decisions;
    returns a dict of figures."""
    result = {'backend': backend, 'hosts': len(shape.hosts),
              'bookings': len(shape.bookings)}
    with throwaway(backend):
        engine = db_api.get_engine()
        began = time.perf_counter()
        flavor_id = build(engine, shape, args.projects, args.seed)
        result['build_s'] = time.perf_counter() - began
        flavor = flavors_db.flavor_get(reserve_context.get_admin_context(),
                                       flavor_id)
        n = args.decisions
        # Timed: shape.requests(n), the windows blazar's side times; the
        # warm-up (and the profiled decision) take the next ones.
        windows = list(shape.requests(n + 2))
        statements = Statements(engine)
        # The shape's rows (this script's, not reserve's) out of the
        # garbage collector's way: its full collections would otherwise
        # walk them in the middle of a decision.
        gc.collect()
        gc.freeze()
        try:
            with Clouds() as clouds, Phases() as phases:
                began = time.perf_counter()
                decide(flavor, windows[n], PROJECT)         # warm-up
                warmup = (time.perf_counter() - began) * 1000.0
                samples, cpu, admitted = [], [], 0
                sql = [statements.statements, statements.selects]
                before = phases.snapshot()
                load = os.getloadavg()[0]
                for i, window in enumerate(windows[:n]):
                    # Each by the project of the shape's i-th booking.
                    project = project_of(i, args.projects)
                    began = time.perf_counter()
                    began_cpu = time.process_time()
                    admitted += decide(flavor, window, project)
                    samples.append((time.perf_counter() - began) * 1000.0)
                    cpu.append((time.process_time() - began_cpu) * 1000.0)
                load = max(load, os.getloadavg()[0])
                sql = [statements.statements - sql[0],
                       statements.selects - sql[1]]
                spent = Phases.per_decision(before, phases.snapshot(), n,
                                            sum(samples) / 1000.0)
                calls, http = len(clouds.calls), len(clouds.http)
                if args.profile:
                    result['profile'] = profile(flavor, windows[n + 1],
                                                args.profile_top)
        finally:
            gc.unfreeze()
            statements.close()
    result.update({
        'n': n, 'admitted': admitted,
        'p50_ms': percentile(samples, 50),
        'p99_ms': percentile(samples, 99), 'max_ms': max(samples),
        'cpu_p50_ms': percentile(cpu, 50), 'cpu_p99_ms': percentile(cpu, 99),
        'load': load, 'phases': spent, 'warmup_ms': warmup,
        'sql': sql[0] / n, 'selects': sql[1] / n,
        'cloud': calls / n, 'http': http / n,
        'claims_read': spent['claims read'][1],
        'calendar_read': spent['calendar read'][1],
    })
    return result


# blazar ----------------------------------------------------------------------

def blazar_python(args):
    """(the blazar venv's python, None) or (None, why not)."""
    if args.no_blazar:
        return None, 'skipped (--no-blazar)'
    try:
        done = subprocess.run(['bash', BLAZAR_VENV], capture_output=True,
                              text=True, timeout=3600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, 'no blazar venv: %s' % exc
    lines = done.stdout.strip().splitlines()
    if done.returncode or not lines:
        return None, 'no blazar venv: %s' % (
            done.stderr.strip().splitlines() or ['blazar_venv.sh failed'])[-1]
    return lines[-1], None


def blazar_decisions(args, hosts):
    if args.blazar_decisions:
        return args.blazar_decisions
    return min(args.decisions, 20 if hosts <= 100 else
               5 if hosts <= 1000 else 2)


def run_blazar(args, python, hosts, bookings):
    """blazar_pickup.py's JSON figures on the shape, or {'error': ...}."""
    command = [python, BLAZAR_PICKUP, '--hosts', str(hosts),
               '--bookings', str(bookings), '--seed', str(args.seed),
               '--decisions', str(blazar_decisions(args, hosts))]
    try:
        done = subprocess.run(command, capture_output=True, text=True,
                              timeout=args.blazar_timeout)
    except subprocess.TimeoutExpired:
        return {'error': 'timed out after %d s' % args.blazar_timeout}
    lines = done.stdout.strip().splitlines()
    if done.returncode or not lines:
        tail = done.stderr.strip().splitlines() or ['no output']
        return {'error': 'exit %d: %s' % (done.returncode, tail[-1])}
    return json.loads(lines[-1])


# Reporting -------------------------------------------------------------------

def hardware(backends_used):
    cpu = 'unknown CPU'
    with contextlib.suppress(OSError):
        with open('/proc/cpuinfo') as info:
            for text in info:
                if text.startswith('model name'):
                    cpu = text.split(':', 1)[1].strip()
                    break
    mariadb = 'not used'
    if 'mysql' in backends_used:
        admin = sa.create_engine(backends.SERVERS['mysql'])
        try:
            with admin.connect() as conn:
                mariadb = conn.execute(sa.text('SELECT VERSION()')).scalar()
        except sa.exc.OperationalError as exc:
            mariadb = 'unreachable (%s)' % exc.orig
        finally:
            admin.dispose()
    return ('hardware: %d cores (%s), load average %s; Python %s; '
            'SQLite %s; MariaDB %s; SQLAlchemy %s' % (
                os.cpu_count(), cpu,
                ' '.join('%.1f' % v for v in os.getloadavg()),
                platform.python_version(), sqlite3.sqlite_version,
                mariadb, sa.__version__))


def target_of(hosts):
    return TARGET_LARGE if hosts >= LARGE else TARGET_SMALL


def verdict(result, blazar):
    """'ok', or what the figures miss of the issue's targets."""
    missed = []
    target = target_of(result['hosts'])
    if result['p99_ms'] > target:
        missed.append('p99>%g' % target)
    if result['cloud'] or result['http']:
        missed.append('cloud calls')
    ratio = _ratio(result, blazar)
    if (ratio is not None and result['hosts'] == 1000 and
            result['bookings'] == 100000 and ratio < RATIO_TARGET):
        missed.append('ratio<%g' % RATIO_TARGET)
    return ', '.join(missed) or 'ok'


def _ratio(result, blazar):
    if not blazar or 'p50_ms' not in blazar:
        return None
    return blazar['p50_ms'] / result['p99_ms']


def label_of(result):
    text = '%dx%dk' % (result['hosts'], result['bookings'] // 1000)
    if result['span_days'] != shapes.SPAN_DAYS:
        text += '/%gy' % (result['span_days'] / float(shapes.SPAN_DAYS))
    return text


def report_line(result):
    print('  %s %s: built in %.1f s; warm-up decision (reads the hosts) '
          '%.0f ms; %d decisions, '
          '%d admitted; p50 %.2f ms, p99 %.2f ms, max %.2f ms (this '
          'process\'s CPU: p50 %.2f ms, p99 %.2f ms; load average up to '
          '%.1f); %.1f SQL (%.1f SELECT), %.1f cloud calls, %.1f HTTP per '
          'decision; rows read per decision: %.0f claims, %.0f calendar '
          'bookings, one quota sum' % (
              result['backend'], label_of(result), result['build_s'],
              result['warmup_ms'], result['n'], result['admitted'],
              result['p50_ms'], result['p99_ms'], result['max_ms'],
              result['cpu_p50_ms'], result['cpu_p99_ms'], result['load'],
              result['sql'], result['selects'], result['cloud'],
              result['http'], result['claims_read'],
              result['calendar_read']))
    print('    ms per decision: %s' % ', '.join(
        '%s %.2f' % (label, ms) for label, (ms, _)
        in result['phases'].items()), flush=True)


def table(results, blazars):
    header = ('%-14s %-7s %4s %7s %7s %7s %7s %10s %5s %4s %4s %8s %8s '
              '%8s %s' % ('shape', 'backend', 'n', 'p50 ms', 'p99 ms',
                          'max ms', 'cpu p50', 'SQL(SEL)', 'cloud', 'HTTP',
                          'bl n', 'blazar50', 'blazar99', 'bl50/p99',
                          'verdict'))
    print(header)
    print('-' * len(header))
    for r in results:
        shape = label_of(r)
        blazar = blazars.get((r['hosts'], r['bookings'],
                              r['span_days'])) or {}
        ratio = _ratio(r, blazar)
        if 'p50_ms' in blazar:
            bl = '%4d %8.1f %8.1f %8.0f' % (
                blazar['n'], blazar['p50_ms'], blazar['p99_ms'], ratio)
        else:
            bl = '%4s %8s %8s %8s' % ('-', '-', '-', '-')
        print('%-14s %-7s %4d %7.2f %7.2f %7.2f %7.2f %4.1f(%4.1f) %5.1f '
              '%4.1f %s %s' % (shape, r['backend'], r['n'], r['p50_ms'],
                               r['p99_ms'], r['max_ms'], r['cpu_p50_ms'],
                               r['sql'], r['selects'], r['cloud'],
                               r['http'], bl, verdict(r, blazar)))
    for key, blazar in sorted(blazars.items()):
        key = key[:2]
        if blazar and 'p50_ms' in blazar:
            print('blazar %dx%dk (sqlite, FK indexes %s): built in %.1f s, '
                  '%.1f SQL (%.1f SELECT), %.1f cloud calls per decision, '
                  '%d of %d admitted' % (
                      key[0], key[1] // 1000,
                      'on' if blazar.get('fk_indexes') else 'off',
                      blazar['build_s'], blazar['sql_per_decision'],
                      blazar['selects_per_decision'],
                      blazar['cloud_calls_per_decision'],
                      blazar['admitted'], blazar['n']))
        elif blazar:
            print('blazar %dx%dk: %s' % (key[0], key[1] // 1000,
                                         blazar.get('error')))


def flat(results):
    """Same hosts and backend: the fewest bookings against the most,
    over the same span (denser: the windows meet more of them) and
    spread over a longer one (as dense: only those outside grow)."""
    print('flat in the bookings (same hosts; p50 / p99 / CPU p50 ms; '
          'claims read per decision):')
    by = {}
    for r in results:
        by.setdefault((r['backend'], r['hosts']), []).append(r)
    found = False
    for (backend, hosts), rs in sorted(by.items()):
        year = sorted((r for r in rs if r['span_days'] == shapes.SPAN_DAYS),
                      key=lambda r: r['bookings'])
        if not year:
            continue
        low = year[0]
        for high in year[1:] + [r for r in rs if r['span_days'] !=
                                shapes.SPAN_DAYS]:
            found = True
            print('  %-7s %-10s %6.2f / %6.2f / %6.2f (%4.0f) | %-14s '
                  '%6.2f / %6.2f / %6.2f (%4.0f) | p50 x%.2f, CPU p50 '
                  'x%.2f %s' % (
                      backend, label_of(low), low['p50_ms'], low['p99_ms'],
                      low['cpu_p50_ms'], low['claims_read'],
                      label_of(high), high['p50_ms'], high['p99_ms'],
                      high['cpu_p50_ms'], high['claims_read'],
                      high['p50_ms'] / low['p50_ms'],
                      high['cpu_p50_ms'] / low['cpu_p50_ms'],
                      '(as dense: flat?)' if high['span_days'] !=
                      shapes.SPAN_DAYS else '(denser)'))
    if not found:
        print('  (needs two --bookings for the same hosts)')


# Main ------------------------------------------------------------------------

def _terminate(signum, frame):
    raise SystemExit(128 + signum)


def _ints(text):
    return [int(v) for v in text.replace('_', '').split(',') if v]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--hosts', type=_ints, default=[100, 1000, 10000],
                        help='comma-separated (default 100,1000,10000)')
    parser.add_argument('--bookings', type=_ints, default=[10000, 100000],
                        help='comma-separated (default 10000,100000)')
    parser.add_argument('--backends', default='sqlite,mysql',
                        help='comma-separated, of sqlite, mysql, '
                             'postgresql (default sqlite,mysql)')
    parser.add_argument('--decisions', type=int, default=200,
                        help='reserve decisions timed per shape and '
                             'backend (default 200)')
    parser.add_argument('--projects', type=int, default=1000,
                        help='projects the shape\'s bookings spread '
                             'over; the deciding project holds one in '
                             'this many (default 1000; 1 puts every '
                             'booking in the deciding project\'s quota)')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--no-flat', dest='flat', action='store_false',
                        help='skip the shapes of the most bookings spread '
                             'as densely as the fewest (longer spans)')
    parser.add_argument('--no-blazar', action='store_true',
                        help='reserve\'s side only')
    parser.add_argument('--blazar-decisions', type=int, default=0,
                        help='blazar decisions per shape (default: '
                             '20 at <= 100 hosts, 5 at <= 1,000, else 2)')
    parser.add_argument('--blazar-timeout', type=int, default=7200,
                        help='seconds per blazar shape (default 7200)')
    parser.add_argument('--profile', action='store_true',
                        help='print a cProfile of one more decision per '
                             'shape and backend')
    parser.add_argument('--profile-top', type=int, default=25)
    parser.add_argument('--recheck', action='store_true',
                        help='turn [quota]recheck_quota on (off by '
                             'default: admission counts the quota under '
                             'the capacity lock)')
    args = parser.parse_args(argv)
    if args.decisions < 1 or args.projects < 1:
        parser.error('--decisions and --projects must be at least 1')
    used = args.backends.split(',')
    # A TERM ends the run as ^C does: the throwaway databases go.
    signal.signal(signal.SIGTERM, _terminate)
    CONF([], project='reserve', default_config_files=[])
    # Quota stays on (ConfigDriver) with limits no project of the shape
    # reaches; the recheck after commit only with --recheck.
    CONF.set_override('driver', 'config', group='quota')
    CONF.set_override('reservations', 10 ** 7, group='quota')
    CONF.set_override('instance_hours', 10 ** 10, group='quota')
    CONF.set_override('recheck_quota', args.recheck, group='quota')
    print(hardware(used))
    print('decisions: %d x %d instances of %s for %d h, quota driver %s, '
          'bookings over %d project(s); guard %d s' % (
              args.decisions, shapes.REQUEST_AMOUNT, shapes.FLAVOR,
              shapes.REQUEST_HOURS, quota.driver().name, args.projects,
              CONF.booking.guard_seconds), flush=True)
    python, why = blazar_python(args)
    if why:
        print('blazar: %s' % why)
    results, blazars, failed = [], {}, False
    plan = []
    for hosts in args.hosts:
        plan.extend((hosts, bookings, shapes.SPAN_DAYS)
                    for bookings in args.bookings)
        if args.flat and len(set(args.bookings)) > 1:
            # The most bookings as dense as the fewest: only the ones
            # outside the decisions' windows grow.
            low, high = min(args.bookings), max(args.bookings)
            plan.append((hosts, high, shapes.SPAN_DAYS * high // low))
    for hosts, bookings, span_days in plan:
        began = time.perf_counter()
        shape = shapes.make_shape(hosts, bookings, args.seed,
                                  span_days=span_days)
        print('shape %d hosts x %d bookings over %d days: made in %.1f s, '
              'hosts %.0f%% busy' % (hosts, bookings, span_days,
                                     time.perf_counter() - began,
                                     shape.busy * 100), flush=True)
        for backend in used:
            try:
                result = measure(args, shape, backend)
            except CloudCalled as exc:
                print('  %s: FAILED: %s' % (backend, exc), flush=True)
                failed = True
                continue
            except sa.exc.OperationalError as exc:
                print('  %s: skipped, server unavailable: %s' % (
                    backend, exc.orig), flush=True)
                failed = True
                continue
            result['span_days'] = span_days
            results.append(result)
            report_line(result)
            if 'profile' in result:
                print(result.pop('profile'), flush=True)
        if python and span_days == shapes.SPAN_DAYS:
            blazar = run_blazar(args, python, hosts, bookings)
            blazars[(hosts, bookings, span_days)] = blazar
            print('  blazar: %s' % json.dumps(blazar), flush=True)
    print()
    print(hardware(used))
    table(results, blazars)
    flat(results)
    called = any(r['cloud'] or r['http'] for r in results)
    return 1 if failed or called else 0


if __name__ == '__main__':
    sys.exit(main())
