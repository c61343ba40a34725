"""Database access. Every function takes a RequestContext first.

Functions that take ``project_id`` return only that project's rows when it
is set; the API passes None only for callers allowed to see all projects,
so a project never learns that another project's row exists (404).
"""
import contextlib
import contextvars
import secrets
import sqlite3

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
from oslo_db.sqlalchemy import utils as db_utils
import sqlalchemy as sa
from sqlalchemy import orm

from reserve.common import exception
from reserve.common import states
from reserve.db import models


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
def _sqlite_pragmas(dbapi_connection, connection_record):
    if isinstance(dbapi_connection, sqlite3.Connection):
        dbapi_connection.execute('PRAGMA busy_timeout = %d' %
                                 SQLITE_BUSY_TIMEOUT_MS)
        dbapi_connection.execute('PRAGMA journal_mode = WAL')


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
    if (conn.dialect.name == 'sqlite' and _BEGIN_IMMEDIATE.get() and
            'in_transaction' not in conn.info):
        conn.exec_driver_sql('BEGIN IMMEDIATE')
        conn.info['in_transaction'] = True


class _Writer:
    """enginefacade's writer, whose outermost transaction on SQLite
    begins with the write lock held."""

    def __init__(self, facade_writer):
        self._facade_writer = facade_writer

    @contextlib.contextmanager
    def using(self, context):
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
    manager.configure(sqlite_fk=True)
    return manager


context_manager = _make_context_manager()
reader = context_manager.reader
writer = _Writer(context_manager.writer)


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
    writer = _Writer(context_manager.writer)


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


# Bookings -----------------------------------------------------------------

def _stretch_longest_booking(session, booking):
    """Keep the flavor's longest_booking an upper bound of the length of
    its bookings: the calendar's reads rely on it (see db.desk)."""
    seconds = int((booking.end_date - booking.start_date).total_seconds())
    known = session.identity_map.get(
        orm.util.identity_key(models.Flavor, booking.flavor_id))
    if known is not None and known.longest_booking >= seconds:
        # The value only ever grows: one already read is proof enough
        # (admission has just read it under the flavor's lock).
        return
    (session.query(models.Flavor)
     .filter(models.Flavor.id == booking.flavor_id)
     .filter(models.Flavor.longest_booking < seconds)
     .update({'longest_booking': seconds}, synchronize_session=False))


def booking_create(context, values):
    with writer.using(context) as session:
        booking = models.Booking(**values)
        session.add(booking)
        session.flush()
        _stretch_longest_booking(session, booking)
        return booking


def _booking_query(session, booking_id, project_id):
    query = session.query(models.Booking).filter_by(id=booking_id)
    if project_id is not None:
        query = query.filter_by(project_id=project_id)
    return query


def booking_get(context, booking_id, project_id=None):
    with reader.using(context) as session:
        booking = _booking_query(session, booking_id, project_id).first()
        if booking is None:
            raise exception.BookingNotFound(id=booking_id)
        return booking


def booking_list(context, project_id=None, flavor_id=None, status=None,
                 limit=None, marker=None):
    with reader.using(context) as session:
        query = session.query(models.Booking)
        if project_id is not None:
            query = query.filter_by(project_id=project_id)
        if flavor_id is not None:
            query = query.filter_by(flavor_id=flavor_id)
        if status is not None:
            query = query.filter_by(status=status)
        return _paginate(query, models.Booking, limit, marker)


def booking_list_by_lease(context, lease_id):
    with reader.using(context) as session:
        return (session.query(models.Booking)
                .filter_by(lease_id=lease_id).all())


@retry_on_deadlock
def booking_update(context, booking_id, values, expected_status=None):
    """Update a booking; with expected_status, only if it still has it.

    Returns the updated booking, or None when the compare-and-swap lost.
    """
    with writer.using(context) as session:
        query = session.query(models.Booking).filter_by(id=booking_id)
        if expected_status is not None:
            if isinstance(expected_status, str):
                expected_status = (expected_status,)
            query = query.filter(
                models.Booking.status.in_(expected_status))
        values = dict(values, updated_at=models._now())
        if not query.update(values, synchronize_session=False):
            if session.get(models.Booking, booking_id) is None:
                raise exception.BookingNotFound(id=booking_id)
            return None
        session.expire_all()
        booking = session.get(models.Booking, booking_id)
        if 'start_date' in values or 'end_date' in values:
            _stretch_longest_booking(session, booking)
        return booking


def booking_destroy(context, booking_id):
    with writer.using(context) as session:
        session.query(models.Booking).filter_by(id=booking_id).delete()


def booking_list_stale(context, status, updated_before):
    """Bookings in ``status`` untouched since ``updated_before``."""
    with reader.using(context) as session:
        return (session.query(models.Booking)
                .filter_by(status=status)
                .filter(models.Booking.updated_at < updated_before)
                .all())


def booking_list_out_of_step(context):
    """Bookings whose lease has moved on without them.

    Returns (booking, lease status) pairs where the booking still shows an
    earlier state than its lease (a lost notification).
    """
    wanted = {
        states.Booking.ALLOCATED: (states.Lease.ACTIVE,
                                   states.Lease.TERMINATED),
        states.Booking.ACTIVE: (states.Lease.TERMINATED,),
    }
    pairs = []
    with reader.using(context) as session:
        for booking_status, lease_states in wanted.items():
            rows = (session.query(models.Booking, models.Lease.status)
                    .join(models.Lease,
                          models.Lease.id == models.Booking.lease_id)
                    .filter(models.Booking.status == booking_status)
                    .filter(models.Lease.status.in_(lease_states))
                    .all())
            pairs.extend(rows)
    return pairs


def booking_list_end_not_on_lease(context, updated_before):
    """Bookings whose end moved but whose lease still ends elsewhere.

    The update_lease cast was lost (or its worker died): the lease would
    end at the old time. Only bookings untouched since ``updated_before``,
    so that a cast in flight is left to arrive.
    """
    with reader.using(context) as session:
        return (session.query(models.Booking)
                .join(models.Lease,
                      models.Lease.id == models.Booking.lease_id)
                .filter(models.Booking.status.in_(
                    (states.Booking.ALLOCATED, states.Booking.ACTIVE)))
                .filter(models.Lease.status.in_(
                    (states.Lease.PENDING, states.Lease.STARTING,
                     states.Lease.ACTIVE)))
                .filter(models.Booking.end_date != models.Lease.end_date)
                .filter(models.Booking.updated_at < updated_before)
                .all())


def booking_purge(context, ended_before):
    with writer.using(context) as session:
        return (session.query(models.Booking)
                .filter_by(status=states.Booking.COMPLETE)
                .filter(models.Booking.end_date < ended_before)
                .delete(synchronize_session=False))


# Leases -------------------------------------------------------------------

def lease_create(context, lease_values, reservations, events):
    """Write a lease, its reservations, allocations and events at once.

    ``reservations`` is a list of dicts of LeaseReservation columns plus
    an ``allocations`` list of Allocation columns (the claims chosen for
    it), or an ``adopt_booking`` id: the claims that booking's admission
    wrote become the reservation's.
    """
    with writer.using(context) as session:
        lease = models.Lease(**lease_values)
        adopted = []
        for rsv_values in reservations:
            rsv_values = dict(rsv_values)
            allocations = rsv_values.pop('allocations', [])
            booking_id = rsv_values.pop('adopt_booking', None)
            reservation = models.LeaseReservation(**rsv_values)
            reservation.allocations = [models.Allocation(**a)
                                       for a in allocations]
            lease.reservations.append(reservation)
            if booking_id:
                adopted.append((booking_id, reservation))
        lease.events = [models.Event(**e) for e in events]
        session.add(lease)
        try:
            session.flush()
        except db_exc.DBDuplicateEntry:
            raise exception.Conflict(
                reason='a lease named %s, or of the same owner, exists' %
                lease_values['name'])
        for booking_id, reservation in adopted:
            (session.query(models.Allocation)
             .filter(models.Allocation.booking_id == booking_id)
             .update({'reservation_id': reservation.id},
                     synchronize_session=False))
            session.expire(reservation, ['allocations'])
        return lease


def lease_get(context, lease_id, project_id=None):
    with reader.using(context) as session:
        query = session.query(models.Lease).filter_by(id=lease_id)
        if project_id is not None:
            query = query.filter_by(project_id=project_id)
        lease = query.first()
        if lease is None:
            raise exception.LeaseNotFound(id=lease_id)
        _load_lease(lease)
        return lease


def _load_lease(lease):
    # Touch the relationships so the object is usable after the session.
    for reservation in lease.reservations:
        for allocation in reservation.allocations:
            allocation.host  # noqa: B018
    lease.events  # noqa: B018


def lease_get_by_name(context, name):
    with reader.using(context) as session:
        lease = session.query(models.Lease).filter_by(name=name).first()
        if lease is not None:
            _load_lease(lease)
        return lease


def lease_get_by_owner(context, owner_type, owner_id):
    """The lease of a booking or a device reservation (states.Owner),
    or None."""
    with reader.using(context) as session:
        lease = (session.query(models.Lease)
                 .filter_by(owner_type=owner_type, owner_id=owner_id)
                 .first())
        if lease is not None:
            _load_lease(lease)
        return lease


def lease_list(context, project_id=None, status=None, limit=None,
               marker=None):
    with reader.using(context) as session:
        query = session.query(models.Lease)
        if project_id is not None:
            query = query.filter_by(project_id=project_id)
        if status is not None:
            query = query.filter_by(status=status)
        leases = _paginate(query, models.Lease, limit, marker)
        for lease in leases:
            _load_lease(lease)
        return leases


@retry_on_deadlock
def lease_update(context, lease_id, values, expected_status=None):
    with writer.using(context) as session:
        query = session.query(models.Lease).filter_by(id=lease_id)
        if expected_status is not None:
            if isinstance(expected_status, str):
                expected_status = (expected_status,)
            query = query.filter(models.Lease.status.in_(expected_status))
        values = dict(values, updated_at=models._now())
        return bool(query.update(values, synchronize_session=False))


def lease_destroy(context, lease_id):
    with writer.using(context) as session:
        lease = session.get(models.Lease, lease_id)
        if lease is not None:
            session.delete(lease)


def lease_list_orphans(context, created_before):
    """Live leases whose booking is gone, cancelled or failed.

    A booking's lease names it as its owner; one whose booking is still
    PENDING_CREATE is not an orphan (the worker died before recording
    it, and the next cast picks it up). A DELETING lease whose end is
    still in the future is one too: its manager died between marking it
    and moving its end_lease event to now. A lease with no owner is an
    orphan too; leases of device reservations never are here.
    """
    end_not_moved = sa.exists().where(
        models.Event.lease_id == models.Lease.id,
        models.Event.event_type == states.Event.END,
        models.Event.status == states.Event.UNDONE,
        models.Event.time > created_before)
    with reader.using(context) as session:
        return (session.query(models.Lease)
                .outerjoin(models.Booking, sa.and_(
                    models.Lease.owner_type == states.Owner.BOOKING,
                    models.Lease.owner_id == models.Booking.id))
                .filter(sa.or_(
                    models.Lease.owner_type.is_(None),
                    models.Lease.owner_type == states.Owner.BOOKING))
                .filter(sa.or_(
                    ~models.Lease.status.in_((states.Lease.TERMINATED,
                                              states.Lease.DELETING)),
                    sa.and_(models.Lease.status == states.Lease.DELETING,
                            models.Lease.updated_at < created_before,
                            end_not_moved)))
                .filter(models.Lease.created_at < created_before)
                .filter(sa.or_(models.Booking.id.is_(None),
                               models.Booking.status.in_(
                                   (states.Booking.COMPLETE,
                                    states.Booking.ERROR))))
                .all())


def reservation_lease_id(context, reservation_id):
    """The lease of a lease reservation, or None."""
    with reader.using(context) as session:
        row = (session.query(models.LeaseReservation.lease_id)
               .filter_by(id=reservation_id).first())
        return row[0] if row else None


def reservation_update(context, reservation_id, values):
    with writer.using(context) as session:
        values = dict(values, updated_at=models._now())
        (session.query(models.LeaseReservation)
         .filter_by(id=reservation_id)
         .update(values, synchronize_session=False))


def allocations_delete(context, reservation_id):
    with writer.using(context) as session:
        (session.query(models.Allocation)
         .filter_by(reservation_id=reservation_id)
         .delete(synchronize_session=False))


def _allocations_of(session, project_id=None):
    """Allocations joined to their lease (of ``project_id`` if given)."""
    query = (session.query(models.Allocation)
             .join(models.LeaseReservation,
                   models.Allocation.reservation_id ==
                   models.LeaseReservation.id)
             .join(models.Lease,
                   models.LeaseReservation.lease_id == models.Lease.id))
    if project_id is not None:
        query = query.filter(models.Lease.project_id == project_id)
    return query


def _with_lease(allocation):
    reservation = allocation.reservation
    return allocation, reservation, reservation.lease


def allocation_list(context, project_id=None, host_id=None,
                    reservation_id=None, lease_id=None, limit=None,
                    marker=None):
    """Allocations with the reservation and lease they belong to.

    Each row is ``(allocation, lease_reservation, lease)``; the host is
    loaded with the allocation. ``project_id`` limits them to the leases
    of that project.
    """
    with reader.using(context) as session:
        query = _allocations_of(session, project_id)
        if host_id is not None:
            query = query.filter(models.Allocation.host_id == host_id)
        if reservation_id is not None:
            query = query.filter(
                models.Allocation.reservation_id == reservation_id)
        if lease_id is not None:
            query = query.filter(models.LeaseReservation.lease_id == lease_id)
        return [_with_lease(allocation) for allocation in
                _paginate(query, models.Allocation, limit, marker)]


def allocation_get(context, allocation_id, project_id=None):
    """One allocation as ``(allocation, lease_reservation, lease)``."""
    with reader.using(context) as session:
        allocation = (_allocations_of(session, project_id)
                      .filter(models.Allocation.id == allocation_id)
                      .first())
        if allocation is None:
            raise exception.AllocationNotFound(id=allocation_id)
        return _with_lease(allocation)


# Hosts --------------------------------------------------------------------

def capacity_changed(session):
    """Give the capacity generation a new value in the caller's
    transaction: the processes that cached the hosts' records read them
    again. The value is random, not the next number: a transaction that
    read the hosts after its change and then rolled back must not leave
    a cache entry under a value a later change would take."""
    # From the system's source: nothing reseeds it (tests seed random).
    generation = secrets.randbelow(2 ** 31 - 1) + 1
    table = models.CapacityState.__table__
    result = session.execute(table.update().where(table.c.id == 1)
                             .values(generation=generation))
    if not result.rowcount:
        session.add(models.CapacityState(id=1, generation=generation,
                                         longest_claim=0))
        session.flush()


def host_create(context, values, capabilities=None):
    try:
        with writer.using(context) as session:
            host = models.Host(**values)
            host.capabilities = [models.HostCapability(key=k, value=str(v))
                                 for k, v in (capabilities or {}).items()]
            session.add(host)
            session.flush()
            capacity_changed(session)
            return host
    except db_exc.DBDuplicateEntry:
        existing = host_get(context, values['name'])
        raise exception.HostAlreadyEnrolled(name=values['name'],
                                            id=existing.id)


def host_get(context, host_id):
    with reader.using(context) as session:
        host = session.get(models.Host, host_id)
        if host is None:
            host = (session.query(models.Host)
                    .filter_by(name=host_id).first())
        if host is None:
            raise exception.HostNotFound(id=host_id)
        return host


def host_list(context, reservable=None, limit=None, marker=None):
    with reader.using(context) as session:
        query = session.query(models.Host)
        if reservable is not None:
            query = query.filter_by(reservable=reservable)
        return _paginate(query, models.Host, limit, marker)


def host_update(context, host_id, values, capabilities=None):
    """Update columns; ``capabilities`` maps keys to values (None drops)."""
    with writer.using(context) as session:
        host = session.get(models.Host, host_id)
        if host is None:
            raise exception.HostNotFound(id=host_id)
        for key, value in values.items():
            setattr(host, key, value)
        if capabilities:
            current = {c.key: c for c in host.capabilities}
            for key, value in capabilities.items():
                if value is None:
                    if key in current:
                        host.capabilities.remove(current[key])
                elif key in current:
                    current[key].value = str(value)
                else:
                    host.capabilities.append(
                        models.HostCapability(key=key, value=str(value)))
        session.flush()
        if host.kind == 'nova':
            capacity_changed(session)
        return host


def host_destroy(context, host_id):
    """Delete a host, refused while any lease still holds it."""
    with writer.using(context) as session:
        host = session.get(models.Host, host_id)
        if host is None:
            raise exception.HostNotFound(id=host_id)
        # The ids users hold: the booking's where there is one.
        holders = [r for (r,) in session.query(
                   sa.func.coalesce(models.Allocation.booking_id,
                                    models.Allocation.reservation_id))
                   .filter_by(host_id=host_id)]
        if holders:
            raise exception.HostInUse(id=host_id,
                                      reservations=', '.join(sorted(holders)))
        session.delete(host)
        capacity_changed(session)


def host_windows(context, host_id):
    """A host's maintenance windows, by start."""
    W = models.HostMaintenanceWindow
    with reader.using(context) as session:
        return (session.query(W).filter(W.host_id == host_id)
                .order_by(W.start_date, W.id).all())


def host_window_create(context, values):
    with writer.using(context) as session:
        window = models.HostMaintenanceWindow(**values)
        session.add(window)
        session.flush()
        return window


def host_window_get(context, window_id):
    with reader.using(context) as session:
        window = session.get(models.HostMaintenanceWindow, window_id)
        if window is None:
            raise exception.HostMaintenanceWindowNotFound(id=window_id)
        return window


def host_window_destroy(context, host_id, window_id):
    W = models.HostMaintenanceWindow
    with writer.using(context) as session:
        if not (session.query(W).filter(W.host_id == host_id)
                .filter(W.id == window_id)
                .delete(synchronize_session=False)):
            raise exception.HostMaintenanceWindowNotFound(id=window_id)


# Events -------------------------------------------------------------------

def _lifecycle_order(event):
    """Within one lease, events at the same instant run in this order."""
    return sa.case({states.Event.START: 0, states.Event.BEFORE_END: 1,
                    states.Event.END: 2},
                   value=event.event_type, else_=3)


MANAGER_BINARY = 'reserve-manager'


def _gone(binary, host_column, since):
    """``binary`` on the host named by ``host_column`` (a claimed_by
    column) has not beaten since ``since`` (reserve.db.services). A
    claimer with no heartbeat row at all (a daemon of a release without
    heartbeats, during an upgrade) is not taken for gone."""
    S = models.Service
    return sa.exists().where(S.binary == binary, S.host == host_column,
                             S.heartbeat_at < since)


# InnoDB may pick a claimer as a deadlock victim: the claim is a
# transaction of its own, so running it again is safe.
@oslo_db_api.wrap_db_retry(max_retries=5, retry_on_deadlock=True)
def event_claim_due(context, now, claimer, stuck_before, retry_before,
                    max_attempts, alive_since=None, limit=50):
    """Claim the events due now, each at most once across managers.

    An event is due when it is UNDONE and its time has come, when it is
    IN_PROGRESS but its manager is gone (its last heartbeat is older
    than ``alive_since``) or hung (it claimed the event before
    ``stuck_before``), or when it failed before ``retry_before`` with
    attempts left. Only the
    earliest unfinished event of each lease is eligible, so a lease's own
    events always run in order. An event claimed ``max_attempts`` times is
    left for an operator.

    Rows are locked with FOR UPDATE SKIP LOCKED where the database has it,
    and each claim is a compare-and-swap on the status, so that SQLite (no
    row locks) is safe as well.
    """
    e = models.Event
    due = sa.or_(
        sa.and_(e.status == states.Event.UNDONE, e.time <= now),
        sa.and_(e.status == states.Event.IN_PROGRESS,
                e.attempts < max_attempts,
                sa.or_(e.claimed_at < stuck_before,
                       sa.false() if alive_since is None else
                       _gone(MANAGER_BINARY, e.claimed_by, alive_since))),
        sa.and_(e.status == states.Event.ERROR,
                e.attempts < max_attempts,
                e.updated_at < retry_before))
    earlier = orm.aliased(models.Event)
    blocked = sa.exists().where(
        earlier.lease_id == e.lease_id,
        earlier.id != e.id,
        earlier.status != states.Event.DONE,
        sa.or_(earlier.time < e.time,
               sa.and_(earlier.time == e.time,
                       _lifecycle_order(earlier) < _lifecycle_order(e))))
    claimed = []
    with writer.using(context) as session:
        if session.bind.dialect.name == 'sqlite':
            # Take SQLite's write lock before reading, so that a concurrent
            # claimer waits for it instead of failing with "locked".
            session.execute(sa.update(e).where(sa.false())
                            .values(status=e.status))
        # At the same instant, the ends of some leases before the starts
        # of others (states.Event.PRIORITY), so that what is handed over
        # is given back first, whatever the limit cuts off.
        priority = sa.case(states.Event.PRIORITY, value=e.event_type,
                           else_=len(states.Event.PRIORITY))
        candidates = (session.query(e).filter(due, ~blocked)
                      .order_by(e.time, priority).limit(limit)
                      .with_for_update(skip_locked=True).all())
        for event in candidates:
            won = (session.query(e)
                   .filter(e.id == event.id, e.status == event.status,
                           e.attempts == event.attempts)
                   .update({'status': states.Event.IN_PROGRESS,
                            'claimed_by': claimer, 'claimed_at': now,
                            'attempts': e.attempts + 1,
                            'updated_at': now},
                           synchronize_session=False))
            if won:
                claimed.append(event.id)
    if not claimed:
        return []
    with reader.using(context) as session:
        return (session.query(e).filter(e.id.in_(claimed)).all())


def event_release_claims_of(context, claimer, claimed_before):
    """Put back the events ``claimer`` left IN_PROGRESS before
    ``claimed_before``: a manager starting under the same host name takes
    up at once what its previous run was doing when it died, instead of
    waiting out [manager]event_timeout. Returns how many."""
    e = models.Event
    with writer.using(context) as session:
        return (session.query(e)
                .filter(e.status == states.Event.IN_PROGRESS)
                .filter(e.claimed_by == claimer)
                .filter(e.claimed_at < claimed_before)
                .update({'status': states.Event.UNDONE,
                         'claimed_by': None, 'claimed_at': None,
                         'last_error': 'taken back: its manager stopped '
                                       'while running it'},
                        synchronize_session=False))


def event_create(context, lease_id, values):
    """Add an event to a lease (its first ones come with lease_create)."""
    with writer.using(context) as session:
        event = models.Event(lease_id=lease_id, **values)
        session.add(event)
        session.flush()
        return event


def event_update(context, event_id, values):
    with writer.using(context) as session:
        values = dict(values, updated_at=models._now())
        (session.query(models.Event).filter_by(id=event_id)
         .update(values, synchronize_session=False))


def event_list_for_lease(context, lease_id):
    with reader.using(context) as session:
        return (session.query(models.Event).filter_by(lease_id=lease_id)
                .order_by(models.Event.time).all())


def event_next_time(context, after):
    """When the earliest UNDONE event after ``after`` is due, or None."""
    with reader.using(context) as session:
        return (session.query(sa.func.min(models.Event.time))
                .filter(models.Event.status == states.Event.UNDONE)
                .filter(models.Event.time > after)
                .scalar())
