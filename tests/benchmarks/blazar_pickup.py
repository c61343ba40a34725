"""Time blazar's choice of hosts for an instance reservation.

The blazar half of the decision benchmark: run by the interpreter of the
virtualenv that blazar_venv.sh makes (blazar 18.0.0 from PyPI), never by
reserve's own.

    PY=$(tests/benchmarks/blazar_venv.sh | tail -n 1)
    $PY tests/benchmarks/blazar_pickup.py --hosts 1000 --bookings 100000 \\
        --decisions 20

It builds blazar's own database on a throwaway SQLite file, with
blazar's schema (``blazar.db.api.setup_db``, as blazar's unit tests
make it) holding the shape of shapes.make_shape: a computehost per host
and, per booking, the rows blazar's manager writes for a lease with one
``virtual:instance`` reservation (lease, three events, reservation,
instance_reservations row, one computehost_allocations row per
instance). Then it times ``VirtualInstancePlugin.pickup_hosts`` -- the
choice of hosts that blazar makes when it admits a reservation -- for
each of the shape's request windows, and prints one JSON line.

Foreign-key columns are indexed by default, as MariaDB (blazar's
production backend) does by itself; ``--no-fk-indexes`` keeps SQLite's
bare schema, where each per-host query scans the allocations and builds
throwaway indexes: about 30 ms a host at 100 hosts x 10k bookings, over
a second at 1,000 x 100k (a single decision took 21 minutes).

Only the clouds are mocked: blazar's nova and placement clients, whose
calls are counted (pickup_hosts makes none; it reads blazar's database
alone). SQL statements are counted on the engine blazar's sessions use:
all of them (each of blazar's reads runs in a session of its own, so
every SELECT comes with a BEGIN), and the SELECTs alone. Per decision
blazar reads the reservation's old allocations, the hosts that fit the
flavor, then each host's reservations overlapping the window (one query
per host) and each such reservation's events (one query per host and
reservation).
"""
import argparse
import datetime
from importlib import metadata
import json
import os
import random
import shutil
import sys
import tempfile
import time
import uuid
from unittest import mock
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# futurist imports eventlet, which warns on import that it is deprecated.
warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')

import shapes  # noqa: E402

from blazar import config  # noqa: E402
from blazar.db import api as db_api  # noqa: E402
from blazar.db.sqlalchemy import facade_wrapper  # noqa: E402
from blazar.db.sqlalchemy import models  # noqa: E402
from blazar.manager import exceptions as mgr_exceptions  # noqa: E402
from blazar.plugins import instances  # noqa: E402
from blazar.plugins.instances import instance_plugin  # noqa: E402
# Loaded by blazar's manager with the plugins; VirtualInstancePlugin's
# __init__ expects it imported.
from blazar.plugins.oshosts import host_plugin  # noqa: E402,F401
from blazar import status  # noqa: E402
from blazar.utils.openstack import nova  # noqa: E402
from blazar.utils.openstack import placement  # noqa: E402
import sqlalchemy as sa  # noqa: E402

CONF = config.CONF
IMPL = 'blazar %s pickup_hosts' % metadata.version('blazar')
BATCH = 20000                       # rows per executemany
# The manager's default [manager]minutes_before_end_lease: every lease
# gets a before_end_lease event that long before its end.
BEFORE_END = datetime.timedelta(minutes=60)
# What placement reports for a compute node; blazar copies it into
# computehost_resource_inventory when a host is enrolled.
INVENTORY = (('VCPU', 'vcpus'), ('MEMORY_MB', 'memory_mb'),
             ('DISK_GB', 'disk_gb'))


class Counter:
    """Counts the statements sent on an engine."""

    def __init__(self, engine):
        self.statements = 0
        self.selects = 0
        sa.event.listen(engine, 'before_cursor_execute', self._count)

    def _count(self, conn, cursor, statement, parameters, context,
               executemany):
        self.statements += 1
        if statement.lstrip()[:6].upper() == 'SELECT':
            self.selects += 1


def _ids(rnd):
    """Deterministic UUIDs, so that row order (blazar reads hosts with
    no ORDER BY) is the same from run to run."""
    while True:
        yield str(uuid.UUID(int=rnd.getrandbits(128), version=4))


def _insert(conn, model, rows):
    for i in range(0, len(rows), BATCH):
        conn.execute(model.__table__.insert(), rows[i:i + BATCH])


def build(engine, shape, traits):
    """Write ``shape`` in blazar's tables, as blazar's host enrolment and
    lease creation would; returns the hosts' ids."""
    rnd = random.Random(shape.seed)
    ids = _ids(rnd)
    now = datetime.datetime.now(datetime.timezone.utc).replace(
        tzinfo=None)
    trust = next(ids)
    hosts, inventory, host_traits = [], [], []
    for host in shape.hosts:
        hosts.append({
            'id': next(ids), 'vcpus': host['vcpus'],
            'cpu_info': '{}', 'hypervisor_type': 'QEMU',
            'hypervisor_version': 8002000,
            'hypervisor_hostname': host['name'],
            'service_name': host['name'], 'memory_mb': host['memory_mb'],
            'local_gb': host['disk_gb'], 'availability_zone': 'nova',
            'trust_id': trust, 'reservable': True, 'created_at': now})
        for resource_class, key in INVENTORY:
            inventory.append({
                'id': next(ids), 'computehost_id': hosts[-1]['id'],
                'resource_class': resource_class, 'total': host[key],
                'reserved': 0, 'min_unit': 1, 'max_unit': host[key],
                'step_size': 1, 'allocation_ratio': 1.0,
                'created_at': now})
        for t in range(traits):
            host_traits.append({
                'id': next(ids), 'computehost_id': hosts[-1]['id'],
                'trait': 'CUSTOM_BENCH_TRAIT_%d' % t, 'created_at': now})
    leases, events, reservations, inst, allocs = [], [], [], [], []
    for i, booking in enumerate(shape.bookings):
        lease_id = next(ids)
        reservation_id = next(ids)
        resource_id = next(ids)             # its instance_reservations row
        start, end = booking['start'], booking['end']
        leases.append({
            'id': lease_id, 'name': 'bench-lease-%06d' % i,
            'user_id': 'bench', 'project_id': 'project-%d' % (i % 1000),
            'start_date': start, 'end_date': end, 'trust_id': trust,
            'status': status.lease.PENDING, 'degraded': False,
            'created_at': now})
        for kind, when in (('start_lease', start), ('end_lease', end),
                           ('before_end_lease',
                            max(start, end - BEFORE_END))):
            events.append({
                'id': next(ids), 'lease_id': lease_id, 'event_type': kind,
                'time': when, 'status': status.event.UNDONE,
                'created_at': now})
        reservations.append({
            'id': reservation_id, 'lease_id': lease_id,
            'resource_id': resource_id,
            'resource_type': instances.RESOURCE_TYPE,
            'status': status.reservation.PENDING,
            'missing_resources': False, 'resources_changed': False,
            'created_at': now})
        # affinity None: no server group, and the instances may share a
        # host, which is how pickup_hosts stacks them (one allocation row
        # per instance, the host repeated).
        inst.append({
            'id': resource_id, 'reservation_id': reservation_id,
            'vcpus': booking['vcpus'], 'memory_mb': booking['memory_mb'],
            'disk_gb': booking['disk_gb'], 'amount': booking['count'],
            'affinity': None, 'resource_properties': '',
            'flavor_id': reservation_id, 'aggregate_id': i + 1,
            'created_at': now})
        host_id = hosts[booking['host']]['id']
        for _ in range(booking['count']):
            allocs.append({'id': next(ids), 'compute_host_id': host_id,
                           'reservation_id': reservation_id,
                           'created_at': now})
    with engine.begin() as conn:
        for model, rows in (
                (models.ComputeHost, hosts),
                (models.ComputeHostResourceInventory, inventory),
                (models.ComputeHostTrait, host_traits),
                (models.Lease, leases), (models.Event, events),
                (models.Reservation, reservations),
                (models.InstanceReservations, inst),
                (models.ComputeHostAllocation, allocs)):
            _insert(conn, model, rows)
    return [h['id'] for h in hosts]


def index_foreign_keys(engine):
    """Index every foreign key's columns, as MariaDB's InnoDB does by
    itself for the foreign keys of blazar's migrations (the models have
    the same ones). SQLite makes no such index, so without these each of
    blazar's per-host queries scans computehost_allocations and builds
    throwaway indexes over instance_reservations."""
    for table in models.Lease.metadata.sorted_tables:
        for fk in table.foreign_key_constraints:
            columns = [c.name for c in fk.columns]
            sa.Index('bench_fk_%s_%s' % (table.name, '_'.join(columns)),
                     *[table.c[c] for c in columns]).create(engine)


def percentile(samples, pct):
    ordered = sorted(samples)
    index = max(0, -(-len(ordered) * pct // 100) - 1)   # nearest rank
    return ordered[int(index)]


def run(args):
    directory = tempfile.mkdtemp(prefix='blazar-bench-')
    try:
        CONF([], project='blazar', default_config_files=[])
        CONF.set_override('connection',
                          'sqlite:///%s/blazar.sqlite' % directory,
                          group='database')
        facade_wrapper._clear_engine()
        began = time.perf_counter()
        shape = shapes.make_shape(args.hosts, args.bookings, args.seed,
                                  load=args.load)
        shape_s = time.perf_counter() - began
        began = time.perf_counter()
        db_api.setup_db()
        engine = facade_wrapper._get_facade().writer.get_engine()
        build(engine, shape, args.traits)
        if args.fk_indexes:
            index_foreign_keys(engine)      # faster after the rows
        build_s = time.perf_counter() - began
        return measure(args, shape, engine, shape_s, build_s)
    finally:
        facade_wrapper._clear_engine()
        shutil.rmtree(directory, ignore_errors=True)


def measure(args, shape, engine, shape_s, build_s):
    # The clouds: every call on a nova client or on the placement client
    # is recorded by its mock.
    nova_client = mock.MagicMock(name='BlazarNovaClient')
    placement_client = mock.MagicMock(name='BlazarPlacementClient')
    with mock.patch.object(nova, 'BlazarNovaClient', nova_client), \
            mock.patch.object(placement, 'BlazarPlacementClient',
                              placement_client):
        plugin = instance_plugin.VirtualInstancePlugin()
        counter = Counter(engine)
        # The timed decisions are shape.requests(decisions), the windows
        # reserve's side times too; the warm-up takes the ones after.
        windows = list(shape.requests(args.decisions + args.warmup))
        windows = windows[args.decisions:] + windows[:args.decisions]
        samples, statements, selects, cloud, admitted = [], 0, 0, 0, 0
        for i, window in enumerate(windows):
            values = {
                'amount': window['amount'], 'affinity': args.affinity,
                'vcpus': window['vcpus'], 'memory_mb': window['memory_mb'],
                'disk_gb': window['disk_gb'], 'resource_properties': '',
                'start_date': window['start'], 'end_date': window['end'],
            }
            before = (counter.statements, counter.selects)
            cloud_before = (len(nova_client.mock_calls) +
                            len(placement_client.mock_calls))
            began = time.perf_counter()
            try:
                # A new reservation's id: pickup_hosts looks up its old
                # allocations (none) before choosing.
                chosen = plugin.pickup_hosts(str(uuid.uuid4()), values)
            except mgr_exceptions.NotEnoughHostsAvailable:
                chosen = None
            elapsed = (time.perf_counter() - began) * 1000.0
            if i < args.warmup:
                continue
            samples.append(elapsed)
            statements += counter.statements - before[0]
            selects += counter.selects - before[1]
            cloud += (len(nova_client.mock_calls) +
                      len(placement_client.mock_calls) - cloud_before)
            admitted += chosen is not None
    n = len(samples)
    return {
        'impl': IMPL, 'backend': 'sqlite', 'fk_indexes': args.fk_indexes,
        'hosts': args.hosts, 'bookings': args.bookings, 'seed': args.seed,
        'load': args.load, 'busy': round(shape.busy, 3),
        'n': n,
        'p50_ms': round(percentile(samples, 50), 2),
        'p99_ms': round(percentile(samples, 99), 2),
        'max_ms': round(max(samples), 2),
        'sql_per_decision': round(statements / n, 1),
        'selects_per_decision': round(selects / n, 1),
        'cloud_calls_per_decision': round(cloud / n, 1),
        'admitted': admitted,
        'build_s': round(build_s, 2), 'shape_s': round(shape_s, 2),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--hosts', type=int, required=True)
    parser.add_argument('--bookings', type=int, required=True)
    parser.add_argument('--decisions', type=int, default=20,
                        help='decisions timed (default 20)')
    parser.add_argument('--warmup', type=int, default=1,
                        help='decisions run first and not timed '
                             '(default 1)')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--load', type=float, default=None,
                        help='the vCPU load the bookings\' durations aim '
                             'at (shapes.make_shape\'s load; default: '
                             'the shape\'s own)')
    parser.add_argument('--affinity', default='None',
                        choices=('None', 'True', 'False'),
                        help='the decisions\' affinity, as the API takes '
                             'it (default None: instances may share a '
                             'host)')
    parser.add_argument('--traits', type=int, default=0,
                        help='placement traits stored per host (a real '
                             'libvirt node has dozens; default 0)')
    parser.add_argument('--no-fk-indexes', dest='fk_indexes',
                        action='store_false',
                        help='keep blazar\'s SQLite schema bare, without '
                             'the foreign-key indexes MariaDB would have')
    args = parser.parse_args(argv)
    if args.decisions < 1:
        parser.error('--decisions must be at least 1')
    print(json.dumps(run(args)), flush=True)


if __name__ == '__main__':
    main()
