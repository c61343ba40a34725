"""The database's engine and transactions, and what every module of
reserve.db shares; the queries live in a module per resource
(reserve.db.bookings, leases, hosts, events, flavors, maintenance,
devices, services, and desk for the booking desk's calendar reads).

Every function of those modules takes a RequestContext first and joins
the transaction the caller may have open on it (``writer.using`` and
``reader.using`` of this module, looked up at each call: reset_engine
replaces them). Functions that take ``project_id`` return only that
project's rows when it is set; the API passes None only for callers
allowed to see all projects, so a project never learns that another
project's row exists (404).
"""
import importlib
import sqlite3

from oslo_db import api as oslo_db_api
from oslo_db.sqlalchemy import enginefacade
from oslo_db.sqlalchemy import utils as db_utils
import sqlalchemy as sa

from reserve.common import exception


# SQLite, the embedded default, is shared by the all-in-one's threads and
# by several processes: readers must not block the writer (WAL), and a
# writer waits for the lock (busy_timeout) rather than failing at once
# with "database is locked".
SQLITE_BUSY_TIMEOUT_MS = 30000

# InnoDB may choose any writer as a deadlock's victim (two daemons
# updating bookings, leases and their claims in different orders). A
# transaction of its own is safe to run again: the writes every daemon
# makes from the top (not inside a caller's transaction) retry.
retry_on_deadlock = oslo_db_api.wrap_db_retry(max_retries=5,
                                              retry_on_deadlock=True)


@sa.event.listens_for(sa.engine.Engine, 'connect')
def _sqlite_pragmas(dbapi_connection, connection_record):
    if isinstance(dbapi_connection, sqlite3.Connection):
        dbapi_connection.execute('PRAGMA busy_timeout = %d' %
                                 SQLITE_BUSY_TIMEOUT_MS)
        dbapi_connection.execute('PRAGMA journal_mode = WAL')


def _make_context_manager():
    manager = enginefacade.transaction_context()
    manager.configure(sqlite_fk=True)
    return manager


context_manager = _make_context_manager()
reader = context_manager.reader
writer = context_manager.writer


def get_engine():
    return context_manager.writer.get_engine()


def reset_engine():
    """Forget the engine, so the next call connects to [database]connection
    anew (tests and tools that switch databases)."""
    global context_manager, reader, writer
    if context_manager._factory._started:
        context_manager.writer.get_engine().dispose()
    context_manager = _make_context_manager()
    reader = context_manager.reader
    writer = context_manager.writer


def _paginate(query, model, limit, marker, sort_key='created_at',
              sort_dir='asc'):
    marker_obj = None
    if marker:
        marker_obj = query.session.get(model, marker)
        if marker_obj is None:
            raise exception.Invalid(reason='marker %s not found' % marker)
    return db_utils.paginate_query(query, model, limit,
                                   [sort_key, 'id'], marker=marker_obj,
                                   sort_dir=sort_dir).all()


# Names that moved to the resource modules ------------------------------
#
# The API layer still calls them here while its controllers are being
# rewritten; it moves to the resource modules next, and then these maps
# and forward() go. Resolved at each lookup, not imported: the resource
# modules import this one.

MOVED = {
    'bookings': (
        'booking_create', 'booking_get', 'booking_list',
        'booking_list_by_lease', 'booking_update', 'booking_destroy',
        'booking_list_stale', 'booking_list_out_of_step',
        'booking_list_end_not_on_lease', 'booking_purge'),
    'leases': (
        'lease_create', 'lease_get', 'lease_get_by_name',
        'lease_get_by_owner', 'lease_list', 'lease_update', 'lease_destroy',
        'lease_list_orphans', 'reservation_lease_id', 'reservation_update',
        'allocations_delete', 'allocation_list', 'allocation_get'),
    'hosts': (
        'capacity_changed', 'host_create', 'host_get', 'host_list',
        'host_update', 'host_destroy', 'host_windows', 'host_window_create',
        'host_window_get', 'host_window_destroy'),
    'events': (
        'MANAGER_BINARY', 'event_claim_due', 'event_release_claims_of',
        'event_create', 'event_update', 'event_list_for_lease',
        'event_next_time'),
}


def forward(moved):
    """A module ``__getattr__`` finding each name of ``moved`` ({module
    of reserve.db: names}) in its new module."""
    where = {name: module for module, names in moved.items()
             for name in names}

    def __getattr__(name):
        if name not in where:
            raise AttributeError(name)
        module = importlib.import_module('reserve.db.' + where[name])
        return getattr(module, name)
    return __getattr__


__getattr__ = forward(MOVED)
