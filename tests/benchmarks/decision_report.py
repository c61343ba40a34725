"""How a decision benchmark (bench_decision.py) reports: the machine,
a line per shape and backend beside blazar's, and the verdicts."""
import contextlib
import os
import platform
import sqlite3

import sqlalchemy as sa

import shapes
from tests.fixtures import backends

# p99 targets, in ms, by hosts (25 ms for every shape up to 10,000
# hosts x 1M bookings, half or more busy); and how much faster than
# blazar's p50 reserve's p99 must be at 1,000 hosts x 100k bookings.
TARGET_SMALL, TARGET_LARGE, LARGE = 25.0, 25.0, 10000
RATIO_TARGET = 300.0


def note_buffer_pool(engine):
    """On MariaDB, print a line saying so when InnoDB's buffer pool is
    smaller than the database's tables and indexes: reads then wait on
    the disk (InnoDB reads with O_DIRECT, past the system's page cache),
    and the figures are the disk's more than reserve's."""
    if engine.dialect.name != 'mysql':
        return
    with engine.connect() as conn:
        pool = conn.execute(sa.text(
            'SELECT @@innodb_buffer_pool_size')).scalar()
        size = int(conn.execute(sa.text(
            'SELECT SUM(data_length + index_length) FROM '
            'information_schema.tables WHERE table_schema = DATABASE()')
        ).scalar() or 0)
    if size > pool:
        print('  mysql: the database holds %d MiB and InnoDB\'s buffer pool '
              '%d MiB: reads go to disk (SET GLOBAL innodb_buffer_pool_size '
              'to measure reserve rather than the disk)' % (
                  size >> 20, pool >> 20), flush=True)


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
                mariadb = '%s through %s, buffer pool %d MiB' % (
                    conn.execute(sa.text('SELECT VERSION()')).scalar(),
                    admin.dialect.driver, conn.execute(sa.text(
                        'SELECT @@innodb_buffer_pool_size')).scalar() >> 20)
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


def key_of(spec):
    """(hosts, bookings, span days, load) of a shape or a result."""
    if isinstance(spec, dict):
        return (spec['hosts'], spec['bookings'], spec['span_days'],
                spec.get('shape_load'))
    return tuple(spec)


def label_of(result):
    text = '%dx%dk' % (result['hosts'], result['bookings'] // 1000)
    if result['span_days'] != shapes.SPAN_DAYS:
        text += '/%gy' % (result['span_days'] / float(shapes.SPAN_DAYS))
    if result.get('busy') is not None:
        text += '@%.0f%%' % (result['busy'] * 100)
    return text


def report_line(result):
    print('  %s %s: %s; warm-up decision (reads the hosts) '
          '%.0f ms; %d decisions, '
          '%d admitted; p50 %.2f ms, p99 %.2f ms, max %.2f ms (this '
          'process\'s CPU: p50 %.2f ms, p99 %.2f ms; load average up to '
          '%.1f); %.1f SQL (%.1f SELECT), %.1f cloud calls, %.1f HTTP per '
          'decision; rows read per decision: %.0f allocations, %.0f idle '
          'hosts\' ids, %.0f calendar bookings, one quota sum' % (
              result['backend'], label_of(result),
              'built in %.1f s' % result['build_s'] if result['build_s']
              else 'kept from an earlier run',
              result['warmup_ms'], result['n'], result['admitted'],
              result['p50_ms'], result['p99_ms'], result['max_ms'],
              result['cpu_p50_ms'], result['cpu_p99_ms'], result['load'],
              result['sql'], result['selects'], result['cloud'],
              result['http'], result['claims_read'],
              result.get('idle_read', 0), result['calendar_read']))
    print('    ms per decision: %s' % ', '.join(
        '%s %.2f' % (label, ms) for label, (ms, _)
        in result['phases'].items()), flush=True)


def table(results, blazars):
    header = ('%-18s %-7s %4s %7s %7s %7s %7s %7s %6s %10s %5s %4s %4s %8s '
              '%8s %8s %s' % ('shape', 'backend', 'n', 'p50 ms', 'p99 ms',
                              'max ms', 'cpu p50', 'cpu p99', 'claims',
                              'SQL(SEL)', 'cloud', 'HTTP', 'bl n',
                              'blazar50', 'blazar99', 'bl50/p99',
                              'verdict'))
    print(header)
    print('-' * len(header))
    for r in results:
        shape = label_of(r)
        blazar = blazars.get(key_of(r)) or {}
        ratio = _ratio(r, blazar)
        if 'p50_ms' in blazar:
            bl = '%4d %8.1f %8.1f %8.0f' % (
                blazar['n'], blazar['p50_ms'], blazar['p99_ms'], ratio)
        else:
            bl = '%4s %8s %8s %8s' % ('-', '-', '-', '-')
        print('%-18s %-7s %4d %7.2f %7.2f %7.2f %7.2f %7.2f %6.0f '
              '%4.1f(%4.1f) %5.1f %4.1f %s %s' % (
                  shape, r['backend'], r['n'], r['p50_ms'], r['p99_ms'],
                  r['max_ms'], r['cpu_p50_ms'], r['cpu_p99_ms'],
                  r['claims_read'], r['sql'], r['selects'], r['cloud'],
                  r['http'], bl, verdict(r, blazar)))
    for key, blazar in sorted(blazars.items(),
                              key=lambda item: repr(item[0])):
        key = key[:2]
        if blazar and 'p50_ms' in blazar:
            print('blazar %dx%dk%s (sqlite, FK indexes %s): built in %.1f s, '
                  '%.1f SQL (%.1f SELECT), %.1f cloud calls per decision, '
                  '%d of %d admitted' % (
                      key[0], key[1] // 1000,
                      '@%.0f%%' % (blazar['busy'] * 100)
                      if 'busy' in blazar else '',
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
          'allocations read per decision):')
    by = {}
    for r in results:
        if r.get('shape_load') is None:
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
