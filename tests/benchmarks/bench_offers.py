"""Latency of an offer search (GET /v1/offers without its HTTP) beside
that of a decision, on the same shape.

Not a test: a script that prints figures. It builds the shape of
bench_decision.py (shapes.make_shape, written by decision_data.build:
hosts, one catalogue flavor, the bookings and their allocations) on a
throwaway database, then times, over the same days as the decisions:

* searches: ``reserve.booking.offers.search`` of shapes.REQUEST_AMOUNT
  instances of the shape's flavor for shapes.REQUEST_HOURS, starting
  within --range-days (two weeks) of the decision's start, by start and
  --limit offers (10), and the offers written as the API writes them;
* decisions: bench_decision.decide, as bench_decision.py times them.

Both as wall clock and this process's CPU time (the machine may be
busy), p50 and p99. The bar: a search p99 of at most 50 ms, and no
slower than ten decisions.

    .venv/bin/python tests/benchmarks/bench_offers.py --hosts 1000 \\
        --bookings 1000000 --backends sqlite

Building 1M bookings takes minutes (about 3 on SQLite and 14 on MariaDB
on a 2-core machine): --cache DIRECTORY keeps the databases between
runs.
"""
import argparse
import contextlib
import datetime
import gc
import os
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)

from oslo_config import cfg  # noqa: E402

from reserve.booking import offers  # noqa: E402
from reserve.common import context as reserve_context  # noqa: E402
from reserve.common import timeutils  # noqa: E402
from reserve.db import api as db_api  # noqa: E402
from reserve.db import flavors as flavors_db  # noqa: E402
from reserve.db import offers as offers_db  # noqa: E402
import bench_decision  # noqa: E402
import decision_data  # noqa: E402
import decision_report  # noqa: E402
import shapes  # noqa: E402

CONF = cfg.CONF


def _timed(func, n):
    """(wall ms, CPU ms) samples of ``func(i)`` for i in range(n)."""
    wall, cpu = [], []
    for i in range(n):
        began, began_cpu = time.perf_counter(), time.process_time()
        func(i)
        wall.append((time.perf_counter() - began) * 1000.0)
        cpu.append((time.process_time() - began_cpu) * 1000.0)
    return wall, cpu


def _figures(samples):
    wall, cpu = samples
    p = bench_decision.percentile
    return 'p50 %.1f / p99 %.1f ms (CPU p50 %.1f / p99 %.1f ms)' % (
        p(wall, 50), p(wall, 99), p(cpu, 50), p(cpu, 99))


def cache_key(args):
    key = 'offers hosts=%d bookings=%d seed=%d projects=%d' % (
        args.hosts, args.bookings, args.seed, args.projects)
    if args.max_hours != shapes.MAX_HOURS:
        key += ' max_hours=%d' % args.max_hours
    return key


@contextlib.contextmanager
def database(args, backend):
    """A note of what the database holds ({} when it must be built): a
    kept one (--cache) or a throwaway."""
    if args.cache:
        with decision_data.cached(backend, args.cache,
                                  cache_key(args)) as (_, note):
            yield note
    else:
        with decision_data.throwaway(backend):
            yield {}


def measure(args, shape, backend):
    with database(args, backend) as note:
        engine = db_api.get_engine()
        if not note:
            began = time.perf_counter()
            note['flavor_id'] = decision_data.build(engine, shape(),
                                                    args.projects, args.seed)
            print('  %s: built in %.0f s' % (backend,
                                             time.perf_counter() - began),
                  flush=True)
        flavor_id = note['flavor_id']
        decision_report.note_buffer_pool(engine)
        ctx = reserve_context.RequestContext(
            user_id='bench', project_id=decision_data.PROJECT,
            roles=['member', 'reader'])
        flavor = flavors_db.flavor_get(ctx, flavor_id)
        windows = list(shapes.requests(args.n + 1))
        length = datetime.timedelta(hours=shapes.REQUEST_HOURS)
        span = datetime.timedelta(days=args.range_days)
        found_counts = []

        def search(i):
            window = windows[i]
            found = offers.search(ctx, [flavor], window['amount'], length,
                                  window['start'],
                                  window['start'] + span, args.sort,
                                  args.limit)
            now = timeutils.utcnow()
            offers_db.offers_create(ctx, [
                {'project_id': ctx.project_id, 'user_id': ctx.user_id,
                 'flavor_id': f.flavor.id, 'start': f.start, 'end': f.end,
                 'instance_count': f.count,
                 'expires_at': now + datetime.timedelta(minutes=5)}
                for f in found], now)
            found_counts.append(len(found))

        def decide(i):
            bench_decision.decide(flavor, windows[i],
                                  decision_data.project_of(
                                      i, args.projects))

        gc.collect()
        gc.freeze()
        try:
            search(args.n)          # warm-up: the hosts' records cached
            load = os.getloadavg()[0]
            searched = _timed(search, args.n)
            decided = _timed(decide, args.n)
            load = max(load, os.getloadavg()[0])
        finally:
            gc.unfreeze()
    p99 = bench_decision.percentile
    print('  %s: search (%d offers each, %s) %s' % (
        backend, min(found_counts), args.sort, _figures(searched)))
    print('  %s: decision %s' % (backend, _figures(decided)))
    print('  %s: search p99 / decision p99 = %.1f (wall), %.1f (CPU); '
          'load %.1f' % (backend,
                         p99(searched[0], 99) / p99(decided[0], 99),
                         p99(searched[1], 99) / p99(decided[1], 99), load),
          flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--hosts', type=int, default=1000)
    parser.add_argument('--bookings', type=int, default=1000000)
    parser.add_argument('--backends', default='sqlite',
                        help='comma-separated, of sqlite, mysql, '
                             'postgresql (default sqlite)')
    parser.add_argument('-n', type=int, default=100,
                        help='searches, and decisions, timed (default 100)')
    parser.add_argument('--range-days', type=int, default=14)
    parser.add_argument('--limit', type=int, default=10)
    parser.add_argument('--sort', choices=offers.SORTS,
                        default=offers.SORT_START)
    parser.add_argument('--projects', type=int, default=1000)
    parser.add_argument('--seed', type=int, default=7)
    parser.add_argument('--cache', default='',
                        help='where the databases of the shape are kept '
                             'between runs (for example %s; default: '
                             'built anew, and dropped)' %
                             bench_decision.CACHE)
    parser.add_argument('--max-hours', type=int, default=shapes.MAX_HOURS,
                        help='longest booking of the shape: more loads a '
                             'shape of fewer bookings more')
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, bench_decision._terminate)
    CONF([], project='reserve', default_config_files=[])
    CONF.set_override('driver', 'config', group='quota')
    CONF.set_override('reservations', 10 ** 7, group='quota')
    CONF.set_override('instance_hours', 10 ** 10, group='quota')
    made = []

    def shape():
        """The shape, made when first asked (a kept database needs
        none)."""
        if not made:
            began = time.perf_counter()
            made.append(shapes.make_shape(args.hosts, args.bookings,
                                          args.seed,
                                          max_hours=args.max_hours))
            print('shape made in %.1f s, hosts %.0f%% busy' % (
                time.perf_counter() - began, made[0].busy * 100),
                flush=True)
        return made[0]

    print('shape %d hosts x %d bookings; searches of %d x %s for %d h '
          'over %d days of starts' % (
              args.hosts, args.bookings, shapes.REQUEST_AMOUNT,
              shapes.FLAVOR, shapes.REQUEST_HOURS, args.range_days),
          flush=True)
    for backend in args.backends.split(','):
        measure(args, shape, backend)
    return 0


if __name__ == '__main__':
    sys.exit(main())
