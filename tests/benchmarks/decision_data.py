"""The database of a decision benchmark (bench_decision.py): a throwaway
one per backend, or one kept on disk between runs (``cached``), holding a
shape of shapes.py."""
import contextlib
import datetime
import hashlib
import json
import os
import random
import shutil
import sys
import tempfile
import uuid

from oslo_config import cfg
import sqlalchemy as sa

from reserve.common import states
from reserve.db import functions
from reserve.db import models
from reserve.db import slot_days
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


def _schema(engine):
    """A fingerprint of the tables' columns (not their indexes, which
    cached() brings up to date) on ``engine``'s dialect."""
    ddl = [str(sa.schema.CreateTable(
        table, include_foreign_key_constraints=()).compile(
            dialect=engine.dialect))
           for table in models.Base.metadata.sorted_tables]
    return hashlib.sha256('\n'.join(ddl).encode()).hexdigest()[:12]


def _align_indexes(engine):
    """The cached database's indexes made those of reserve's models: the
    missing ones created, the others (of the models' tables) dropped, so
    that a cache made before a new index measures with it, and one made
    after measures without it on an older tree."""
    inspector = sa.inspect(engine)
    for table in models.Base.metadata.sorted_tables:
        if not inspector.has_table(table.name):
            continue
        present = {i['name'] for i in inspector.get_indexes(table.name)
                   if not i.get('unique')}
        wanted = {i.name: i for i in table.indexes if not i.unique}
        for name in sorted(present - set(wanted)):
            # Only indexes of reserve's naming: foreign keys' own
            # (MariaDB's) stay.
            if name.startswith('ix_'):
                _drop_index(engine, table.name, name)
        for name in sorted(set(wanted) - present):
            wanted[name].create(engine)


def _drop_index(engine, table, name):
    with engine.begin() as conn:
        if engine.dialect.name == 'mysql':
            conn.execute(sa.text('DROP INDEX %s ON %s' % (name, table)))
        else:
            conn.execute(sa.text('DROP INDEX %s' % name))


def forget_decisions(engine):
    """Delete what timed decisions wrote (their bookings are
    PENDING_CREATE, the shape's ALLOCATED), so that the next run finds
    the shape as built (the flavor's slots by day worked out again)."""
    bookings = models.Booking.__table__
    allocations = models.Allocation.__table__
    with engine.begin() as conn:
        written = conn.execute(sa.select(bookings.c.id).where(
            bookings.c.status != states.Booking.ALLOCATED)).scalars().all()
        # By the ids, through the index on booking_id: MariaDB ran the
        # same delete with a subquery as a scan of every allocation
        # (a minute at a million), just before the timed decisions.
        for chunk in functions.in_list_chunks(written, engine.dialect.name):
            conn.execute(allocations.delete().where(
                allocations.c.booking_id.in_(chunk)))
        conn.execute(bookings.delete().where(
            bookings.c.status != states.Booking.ALLOCATED))
        slot_days.rebuild(conn)


@contextlib.contextmanager
def cached(backend, directory, key):
    """A database of ``backend`` kept between runs, named by ``key`` (the
    shape and how it is spread) and the tables' fingerprint, in
    ``directory`` (the SQLite file and, for every backend, a note of what
    it holds). Yields (URL, the note: a dict, empty when the database is
    new and must be built; the caller fills it in, and it is written
    only when the block ends without error)."""
    os.makedirs(directory, exist_ok=True)
    probe = (sa.create_engine('sqlite://') if backend == 'sqlite' else
             sa.create_engine(backends.SERVERS[backend]))
    name = 'reserve_benchcache_%s' % hashlib.sha256(
        ('%s/%s' % (key, _schema(probe))).encode()).hexdigest()[:16]
    note_path = os.path.join(directory, '%s.%s.json' % (name, backend))
    note = {}
    if os.path.exists(note_path):
        with open(note_path) as f:
            note = json.load(f)
    if backend == 'sqlite':
        path = os.path.join(directory, name + '.sqlite')
        if not note and os.path.exists(path):
            os.remove(path)         # a build that did not finish
        url = 'sqlite:///%s' % path
    else:
        admin = probe.execution_options(isolation_level='AUTOCOMMIT')
        with admin.connect() as conn:
            if not note:
                conn.execute(sa.text('DROP DATABASE IF EXISTS %s' % name))
            conn.execute(sa.text('CREATE DATABASE IF NOT EXISTS %s' % name))
        made = admin.url.set(database=name)
        if backend == 'mysql':
            made = made.update_query_dict({'charset': 'utf8mb4'})
        url = made.render_as_string(hide_password=False)
    probe.dispose()
    CONF.set_override('connection', url, group='database')
    database.reset_engine()
    try:
        if note:
            engine = sa.create_engine(url)
            try:
                _align_indexes(engine)
                forget_decisions(engine)
            finally:
                engine.dispose()
        yield url, note
        if note:
            with open(note_path + '.new', 'w') as f:
                json.dump(note, f)
            os.replace(note_path + '.new', note_path)
    finally:
        database.reset_engine()
        CONF.clear_override('connection', group='database')


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


def _bulk(conn):
    """A connection's settings for loading rows it alone writes (the
    database is thrown away, or kept only once the load is done)."""
    if conn.dialect.name == 'mysql':
        conn.execute(sa.text('SET SESSION foreign_key_checks = 0, '
                             'unique_checks = 0'))


def _unsynced(dbapi_connection, record):
    dbapi_connection.execute('PRAGMA synchronous = OFF')


def build(engine, shape, projects, seed):
    """Write ``shape`` in reserve's tables, as enrolment and admission
    would have; returns the catalogue flavor's id."""
    if engine.dialect.name != 'sqlite':
        return _build(engine, shape, projects, seed)
    # SQLite loads on an engine of its own that does not wait for the
    # disk.
    loader = sa.create_engine(engine.url)
    sa.event.listen(loader, 'connect', _unsynced)
    try:
        return _build(loader, shape, projects, seed)
    finally:
        loader.dispose()


def _build(engine, shape, projects, seed):
    ids = _ids(random.Random(seed))
    now = datetime.datetime.now(datetime.timezone.utc).replace(
        tzinfo=None, microsecond=0)
    stamps = {'created_at': now, 'updated_at': now}
    longest = max(int((b['end'] - b['start']).total_seconds())
                  for b in shape.bookings)
    tables = models.Base.metadata.sorted_tables
    with engine.begin() as conn:
        # The indexes come once the rows are in: building them then is
        # many times faster than keeping them up to date row by row.
        for table in tables:
            conn.execute(sa.schema.CreateTable(table, if_not_exists=True))
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
        _bulk(conn)
        _insert(conn, models.Host.__table__, hosts)
        _insert(conn, models.Flavor.__table__, [flavor])
        _insert(conn, models.Booking.__table__, bookings)
        _insert(conn, models.Allocation.__table__, allocations)
        _insert(conn, models.CapacityState.__table__, [
            dict(stamps, id=1, generation=1, longest_allocation=longest)])
        # The flavor's slots held by day, as admission keeps them.
        slot_days.rebuild(conn)
    with engine.begin() as conn:
        _bulk(conn)
        for table in tables:
            for index in sorted(table.indexes, key=lambda i: i.name):
                index.create(conn)
    with engine.begin() as conn:
        if engine.dialect.name == 'mysql':
            conn.execute(sa.text('ANALYZE TABLE hosts, flavors, bookings, '
                                 'allocations'))
        elif engine.dialect.name == 'sqlite':
            conn.execute(sa.text('ANALYZE'))
    return flavor_id
