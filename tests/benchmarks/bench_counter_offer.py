"""Cost of a refusal's counter offer on a busy flavor: a refused
booking with and without the search of what fits instead.

Not a test: a script that prints figures. For each shape of shapes.py
(hosts x bookings already on them, the flavor's bookings on its hosts
as bench_decision.py builds them) and each backend, on each window of
``shape.requests(N)``: one refusal of a count no cloud holds reads how
many instances fit there (NoCapacity's ``free``), then are timed

* the refusal of one instance more than fit (``admission.book``, the
  whole decision up to its NoCapacity: what a refusal cost before the
  counter offer), and
* the counter offer's search of the same request
  (``counter_offer.search``: free-slots over ``[booking]
  free_slots_default_days`` on each side of the window, what the API
  adds to each refusal),

each in wall-clock and in this process's CPU time (which a busy machine
disturbs less; the database server's own work is not in it), after one
warm-up refusal and search on a window outside them. A refusal with the
search costs the sum.

    .venv/bin/python tests/benchmarks/bench_counter_offer.py \\
        --hosts 100 --bookings 100000 --backends sqlite,mysql --refusals 30
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)

from oslo_config import cfg  # noqa: E402
import sqlalchemy as sa  # noqa: E402

from reserve.booking import admission  # noqa: E402
from reserve.booking import counter_offer  # noqa: E402
from reserve.common import context as reserve_context  # noqa: E402
from reserve.common import exception  # noqa: E402
from reserve import conf as reserve_conf  # noqa: E402,F401
from reserve.db import api as db_api  # noqa: E402
from reserve.db import flavors as flavors_db  # noqa: E402
from bench_decision import percentile  # noqa: E402
import decision_data  # noqa: E402
import decision_report  # noqa: E402
import shapes  # noqa: E402

CONF = cfg.CONF
# A count no shape's hosts hold: its refusal says how many fit.
NO_CLOUD_HOLDS = 10 ** 6


def _user():
    return reserve_context.RequestContext(
        user_id='bench', project_id=decision_data.PROJECT,
        roles=['member', 'reader'])


def _refusal(flavor, window, count):
    """The NoCapacity of booking ``count`` over ``window``, None when it
    was admitted (which must not happen)."""
    try:
        admission.book(_user(), flavor, window['start'], window['end'],
                       count)
    except exception.NoCapacity as refusal:
        return refusal
    return None


def _timed(func, *args):
    began, began_cpu = time.perf_counter(), time.process_time()
    answer = func(*args)
    return (answer, (time.perf_counter() - began) * 1000.0,
            (time.process_time() - began_cpu) * 1000.0)


def _search(flavor, window, count):
    return counter_offer.search(_user(), flavor, window['start'],
                                window['end'], count, False)


def measure(args, shape, backend):
    """Build ``shape`` on a throwaway ``backend`` and time the refusals
    and their searches; returns a dict of figures."""
    result = {'backend': backend, 'hosts': len(shape.hosts),
              'bookings': len(shape.bookings)}
    with decision_data.throwaway(backend):
        engine = db_api.get_engine()
        began = time.perf_counter()
        flavor_id = decision_data.build(engine, shape, 1, args.seed)
        result['build_s'] = time.perf_counter() - began
        flavor = flavors_db.flavor_get(reserve_context.get_admin_context(),
                                       flavor_id)
        n = args.refusals
        windows = list(shape.requests(n + 1))
        warm = windows[n]
        free = _refusal(flavor, warm, NO_CLOUD_HOLDS).kwargs['free']
        _refusal(flavor, warm, free + 1)
        _search(flavor, warm, free + 1)
        refused, searched, found, fits = [], [], [0, 0], []
        for window in windows[:n]:
            free = _refusal(flavor, window, NO_CLOUD_HOLDS).kwargs['free']
            fits.append(free)
            refusal, wall, cpu = _timed(_refusal, flavor, window, free + 1)
            if refusal is None:
                raise RuntimeError('%d instances were admitted where %d '
                                   'fit' % (free + 1, free))
            refused.append((wall, cpu))
            offer, wall, cpu = _timed(_search, flavor, window, free + 1)
            searched.append((wall, cpu))
            found[0] += offer['before'] is not None
            found[1] += offer['after'] is not None
    both = [(r[0] + s[0], r[1] + s[1]) for r, s in zip(refused, searched)]
    for name, samples in (('refusal', refused), ('search', searched),
                          ('both', both)):
        for kind, index in (('', 0), ('cpu_', 1)):
            values = [sample[index] for sample in samples]
            result['%s_%sp50_ms' % (name, kind)] = percentile(values, 50)
            result['%s_%sp99_ms' % (name, kind)] = percentile(values, 99)
    result.update(n=n, before_found=found[0], after_found=found[1],
                  fit_min=min(fits), fit_max=max(fits),
                  load=os.getloadavg()[0])
    return result


def report_line(result):
    print('  %(backend)s (built in %(build_s).0f s; %(n)d refusals, '
          '%(fit_min)d to %(fit_max)d instances fit, windows found: '
          '%(before_found)d before, %(after_found)d after; load '
          '%(load).1f)' % result)
    for name, label in (('refusal', 'refusal alone'),
                        ('search', 'counter offer search'),
                        ('both', 'refusal with the search')):
        print('    %-24s wall p50 %7.1f  p99 %7.1f ms   cpu p50 %7.1f  '
              'p99 %7.1f ms' % ((label,) + tuple(
                  result['%s_%s_ms' % (name, key)]
                  for key in ('p50', 'p99', 'cpu_p50', 'cpu_p99'))),
              flush=True)


def _ints(text):
    return [int(x) for x in text.split(',')]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--hosts', type=_ints, default=[100],
                        help='comma-separated (default 100)')
    parser.add_argument('--bookings', type=_ints, default=[100000],
                        help='comma-separated (default 100000)')
    parser.add_argument('--backends', default='sqlite',
                        help='comma-separated, of sqlite, mysql, '
                             'postgresql (default sqlite)')
    parser.add_argument('--refusals', type=int, default=30,
                        help='refusals timed per shape and backend '
                             '(default 30)')
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args(argv)
    if args.refusals < 1:
        parser.error('--refusals must be at least 1')
    used = args.backends.split(',')
    CONF([], project='reserve', default_config_files=[])
    CONF.set_override('driver', 'config', group='quota')
    CONF.set_override('reservations', 10 ** 7, group='quota')
    CONF.set_override('instance_hours', 10 ** 12, group='quota')
    CONF.set_override('recheck_quota', False, group='quota')
    print(decision_report.hardware(used))
    print('refusals: one instance of %s more than fit for %d h; the search '
          'over %d days either side' % (
              shapes.FLAVOR, shapes.REQUEST_HOURS,
              CONF.booking.free_slots_default_days), flush=True)
    for hosts in args.hosts:
        for bookings in args.bookings:
            began = time.perf_counter()
            shape = shapes.make_shape(hosts, bookings, args.seed)
            print('shape %d hosts x %d bookings: made in %.1f s, hosts '
                  '%.0f%% busy' % (hosts, bookings,
                                   time.perf_counter() - began,
                                   shape.busy * 100), flush=True)
            for backend in used:
                try:
                    report_line(measure(args, shape, backend))
                except sa.exc.OperationalError as exc:
                    print('  %s: skipped, server unavailable: %s' % (
                        backend, exc.orig), flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
