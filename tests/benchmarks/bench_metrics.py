"""Cost of a Prometheus scrape of reserve-api (GET /metrics).

Not a test: a script that prints figures. For each backend it builds a
throwaway database (as bench_calendar.py does: rows written straight
into the tables in batches) holding

* 1,000 catalogue flavors over 20 nova flavor sizes, 100 nova hosts;
* 100,000 bookings of 1 to 7 hours, as a catalogue that has run for a
  year holds them: 90,000 over the past year (COMPLETE, some ERROR) and
  10,000 over the week before and the week after now (the past ones
  done, about 250 running now ACTIVE, the coming ones ALLOCATED or
  PENDING_CREATE), the live ones with their allocation;
* a lease per started or allocated booking with its three events (the
  ones due DONE, taken up to a few minutes late, the others UNDONE)
  and its delivery row, some with repairs;
* 20 libvirt hosts of 8 GPU devices, 40 device reservations of 2.

then times, --requests times after two warm-up scrapes:

* the collector alone (reserve.metrics.exposition.render: every query
  and the text format);
* the whole scrape through the WSGI stack (webtest, noauth, from an
  address of [metrics] allowed_source_ranges), the database read at the
  scrape ([metrics] read_ahead = false);
* the same, read ahead (the default): --ahead-requests scrapes,
  --interval seconds apart (Prometheus scrapes every 15 s or more; the
  read for the next scrape runs in between).

The target is p99 <= 100 ms. What the process holds once the
database is loaded and the API set up is frozen out of the garbage
collector's way first (gc.freeze), as reserve-api and reserve.wsgi.api
do at start (reserve.common.service.freeze_start_up_objects).

    python3 tests/benchmarks/bench_metrics.py                  # sqlite,mysql
    python3 tests/benchmarks/bench_metrics.py --backends sqlite --requests 50

MariaDB is reached as tests/fixtures/backends.py does
(RESERVE_TEST_MYSQL_URL, default root@127.0.0.1:3306); a backend that
does not answer is skipped.
"""
import argparse
import datetime
import gc
import os
import random
import sys
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_calendar  # noqa: E402
from oslo_config import cfg  # noqa: E402
import sqlalchemy as sa  # noqa: E402

from reserve.common import states  # noqa: E402
from reserve.common import timeutils  # noqa: E402
from reserve import conf as reserve_conf  # noqa: E402,F401
from reserve.db import api as db_api  # noqa: E402
from reserve.db import models  # noqa: E402
from reserve.devices import states as device_states  # noqa: E402
from reserve.metrics import exposition  # noqa: E402

CONF = cfg.CONF
HOUR = datetime.timedelta(hours=1)
TARGET_MS = 100.0
FLAVORS = 1000
BOOKINGS = 100000
SIZES = 20
NOVA_HOSTS = 100
LIBVIRT_HOSTS = 20
GPUS_PER_HOST = 8
DEVICE_RESERVATIONS = 40
PAST_DAYS = 365         # the history: bookings from a year ago
RECENT = 10000          # bookings of the weeks around now
RECENT_DAYS = 7         # a week before now to a week after
BATCH = 5000


class Writer:
    """Batched inserts into one table (flushed by the caller, parents
    first: the foreign keys)."""

    def __init__(self, engine, model):
        self.engine, self.table, self.rows = engine, model.__table__, []

    def add(self, row):
        self.rows.append(row)

    def flush(self):
        if self.rows:
            with self.engine.begin() as conn:
                conn.execute(self.table.insert(), self.rows)
            self.rows = []


def _stamps(now):
    return {'created_at': now, 'updated_at': now}


def _hosts(engine, now):
    hosts = [dict(_stamps(now), id=str(uuid.uuid4()), kind='nova',
                  name='nova-%03d.example.org' % i,
                  service_name='nova-%03d' % i, vcpus=256,
                  memory_mb=2 * 1024 * 1024, local_gb=20000,
                  reservable=True, gpus={}) for i in range(NOVA_HOSTS)]
    libvirt = [dict(_stamps(now), id=str(uuid.uuid4()), kind='libvirt',
                    name='gpu-%02d.example.org' % i,
                    uri='qemu+tls://gpu-%02d/system' % i, reservable=True,
                    topology_generation='g1')
               for i in range(LIBVIRT_HOSTS)]
    with engine.begin() as conn:
        conn.execute(models.Host.__table__.insert(), hosts)
        conn.execute(models.Host.__table__.insert(), libvirt)
        # The migrations made its row; the allocations last 7 h at most.
        table = models.CapacityState.__table__
        conn.execute(table.update().where(table.c.id == 1).values(
            generation=table.c.generation + 1,
            longest_allocation=7 * 3600))
    return hosts, libvirt


def _flavors(engine, now):
    sizes = [{'vcpus': 2 ** (i % 5), 'memory_mb': 4096 * (1 + i % 4),
              'disk_gb': 20 + i, 'ephemeral_gb': 0, 'swap_mb': 0,
              'extra_specs': {}} for i in range(SIZES)]
    flavors = []
    for i in range(FLAVORS):
        size = sizes[i % SIZES]
        flavors.append(dict(
            _stamps(now), id=str(uuid.uuid4()), name='bench-%04d' % i,
            nova_flavor_id='nova-%02d' % (i % SIZES), slots=200,
            active=True, is_public=True, max_length_hours=None,
            longest_booking=7 * 3600,
            nova_flavor=dict(size, id='nova-%02d' % (i % SIZES),
                             name='nova-%02d' % (i % SIZES))))
    with engine.begin() as conn:
        conn.execute(models.Flavor.__table__.insert(), flavors)
    return flavors


def _status(start, end, now, rnd):
    if end <= now:
        return (states.Booking.ERROR if rnd.random() < 0.02
                else states.Booking.COMPLETE)
    if start <= now:
        return states.Booking.ACTIVE
    return (states.Booking.PENDING_CREATE if rnd.random() < 0.05
            else states.Booking.ALLOCATED)


def _events(lease_id, start, end, now, rnd):
    """A lease's three events: the ones due done, a little late."""
    found = []
    for event_type, when in ((states.Event.START, start),
                             (states.Event.BEFORE_END, end - HOUR / 2),
                             (states.Event.END, end)):
        row = dict(_stamps(now), id=str(uuid.uuid4()), lease_id=lease_id,
                   event_type=event_type, time=when, attempts=0,
                   status=states.Event.UNDONE, taken_by=None,
                   taken_at=None)
        if when <= now:
            row.update(status=states.Event.DONE, attempts=1,
                       taken_by='manager-1',
                       taken_at=when + datetime.timedelta(
                           seconds=int(rnd.expovariate(1 / 20.0))))
        found.append(row)
    return found


def _bookings(engine, now, flavors, hosts, rnd):
    writers = {name: Writer(engine, model) for name, model in (
        ('bookings', models.Booking), ('allocations', models.Allocation),
        ('leases', models.Lease), ('events', models.Event),
        ('deliveries', models.Delivery))}
    for i in range(BOOKINGS):
        flavor = flavors[i % FLAVORS]
        size = flavor['nova_flavor']
        if i < RECENT:
            start = now + datetime.timedelta(seconds=rnd.randrange(
                -RECENT_DAYS * 86400, RECENT_DAYS * 86400, 60))
        else:
            start = now - datetime.timedelta(seconds=rnd.randrange(
                8 * 3600, PAST_DAYS * 86400, 60))
        end = start + rnd.randint(1, 7) * HOUR
        status = _status(start, end, now, rnd)
        booking_id = str(uuid.uuid4())
        count = rnd.randint(1, 2)
        project = 'project-%d' % rnd.randrange(bench_calendar.PROJECTS)
        lease_id = None
        if status != states.Booking.PENDING_CREATE:
            lease_id = str(uuid.uuid4())
            lease_status = {states.Booking.COMPLETE: states.Lease.TERMINATED,
                            states.Booking.ERROR: states.Lease.ERROR,
                            states.Booking.ACTIVE: states.Lease.ACTIVE}.get(
                                status, states.Lease.PENDING)
            writers['leases'].add(dict(
                _stamps(now), id=lease_id,
                name=states.lease_name(states.Owner.BOOKING, booking_id),
                owner_type=states.Owner.BOOKING, owner_id=booking_id,
                project_id=project, user_id='bench', start=start, end=end,
                status=lease_status, degraded=False))
            for event in _events(lease_id, start, end, now, rnd):
                writers['events'].add(event)
            writers['deliveries'].add(dict(
                _stamps(now), owner_type=states.Owner.BOOKING,
                owner_id=booking_id, project_id=project,
                flavor_id=flavor['id'], amount=count, start=start, end=end,
                repairs=rnd.choice((0,) * 20 + (1, 2)), hosts_replaced=0,
                missing=0, missing_seconds=0))
        writers['bookings'].add(dict(
            _stamps(now), id=booking_id, project_id=project,
            user_id='bench', flavor_id=flavor['id'], instance_count=count,
            start=start, end=end, status=status, lease_id=lease_id))
        if status in states.Booking.LIVE:
            writers['allocations'].add(dict(
                _stamps(now), id=str(uuid.uuid4()), booking_id=booking_id,
                host_id=hosts[rnd.randrange(len(hosts))]['id'],
                amount=count, start=start, end=end, vcpus=size['vcpus'],
                memory_mb=size['memory_mb'], disk_gb=size['disk_gb']))
        if (i + 1) % BATCH == 0 or i + 1 == BOOKINGS:
            # Parents first: the foreign keys.
            for name in ('bookings', 'leases', 'events', 'deliveries',
                         'allocations'):
                writers[name].flush()


def _devices(engine, now, libvirt, rnd):
    devices = []
    for host in libvirt:
        for g in range(GPUS_PER_HOST):
            devices.append(dict(
                _stamps(now), id=str(uuid.uuid4()), host_id=host['id'],
                name='pci_0000_%02x_00_0' % (0x17 + g),
                pci_address='0000:%02x:00.0' % (0x17 + g),
                pci_class='030200', vendor_id='0x10de',
                product_id='0x20b5', product_name='A100 SXM4 80GB',
                numa_node=g // 4, iommu_group=g, iommu_group_members=[],
                virtual_functions=[], mdev_types=[], mdevs=[],
                in_use_by=['domain other'] if rnd.random() < 0.05 else [],
                state=states.Device.PRESENT))
    reservations, held = [], []
    for i in range(DEVICE_RESERVATIONS):
        host = libvirt[i % LIBVIRT_HOSTS]
        mine = [d for d in devices if d['host_id'] == host['id']]
        reservation_id = str(uuid.uuid4())
        reservations.append(dict(
            _stamps(now), id=reservation_id, host_id=host['id'],
            project_id='project-%d' % i, user_id='bench',
            start=now - 24 * HOUR, end=now + 24 * HOUR,
            status=device_states.DeviceReservation.ACTIVE, request={},
            topology_generation='g1'))
        for device in mine[2 * (i // LIBVIRT_HOSTS):
                           2 * (i // LIBVIRT_HOSTS) + 2]:
            held.append(dict(_stamps(now),
                             device_reservation_id=reservation_id,
                             device_id=device['id']))
    with engine.begin() as conn:
        conn.execute(models.Device.__table__.insert(), devices)
        conn.execute(models.DeviceReservation.__table__.insert(),
                     reservations)
        conn.execute(models.DeviceReservationDevice.__table__.insert(),
                     held)


def load(rnd):
    engine = db_api.get_engine()
    now = timeutils.utcnow()
    hosts, libvirt = _hosts(engine, now)
    flavors = _flavors(engine, now)
    _bookings(engine, now, flavors, hosts, rnd)
    _devices(engine, now, libvirt, rnd)
    with engine.begin() as conn:
        if engine.dialect.name == 'mysql':
            conn.execute(sa.text(
                'ANALYZE TABLE bookings, flavors, allocations, leases, '
                'events, deliveries, devices, device_reservations'))
        elif engine.dialect.name == 'sqlite':
            conn.execute(sa.text('ANALYZE'))


def measure_collector(count):
    def scrape(_):
        body, _type = exposition.render()
        assert b'reserve_flavor_offered_instances' in body
    scrape(0)
    scrape(1)
    gc.collect()
    gc.freeze()
    return bench_calendar.timed(scrape, count)


def _spaced(func, count, interval):
    """timed(), each call ``interval`` seconds after the previous ended
    (the wait untimed): scrapes as Prometheus sends them."""
    samples = []
    for i in range(count):
        time.sleep(interval)
        samples.extend(bench_calendar.timed(lambda _: func(i), 1))
    return samples


def measure_api(count, read_ahead=False, interval=0.0):
    from oslo_messaging import conffixture
    import webtest

    from reserve.api import app as api_app
    from reserve.common import policy
    from reserve.common import rpc

    conffixture.ConfFixture(CONF)
    CONF.set_override('auth_strategy', 'noauth', group='api')
    CONF.set_override('transport_url', 'fake://')
    CONF.set_override('allowed_source_ranges', ['127.0.0.1'],
                      group='metrics')
    CONF.set_override('read_ahead', read_ahead, group='metrics')
    rpc.cleanup()
    policy.reset()
    app = webtest.TestApp(api_app.setup_app(),
                          extra_environ={'REMOTE_ADDR': '127.0.0.1'})

    def scrape(_):
        app.get('/metrics')
    scrape(0)
    scrape(1)
    gc.collect()
    gc.freeze()
    try:
        if interval:
            samples = _spaced(scrape, count, interval)
            # The read the last scrape started ends before its database
            # is dropped.
            time.sleep(interval)
            return samples
        return bench_calendar.timed(scrape, count)
    finally:
        rpc.cleanup()
        policy.reset()


def report(backend, name, samples):
    p50 = bench_calendar.percentile(samples, 50)
    p99 = bench_calendar.percentile(samples, 99)
    print('  %-8s %-28s n=%-4d p50 %7.1f ms  p99 %7.1f ms  [%s p99 <= %g '
          'ms]' % (backend, name, len(samples), p50, p99,
                   'within' if p99 <= TARGET_MS else 'OVER', TARGET_MS))


def series(body):
    """Samples of the scrape, and those of the catalogue's gauges."""
    lines = [line for line in body.decode().splitlines()
             if line and not line.startswith('#')]
    return len(lines), sum(1 for line in lines
                           if line.startswith('reserve_flavor_'))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--backends', default='sqlite,mysql')
    parser.add_argument('--requests', type=int, default=100,
                        help='scrapes measured per figure')
    parser.add_argument('--no-api', action='store_true',
                        help='skip the figures through the WSGI stack')
    parser.add_argument('--ahead-requests', type=int, default=30,
                        help='scrapes measured with [metrics] read_ahead')
    parser.add_argument('--interval', type=float, default=1.0,
                        help='seconds between two scrapes read ahead (the '
                             'read of the next one meanwhile)')
    args = parser.parse_args()
    CONF([], project='reserve', default_config_files=[])
    rnd = random.Random(2026)
    for backend in args.backends.split(','):
        try:
            db = bench_calendar.Database(backend)
        except sa.exc.OperationalError as exc:
            print('== %s: skipped, no server (%s) ==' % (
                backend, str(exc).splitlines()[0]))
            continue
        try:
            began = time.perf_counter()
            load(rnd)
            body, _type = exposition.render()
            samples, flavor_samples = series(body)
            print('== %s: %d flavors, %d bookings loaded in %.1f s; a '
                  'scrape has %d samples (%d of the flavors), %d bytes ==' % (
                      backend, FLAVORS, BOOKINGS,
                      time.perf_counter() - began, samples, flavor_samples,
                      len(body)))
            report(backend, 'collector (render)',
                   measure_collector(args.requests))
            if not args.no_api:
                report(backend, 'GET /metrics, read at scrape',
                       measure_api(args.requests))
                report(backend, 'GET /metrics, read ahead',
                       measure_api(args.ahead_requests, read_ahead=True,
                                   interval=args.interval))
            sys.stdout.flush()
        finally:
            gc.unfreeze()
            db.drop()


if __name__ == '__main__':
    main()
