"""Latency of a capacity decision -- admission with its choice of hosts
-- beside blazar 18.0.0's pickup_hosts, on the same shapes.

Not a test: a script that prints figures. For each shape of shapes.py
(hosts x bookings already on them) and each backend it builds a
throwaway database holding the shape (a reservable nova host per host,
one catalogue flavor, and per booking its ``bookings`` row and its allocation
in ``allocations``), then times ``reserve.booking.admission.book`` --
capacity lock, gauntlet, quota (ConfigDriver; --recheck for nova's recheck),
the flavor's slot calendar, the allocations of the window, the choice of
hosts, the booking and its allocations written, commit -- over the windows
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
the rows the decision reads (allocations of the window, bookings of the
flavor's calendar, the project's live bookings for its quota), and the
time spent in each step (decision_probes.PHASES).

Besides the grid of --hosts x --bookings (whose load follows from
them: 1,000 x 1M is about 50 % busy, 1,000 x 100k 14 %), --busy-shapes
names shapes of a given load (shapes.make_shape's ``load``): by default
10,000 hosts x 1M bookings about 50 % busy and about 90 % busy, the
shapes of a busy GPU cloud.

The databases of shapes of 100k bookings and more are kept between runs
(--cache, decision_data.cached): building 1M bookings takes minutes on
MariaDB. A kept database is brought to the indexes of the tree measured
and rid of what the last run's decisions wrote before it is used.

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
    .venv/bin/python tests/benchmarks/bench_decision.py --hosts 1000 \\
        --bookings 1000000 --busy-shapes 10000x1000000@0.6,1000x1000000@1.6

MariaDB is reached as tests/fixtures/backends.py does
(RESERVE_TEST_MYSQL_URL, default root@127.0.0.1:3306).
"""
import argparse
import contextlib
import cProfile
import gc
import io
import json
import math
import os
import pstats
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)

from oslo_config import cfg  # noqa: E402
import sqlalchemy as sa  # noqa: E402

from reserve.booking import admission  # noqa: E402
from reserve.booking import quota  # noqa: E402
from reserve.common import context as reserve_context  # noqa: E402
from reserve.common import exception  # noqa: E402
from reserve import conf as reserve_conf  # noqa: E402,F401
from reserve.db import api as db_api  # noqa: E402
from reserve.db import flavors as flavors_db  # noqa: E402
import decision_data  # noqa: E402
import decision_probes  # noqa: E402
import decision_report  # noqa: E402
import shapes  # noqa: E402

CONF = cfg.CONF
# The shapes of a busy cloud measured besides the grid of --hosts x
# --bookings: HOSTSxBOOKINGS@LOAD (shapes.make_shape's load).
BUSY_SHAPES = '10000x1000000@0.6,10000x1000000@1.6'
CACHE = '/var/tmp/reserve-bench/decision-cache'
CACHED_FROM = 100000                # bookings of a shape kept between runs
BLAZAR_VENV = os.path.join(HERE, 'blazar_venv.sh')
BLAZAR_PICKUP = os.path.join(HERE, 'blazar_pickup.py')


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
    decide(flavor, window, decision_data.PROJECT)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats('cumulative').print_stats(top)
    stats.sort_stats('tottime').print_stats(top)
    return out.getvalue()


def cache_key(args, spec):
    hosts, bookings, span_days, load = spec
    return ('hosts=%d bookings=%d span=%d load=%s seed=%d projects=%d' % (
        hosts, bookings, span_days, load, args.seed, args.projects))


def cached(args, spec):
    """Whether ``spec``'s databases are kept between runs."""
    return bool(args.cache) and spec[1] >= CACHED_FROM


@contextlib.contextmanager
def database(args, spec, backend):
    """(a note of what the database holds, {} when it must be built) on
    the database of ``spec`` on ``backend``: a kept one or a throwaway."""
    if cached(args, spec):
        with decision_data.cached(backend, args.cache,
                                  cache_key(args, spec)) as (_, note):
            yield note
    else:
        with decision_data.throwaway(backend):
            yield {}


def measure(args, spec, shape, backend):
    """Time the decisions on ``shape`` (its database built first, or
    kept from an earlier run); returns a dict of figures."""
    result = {'backend': backend, 'hosts': spec[0], 'bookings': spec[1],
              'shape_load': spec[3]}
    with database(args, spec, backend) as note:
        engine = db_api.get_engine()
        if note:
            result['build_s'] = 0.0
        else:
            began = time.perf_counter()
            note.update(flavor_id=decision_data.build(
                engine, shape(), args.projects, args.seed),
                busy=shape().busy)
            result['build_s'] = time.perf_counter() - began
        flavor_id, result['busy'] = note['flavor_id'], note['busy']
        decision_report.note_buffer_pool(engine)
        flavor = flavors_db.flavor_get(reserve_context.get_admin_context(),
                                       flavor_id)
        n = args.decisions
        # Timed: shape.requests(n), the windows blazar's side times; the
        # warm-up (and the profiled decision) take the next ones.
        windows = list(shapes.requests(n + 2))
        statements = decision_probes.Statements(engine)
        # The shape's rows (this script's, not reserve's) out of the
        # garbage collector's way: its full collections would otherwise
        # walk them in the middle of a decision.
        gc.collect()
        gc.freeze()
        try:
            with decision_probes.Clouds() as clouds, \
                    decision_probes.Phases() as phases:
                began = time.perf_counter()
                decide(flavor, windows[n], decision_data.PROJECT)  # warm-up
                warmup = (time.perf_counter() - began) * 1000.0
                samples, cpu, admitted = [], [], 0
                sql = [statements.statements, statements.selects]
                before = phases.snapshot()
                load = os.getloadavg()[0]
                for i, window in enumerate(windows[:n]):
                    # Each by the project of the shape's i-th booking.
                    project = decision_data.project_of(i, args.projects)
                    began = time.perf_counter()
                    began_cpu = time.process_time()
                    admitted += decide(flavor, window, project)
                    samples.append((time.perf_counter() - began) * 1000.0)
                    cpu.append((time.process_time() - began_cpu) * 1000.0)
                load = max(load, os.getloadavg()[0])
                sql = [statements.statements - sql[0],
                       statements.selects - sql[1]]
                spent = decision_probes.Phases.per_decision(
                    before, phases.snapshot(), n, sum(samples) / 1000.0)
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
        'claims_read': spent['allocations read'][1],
        'calendar_read': spent['calendar read'][1],
        'idle_read': spent['idle hosts'][1],
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


def run_blazar(args, python, hosts, bookings, load):
    """blazar_pickup.py's JSON figures on the shape, or {'error': ...}."""
    command = [python, BLAZAR_PICKUP, '--hosts', str(hosts),
               '--bookings', str(bookings), '--seed', str(args.seed),
               '--decisions', str(blazar_decisions(args, hosts))]
    if load is not None:
        command += ['--load', str(load)]
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


# Main ------------------------------------------------------------------------

def _terminate(signum, frame):
    raise SystemExit(128 + signum)


def _ints(text):
    return [int(v) for v in text.replace('_', '').split(',') if v]


def _busy_shapes(text):
    """[(hosts, bookings, load)] of 'HOSTSxBOOKINGS@LOAD,...'."""
    found = []
    for item in text.replace('_', '').split(','):
        if item:
            size, _, load = item.partition('@')
            hosts, _, bookings = size.partition('x')
            found.append((int(hosts), int(bookings),
                          float(load) if load else None))
    return found


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
    parser.add_argument('--busy-shapes', type=_busy_shapes,
                        default=_busy_shapes(BUSY_SHAPES),
                        help='more shapes, HOSTSxBOOKINGS@LOAD comma-'
                             'separated, LOAD being shapes.make_shape\'s '
                             '(default %s; \'\' for none)' % BUSY_SHAPES)
    parser.add_argument('--cache', default=CACHE,
                        help='where the databases of shapes of %d '
                             'bookings and more are kept between runs '
                             '(default %s; \'\' keeps none)' % (
                                 CACHED_FROM, CACHE))
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
    print(decision_report.hardware(used))
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
        plan.extend((hosts, bookings, shapes.SPAN_DAYS, None)
                    for bookings in args.bookings)
        if args.flat and len(set(args.bookings)) > 1:
            # The most bookings as dense as the fewest: only the ones
            # outside the decisions' windows grow.
            low, high = min(args.bookings), max(args.bookings)
            plan.append((hosts, high, shapes.SPAN_DAYS * high // low, None))
    plan.extend((hosts, bookings, shapes.SPAN_DAYS, load)
                for hosts, bookings, load in args.busy_shapes)
    for spec in plan:
        hosts, bookings, span_days, load = spec
        made = []

        def shape(spec=spec, made=made):
            # Made when a database is built (a kept one needs none).
            if not made:
                began = time.perf_counter()
                made.append(shapes.make_shape(
                    spec[0], spec[1], args.seed, span_days=spec[2],
                    load=spec[3]))
                print('  shape made in %.1f s' % (
                    time.perf_counter() - began), flush=True)
            return made[0]
        print('shape %d hosts x %d bookings over %d days%s' % (
            hosts, bookings, span_days,
            '' if load is None else ', load %g' % load), flush=True)
        for backend in used:
            try:
                result = measure(args, spec, shape, backend)
            except decision_probes.CloudCalled as exc:
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
            decision_report.report_line(result)
            if 'profile' in result:
                print(result.pop('profile'), flush=True)
        if python and span_days == shapes.SPAN_DAYS:
            blazar = run_blazar(args, python, hosts, bookings, load)
            blazars[decision_report.key_of(spec)] = blazar
            print('  blazar: %s' % json.dumps(blazar), flush=True)
    print()
    print(decision_report.hardware(used))
    decision_report.table(results, blazars)
    decision_report.flat(results)
    called = any(r['cloud'] or r['http'] for r in results)
    return 1 if failed or called else 0


if __name__ == '__main__':
    sys.exit(main())
