"""Latency of the device-reservation list through the API.

Not a test: a script that prints figures. For each backend it builds a
throwaway database (tests/fixtures/backends.py) holding --hosts libvirt
hosts of --devices GPU devices each and --reservations device reservations,
each with two devices, one or two attachments, an audience project and
its lease, written straight into the tables; then it times
``GET /v1/device-reservations?all_projects=1&limit=N`` as an
administrator through the whole WSGI stack (webtest, noauth), --requests
times after two warm-up requests, and counts the SQL statements each
request sends (a ``before_cursor_execute`` listener on reserve's
engine). Times are wall clock and this process's CPU time, which a busy
machine disturbs less (the database server's own work is not in it),
with the load average seen meanwhile.

What the process holds once the API is set up is frozen out of the
garbage collector's way first (gc.freeze), as reserve-api and
reserve.wsgi.api do (reserve.common.service.freeze_start_up_objects).
With --no-gc-freeze it is not, as in servers before they did: then the
collections of the oldest generation walk it all, a few times a minute
under this load (the p99).

    .venv/bin/python tests/benchmarks/bench_device_list.py
    .venv/bin/python tests/benchmarks/bench_device_list.py \\
        --backends sqlite,mysql --reservations 300 --requests 50
    .venv/bin/python tests/benchmarks/bench_device_list.py --no-gc-freeze

Its imports are those of older trees too, so the same script measures
another checkout: PYTHONPATH=/path/to/checkout python <this script>.
"""
import argparse
import datetime
import gc
import math
import os
import pathlib
import random
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
# The tree to measure comes first when PYTHONPATH names one.
sys.path.append(os.path.dirname(os.path.dirname(HERE)))

from oslo_config import cfg  # noqa: E402
from oslo_messaging import conffixture  # noqa: E402
import sqlalchemy as sa  # noqa: E402
import webtest  # noqa: E402

import reserve  # noqa: E402
from reserve.api import app as api_app  # noqa: E402
from reserve.common import policy  # noqa: E402
from reserve.common import rpc  # noqa: E402
from reserve.common import states  # noqa: E402
from reserve import conf as reserve_conf  # noqa: E402,F401
from reserve.db import api as db_api  # noqa: E402
from reserve.db import models  # noqa: E402
from tests.fixtures import backends  # noqa: E402
from tests.fixtures import database  # noqa: E402

CONF = cfg.CONF
ADMIN = {'X-User-Id': 'root', 'X-Project-Id': 'admin-project',
         'X-Roles': 'admin,member,reader'}
PATH = '/v1/device-reservations?all_projects=1&limit=%d'
# A100 SXM4 80GB: a model selection.model_name knows.
VENDOR, PRODUCT = '0x10de', '0x20b2'
STATUSES = ('PENDING', 'ACTIVE', 'EXPIRED', 'CANCELLED')


def _ids(rnd):
    while True:
        yield str(uuid.UUID(int=rnd.getrandbits(128), version=4))


def build(engine, args):
    """Write the hosts, devices and reservations; returns how many
    reservations."""
    rnd = random.Random(args.seed)
    ids = _ids(rnd)
    now = datetime.datetime.now(datetime.timezone.utc).replace(
        tzinfo=None, microsecond=0)
    stamps = {'created_at': now, 'updated_at': now}
    models.Base.metadata.create_all(engine)
    hosts, devices = [], []
    for h in range(args.hosts):
        host_id = next(ids)
        hosts.append(dict(stamps, id=host_id, kind=states.LIBVIRT,
                          name='gpu-box-%03d' % h,
                          uri='test:///gpu-box-%03d' % h, reservable=True,
                          topology_generation='g1'))
        for u in range(args.devices):
            address = '0000:%02x:00.0' % (0x17 + u)
            devices.append(dict(
                stamps, id=next(ids), host_id=host_id,
                name='pci_' + address.replace(':', '_').replace('.', '_'),
                pci_address=address, pci_class='0x030200',
                vendor_id=VENDOR, product_id=PRODUCT,
                vendor_name='NVIDIA Corporation',
                product_name='GA100 [A100 SXM4 80GB]', numa_node=u % 2,
                iommu_group=u, driver='vfio-pci', state='PRESENT'))
    by_host = {}
    for device in devices:
        by_host.setdefault(device['host_id'], []).append(device)
    rows = {name: [] for name in (
        'leases', 'lease_reservations', 'device_reservations',
        'device_reservation_projects', 'device_reservation_devices',
        'device_attachments')}
    for i in range(args.reservations):
        host = hosts[i % len(hosts)]
        picked = rnd.sample(by_host[host['id']], 2)
        start = now + datetime.timedelta(hours=i)
        end = start + datetime.timedelta(hours=2)
        rsv_id, project = next(ids), 'project-%02d' % (i % 20)
        status = STATUSES[i % len(STATUSES)]
        rows['device_reservations'].append(dict(
            stamps, id=rsv_id, host_id=host['id'], project_id=project,
            user_id='user-%d' % i, start=start, end=end,
            status=status, request={'count': 2, 'model': 'A100 SXM4 80GB'},
            contract_ref='C-%d' % i, reason='bench',
            topology_generation='g1',
            released_at=end if status in ('EXPIRED', 'CANCELLED')
            else None))
        rows['device_reservation_projects'].append(dict(
            stamps, device_reservation_id=rsv_id, project_id=project,
            role='allowed'))
        for device in picked:
            rows['device_reservation_devices'].append(dict(
                stamps, device_reservation_id=rsv_id, device_id=device['id']))
        for d in range(1 + i % 2):
            rows['device_attachments'].append(dict(
                stamps, id=next(ids), device_reservation_id=rsv_id,
                device_id=picked[d]['id'], domain='vm-%d' % i, kind='pci',
                project_id=project,
                state='ATTACHED' if status == 'ACTIVE' else 'PLANNED',
                live=True, config=True))
        lease_id = next(ids)
        rows['leases'].append(dict(
            stamps, id=lease_id, name='device-reservation-%s' % rsv_id,
            owner_type='device-reservation', owner_id=rsv_id,
            project_id=project, user_id='user-%d' % i, start=start,
            end=end, status='PENDING', degraded=False))
        rows['lease_reservations'].append(dict(
            stamps, id=rsv_id, lease_id=lease_id, resource_type='device:gpu',
            status='PENDING', amount=2, extra_specs={}))
    tables = models.Base.metadata.tables
    with engine.begin() as conn:
        conn.execute(tables['hosts'].insert(), hosts)
        conn.execute(tables['devices'].insert(), devices)
        for name, values in rows.items():
            conn.execute(tables[name].insert(), values)
    with engine.begin() as conn:
        if engine.dialect.name == 'mysql':
            conn.execute(sa.text('ANALYZE TABLE %s' % ', '.join(rows)))
        elif engine.dialect.name == 'sqlite':
            conn.execute(sa.text('ANALYZE'))
    return args.reservations


def percentile(samples, pct):
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(pct / 100.0 * len(ordered)) - 1)]


def measure(args, backend, tmp):
    with backends.throwaway_database(backend, tmp) as url:
        CONF.set_override('connection', url, group='database')
        database.reset_engine()
        try:
            return _measure(args, backend)
        finally:
            database.reset_engine()
            CONF.clear_override('connection', group='database')


def _measure(args, backend):
    engine = db_api.get_engine()
    count = build(engine, args)
    rpc.cleanup()
    policy.reset()
    app = webtest.TestApp(api_app.setup_app(),
                          extra_environ={'REMOTE_ADDR': '127.0.0.1'})
    path = PATH % count
    statements = []
    sa.event.listen(engine, 'before_cursor_execute',
                    lambda *a: statements.append(1))
    for _ in range(2):
        body = app.get(path, headers=ADMIN).json
        assert len(body['device_reservations']) == count, len(
            body['device_reservations'])
    if args.gc_freeze:
        gc.collect()
        gc.freeze()
    samples, cpu, sent = [], [], []
    load = os.getloadavg()[0]
    try:
        for _ in range(args.requests):
            before = len(statements)
            began, began_cpu = time.perf_counter(), time.process_time()
            app.get(path, headers=ADMIN)
            samples.append((time.perf_counter() - began) * 1000.0)
            cpu.append((time.process_time() - began_cpu) * 1000.0)
            sent.append(len(statements) - before)
    finally:
        gc.unfreeze()
    return {'backend': backend, 'rows': count,
            'p50': percentile(samples, 50), 'p99': percentile(samples, 99),
            'cpu_p50': percentile(cpu, 50),
            'load': max(load, os.getloadavg()[0]),
            'statements': sum(sent) / len(sent)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--backends', default='sqlite,mysql,postgresql')
    parser.add_argument('--hosts', type=int, default=10)
    parser.add_argument('--devices', type=int, default=8)
    parser.add_argument('--reservations', type=int, default=1000)
    parser.add_argument('--requests', type=int, default=30)
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--no-gc-freeze', dest='gc_freeze',
                        action='store_false')
    args = parser.parse_args()
    conffixture.ConfFixture(CONF)  # registers oslo.messaging's options
    CONF([], project='reserve', default_config_files=[])
    CONF.set_override('auth_strategy', 'noauth', group='api')
    CONF.set_override('transport_url', 'fake://')
    CONF.set_override('max_limit', max(1000, args.reservations),
                      group='api')
    print('tree: %s%s' % (os.path.dirname(os.path.dirname(reserve.__file__)),
                          ', gc frozen' if args.gc_freeze else ''))
    print('%-11s %6s %9s %9s %12s %11s %6s' % (
        'backend', 'rows', 'p50 ms', 'p99 ms', 'cpu p50 ms', 'statements',
        'load'))
    for backend in args.backends.split(','):
        with tempfile.TemporaryDirectory(prefix='reserve-bench-') as tmp:
            found = measure(args, backend, pathlib.Path(tmp))
        print('%-11s %6d %9.1f %9.1f %12.1f %11.1f %6.1f' % (
            found['backend'], found['rows'], found['p50'], found['p99'],
            found['cpu_p50'], found['statements'], found['load']))
        sys.stdout.flush()


if __name__ == '__main__':
    main()
