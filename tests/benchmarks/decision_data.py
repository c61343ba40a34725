"""The database of a decision benchmark (bench_decision.py): a throwaway
one per backend, holding a shape of shapes.py."""
import contextlib
import datetime
import random
import shutil
import sys
import tempfile
import uuid

from oslo_config import cfg
import sqlalchemy as sa

from reserve.common import states
from reserve.db import models
from tests.fixtures import backends
from tests.fixtures import database

CONF = cfg.CONF
BATCH = 10000                       # rows per executemany
PROJECT = 'bench-project'           # the project deciding


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
        database.reset_engine()
        yield url
    finally:
        database.reset_engine()
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
    bookings, allocations = [], []
    for i, booking in enumerate(shape.bookings):
        booking_id = next(ids)
        bookings.append(dict(
            stamps, id=booking_id, project_id=project_of(i, projects),
            user_id='bench', flavor_id=flavor_id,
            instance_count=booking['count'], start=booking['start'],
            end=booking['end'], status=states.Booking.ALLOCATED))
        allocations.append(dict(
            stamps, id=next(ids), host_id=hosts[booking['host']]['id'],
            amount=booking['count'], start=booking['start'],
            end=booking['end'], booking_id=booking_id,
            lease_reservation_id=None, vcpus=booking['vcpus'],
            memory_mb=booking['memory_mb'], disk_gb=booking['disk_gb']))
    with engine.begin() as conn:
        _insert(conn, models.Host.__table__, hosts)
        _insert(conn, models.Flavor.__table__, [flavor])
        _insert(conn, models.Booking.__table__, bookings)
        _insert(conn, models.Allocation.__table__, allocations)
        _insert(conn, models.CapacityState.__table__, [
            dict(stamps, id=1, generation=1, longest_allocation=longest)])
    with engine.begin() as conn:
        if engine.dialect.name == 'mysql':
            conn.execute(sa.text('ANALYZE TABLE hosts, flavors, bookings, '
                                 'allocations'))
        elif engine.dialect.name == 'sqlite':
            conn.execute(sa.text('ANALYZE'))
    return flavor_id
