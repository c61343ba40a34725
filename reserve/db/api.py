"""The database's engine and transactions, and what every module of
reserve.db shares; the queries live in a module per resource
(reserve.db.bookings, leases, hosts, events, flavors, maintenance,
devices, device_reservations, services, and desk for the booking desk's
calendar reads).

Every function of those modules takes a RequestContext first and joins
the transaction the caller may have open on it (``writer.using`` and
``reader.using`` of this module, looked up at each call: the tests'
switch of database replaces them). Functions that take ``project_id``
return only that project's rows when it is set; the API passes None
only for callers allowed to see all projects, so a project never learns
that another project's row exists (404).
"""
import contextlib
import contextvars
import datetime
import json
import sqlite3
import threading

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
from oslo_db.sqlalchemy import utils as db_utils
import orjson
from pymysql import constants as pymysql_constants
from pymysql import converters as pymysql_converters
import sqlalchemy as sa

from reserve.common import exception
from reserve.db.models import base as models_base


# SQLite, the embedded default, is shared by the all-in-one's threads and
# by several processes: readers must not block the writer (WAL), and a
# writer waits for the lock (busy_timeout) rather than failing at once
# with "database is locked".
SQLITE_BUSY_TIMEOUT_MS = 30000

# InnoDB may choose any writer as a deadlock's victim (two daemons
# updating bookings, leases and their allocations in different orders). A
# transaction of its own is safe to run again: the writes every daemon
# makes from the top (not inside a caller's transaction) retry.
retry_on_deadlock = oslo_db_api.wrap_db_retry(max_retries=5,
                                              retry_on_deadlock=True)


def database_away(exc):
    """Whether ``exc`` is the database restarting (or a deadlock that
    outlived its retries): nothing was written, and the same call may
    succeed in a few seconds. A connection lost is oslo.db's
    DBConnectionError; a new connection refused is left by oslo.db as
    SQLAlchemy's OperationalError with no statement (e.g. PostgreSQL's
    "the database system is shutting down" or "Connection refused",
    which its filters do not match)."""
    if isinstance(exc, (db_exc.DBConnectionError, db_exc.DBDeadlock)):
        return True
    return isinstance(exc, sa.exc.OperationalError) and exc.statement is None


def log_failure(log, what, exc):
    """Log that ``what`` failed with ``exc``, from its except block: one
    line while the database is away (expected when it restarts), a
    traceback for anything else."""
    if database_away(exc):
        log.warning('%s, the database is unavailable: %s', what,
                    str(exc).splitlines()[0])
    else:
        log.exception('%s', what)


@sa.event.listens_for(sa.engine.Engine, 'connect')
def _sqlite_pragmas(dbapi_connection, _connection_record):
    if isinstance(dbapi_connection, sqlite3.Connection):
        dbapi_connection.execute('PRAGMA busy_timeout = %d' %
                                 SQLITE_BUSY_TIMEOUT_MS)
        dbapi_connection.execute('PRAGMA journal_mode = WAL')


# oslo.db opens a new SQLite connection for every transaction (NullPool):
# on the all-in-one each request paid a connect, its pragmas and a close,
# about a tenth of a short read. A file database's connections are kept
# in a pool instead, SQLAlchemy 2's own default for SQLite files (they
# are opened with check_same_thread off, and reset by a rollback when
# they return); :memory: databases keep oslo.db's StaticPool.
SQLITE_POOL_SIZE = 8


@sa.event.listens_for(sa.engine.Engine, 'engine_connect')
def _sqlite_pool(connection):
    engine = connection.engine
    old = engine.pool
    if (engine.dialect.name != 'sqlite' or
            not isinstance(old, sa.pool.NullPool)):
        return
    engine.pool = sa.pool.QueuePool(
        old._creator, pool_size=SQLITE_POOL_SIZE, max_overflow=-1,
        recycle=old._recycle, echo=old.echo, logging_name=old.logging_name,
        reset_on_return=old._reset_on_return, pre_ping=False,
        _dispatch=old.dispatch, dialect=old._dialect)


def _loads_json(text):
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        # What orjson refuses and json takes (NaN, huge integers).
        return json.loads(text)


# JSON columns (a device reservation's request, a host's GPUs) are read
# with orjson, several times faster than json for a long list's rows;
# they are still written by json.
@sa.event.listens_for(sa.engine.Engine, 'engine_connect')
def _json_reader(connection):
    dialect = connection.engine.dialect
    if getattr(dialect, '_json_deserializer', None) is not _loads_json:
        dialect._json_deserializer = _loads_json


# PyMySQL parses every DATETIME value with a regular expression in Python,
# the largest cost of reading long lists on MariaDB after the network;
# datetime.fromisoformat reads MariaDB's text in C. What it does not take
# (a zero date, say) goes to PyMySQL's own parser, which answers as before.
def _pymysql_datetime(text):
    try:
        return datetime.datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return pymysql_converters.convert_datetime(text)


# Lists read a row's children joined into one string (GROUP_CONCAT), which
# MySQL cuts at 1,024 bytes unless told otherwise; MariaDB's default is
# already this.
GROUP_CONCAT_MAX_LEN = 1048576


_PYMYSQL_CONVERSIONS = {
    **pymysql_converters.conversions,
    pymysql_constants.FIELD_TYPE.DATETIME: _pymysql_datetime,
    pymysql_constants.FIELD_TYPE.TIMESTAMP: _pymysql_datetime}


@sa.event.listens_for(sa.engine.Engine, 'do_connect')
def _mysql_connect_parameters(dialect, _connection_record, _cargs,
                              cparams):
    if dialect.name == 'mysql':
        cparams.setdefault('init_command', 'SET SESSION group_concat_max_len'
                           ' = %d' % GROUP_CONCAT_MAX_LEN)
    if dialect.driver == 'pymysql':
        cparams.setdefault('conv', _PYMYSQL_CONVERSIONS)


# A writer's transaction on SQLite takes the write lock when it begins
# (BEGIN IMMEDIATE), waiting for it under the busy timeout. A deferred
# one that reads first and writes later cannot wait: when another writer
# has committed since its read, SQLite fails the write at once with
# "database is locked", whatever the timeout.
_BEGIN_IMMEDIATE = contextvars.ContextVar('reserve_db_begin_immediate',
                                          default=False)
# Writer blocks open in this thread. One of another context opened inside
# a writer's transaction begins as before (deferred): taking the write
# lock there would wait for this very thread.
_OPEN_WRITERS = contextvars.ContextVar('reserve_db_open_writers',
                                       default=0)


@sa.event.listens_for(sa.engine.Engine, 'begin')
def _sqlite_begin(conn):
    # Runs before oslo.db's own listener (class-level listeners come
    # first), which then sees the transaction begun and emits nothing.
    # Sent as the driver's SQL: oslo.db's text("BEGIN") worked out a
    # cache key at every transaction, a few of them per request.
    if conn.dialect.name == 'sqlite' and 'in_transaction' not in conn.info:
        conn.exec_driver_sql('BEGIN IMMEDIATE' if _BEGIN_IMMEDIATE.get()
                             else 'BEGIN')
        conn.info['in_transaction'] = True


_SQLITE_WRITERS = threading.Lock()


def _is_sqlite():
    """Whether the writer's engine is SQLite's (the engine is made on
    first use, the database's URL read from the configuration)."""
    return get_engine().dialect.name == 'sqlite'


class _Writer:
    """enginefacade's writer, whose outermost transaction on SQLite
    begins with the write lock held."""

    def __init__(self, facade_writer):
        self._facade_writer = facade_writer

    @contextlib.contextmanager
    def using(self, context):
        if _OPEN_WRITERS.get() or not _is_sqlite():
            with self._using(context) as session:
                yield session
            return
        # The threads of one process (the all-in-one's four daemons)
        # queue for SQLite's write lock here: a thread waiting on a Python
        # lock wakes as soon as it is free, where SQLite's busy handler
        # sleeps up to 100 ms between its tries, which under a burst of
        # writers left the lock idle most of the time. Past the busy
        # timeout the writer goes on to SQLite, which then waits or fails
        # as before (writers of other processes are queued by SQLite).
        queued = _SQLITE_WRITERS.acquire(timeout=SQLITE_BUSY_TIMEOUT_MS /
                                         1000.0)
        try:
            with self._using(context) as session:
                yield session
        finally:
            if queued:
                _SQLITE_WRITERS.release()

    @contextlib.contextmanager
    def _using(self, context):
        with self._facade_writer.using(context) as session:
            if (not _OPEN_WRITERS.get() and
                    session.get_bind().dialect.name == 'sqlite'):
                # Begins the connection's transaction now.
                token = _BEGIN_IMMEDIATE.set(True)
                try:
                    session.connection()
                finally:
                    _BEGIN_IMMEDIATE.reset(token)
            depth = _OPEN_WRITERS.set(_OPEN_WRITERS.get() + 1)
            try:
                yield session
            finally:
                _OPEN_WRITERS.reset(depth)

    def __getattr__(self, name):
        return getattr(self._facade_writer, name)


def _make_context_manager():
    manager = enginefacade.transaction_context()
    # No sleep(0) at each connection's return to the pool: that yield is
    # for eventlet's green threads, and reserve runs on native ones.
    manager.configure(sqlite_fk=True, thread_checkin=False)
    return manager


context_manager = _make_context_manager()
reader = context_manager.reader
writer = _Writer(context_manager.writer)


def get_engine():
    return context_manager.writer.get_engine()


def compare_and_swap(session, model, row_id, values, expected_status=None,
                     expected_end=None):
    """Update the row ``row_id`` of ``model`` with ``values`` only while
    it still has ``expected_status`` (one or several) and, when given,
    ``expected_end``: of two writers who read the same row, the second
    loses. Returns whether the row changed. On a closable row the status
    compared is the one shown (models.closing): a close is never among
    the live statuses a move or a cancel expects, so it stays final."""
    query = session.query(model).filter_by(id=row_id)
    if expected_status is not None:
        if isinstance(expected_status, str):
            expected_status = (expected_status,)
        query = query.filter(model.status.in_(expected_status))
    if expected_end is not None:
        query = query.filter(model.end == expected_end)
    values = dict(values, updated_at=models_base._now())
    return bool(query.update(values, synchronize_session=False))


def _paginate(query, model, limit, marker, sort_key='created_at',
              sort_dir='asc'):
    return paginated(query, model, limit, marker, sort_key, sort_dir).all()


def paginated(query, model, limit, marker, sort_key='created_at',
              sort_dir='asc'):
    """``query`` limited to one page after ``marker`` (an id of
    ``model``), ordered by ``sort_key`` then id."""
    marker_obj = None
    if marker:
        marker_obj = query.session.get(model, marker)
        if marker_obj is None:
            raise exception.Invalid(reason='marker %s not found' % marker)
    return db_utils.paginate_query(query, model, limit,
                                   [sort_key, 'id'], marker=marker_obj,
                                   sort_dir=sort_dir)
