"""The capacity model's database reads and writes.

Every decision (admission, a moved end, a host maintenance window, a
lease the manager places itself) runs in one writer transaction that
first locks the single capacity_state row (lock()): decisions run one
after the other, and each sees the allocations of the ones before it. On
SQLite, which has no row locks, the lock is a write to that row, which
takes the database's write lock.

Reads stay flat in the size of the tables: the hosts are cached per
process while capacity_state's generation is unchanged (every write to a
host bumps it), and the allocations of a window are found through the
index on (end, start), bounded on both sides by the longest
allocation.
"""
import collections
import datetime
import functools
import threading

import sqlalchemy as sa

from reserve.capacity import host_gpus
from reserve.capacity import maths
from reserve.common import states
from reserve.db import api as db_api
from reserve.db import devices as devices_db
from reserve.db import functions
from reserve.db import hosts as hosts_db
from reserve.db import models

A = models.Allocation
State = collections.namedtuple('State', 'generation longest_allocation')
# What the model knows of an enrolled nova host; hosts of the same
# capacity share a key (an empty one offers the same).
HostRecord = collections.namedtuple(
    'HostRecord', 'id name capacity capabilities reservable key')


def _key(capacity):
    return (capacity['vcpus'], capacity['memory_mb'], capacity['disk_gb'],
            tuple(sorted((capacity.get('gpus') or {}).items())))


# SQLite has no row locks: the decisions of one process queue here (the
# database's write lock serialises processes). Held around the capacity
# transaction by the booking desk and the manager alike.
PROCESS_LOCK = threading.Lock()

_cache_lock = threading.Lock()
_cache = {}


def _session(context):
    return db_api.writer.using(context)


def _ensure_row(session):
    if session.get(models.CapacityState, 1) is None:
        # A database made by create_all (tests) has no row yet; the
        # migration writes it. Racing creators: the loser's insert fails
        # on the primary key and its transaction retries.
        session.add(models.CapacityState(id=1, generation=0,
                                         longest_allocation=0))
        session.flush()


# The lock's statements, built once (every admission takes it). On SQLite
# a write takes the database's write lock, and reads the row in the same
# statement; elsewhere the row is locked.
_STATE = models.CapacityState.__table__
_LOCK_SQLITE = (_STATE.update().where(_STATE.c.id == 1)
                .values(generation=_STATE.c.generation)
                .returning(_STATE.c.generation, _STATE.c.longest_allocation))
_LOCK_ROW = (sa.select(_STATE.c.generation, _STATE.c.longest_allocation)
             .where(_STATE.c.id == 1).with_for_update())


def lock(context):
    """Take the capacity lock until the caller's transaction ends; returns
    the State read under it. Call first in a writer transaction."""
    with _session(context) as session:
        row = session.execute(
            _LOCK_SQLITE if session.bind.dialect.name == 'sqlite'
            else _LOCK_ROW).first()
        if row is None:
            _ensure_row(session)
            return State(0, 0)
        return State(*row)


def read_state(context):
    """The State, without locking (the readers of the calendar)."""
    with db_api.reader.using(context) as session:
        table = models.CapacityState.__table__
        row = session.execute(
            sa.select(table.c.generation, table.c.longest_allocation)
            .where(table.c.id == 1)).first()
        return State(*row) if row else State(0, 0)


def stretch(session, seconds):
    """Keep longest_allocation an upper bound of the allocations'
    lengths."""
    table = models.CapacityState.__table__
    result = session.execute(
        table.update().where(table.c.id == 1)
        .where(table.c.longest_allocation < seconds)
        .values(longest_allocation=seconds))
    if not result.rowcount and session.get(models.CapacityState,
                                           1) is None:
        _ensure_row(session)
        stretch(session, seconds)


# Hosts ---------------------------------------------------------------------

def usable(host, gpus):
    """The capacity of a host less what other consumers use of it."""
    foreign = host.foreign_usage or {}
    capacity = {'vcpus': (host.vcpus or 0) - foreign.get('vcpus', 0),
                'memory_mb': (host.memory_mb or 0) -
                foreign.get('memory_mb', 0),
                'disk_gb': (host.local_gb or 0) - foreign.get('disk_gb', 0)}
    used_gpus = foreign.get('gpus') or {}
    capacity['gpus'] = {key: n - used_gpus.get(key, 0)
                        for key, n in (gpus or {}).items()}
    return capacity


def offered(host):
    """Whether a host takes new allocations: the operator left it
    reservable and it has not failed (reserve.manager.health)."""
    return bool(host.reservable) and not host.failure


def _load_hosts(context):
    with db_api.reader.using(context):
        hosts = [h for h in hosts_db.host_list(context) if h.kind == 'nova']
        libvirt_hosts = None
        records = []
        for host in hosts:
            gpus = host.gpus
            if not gpus:
                if libvirt_hosts is None:
                    libvirt_hosts = devices_db.libvirt_hosts(context)
                gpus = host_gpus.of_host(context, host,
                                         libvirt_hosts=libvirt_hosts)[0]
            capacity = usable(host, gpus)
            records.append(HostRecord(
                host.id, host.name, capacity,
                {c.key: c.value for c in host.capabilities},
                offered(host), _key(capacity)))
    return records


def hosts(context, state):
    """The nova hosts' records as of ``state`` (read under the lock, or
    by read_state), from this process's cache when they are unchanged."""
    key = (str(db_api.get_engine().url), state.generation)
    with _cache_lock:
        found = _cache.get(key)
    if found is not None:
        return found
    records = _load_hosts(context)
    with _cache_lock:
        _cache.clear()
        _cache[key] = records
    return records


# Allocations ---------------------------------------------------------------
#
# A decision reads the allocations of its window, hundreds of rows, so
# they come as few columns as will do, dates as whole seconds from the
# window's start (the database keeps dates to the second): no date is
# parsed, and the index on the window holds every column read, so on
# SQLite and MariaDB no table row is visited. The GPUs an allocation
# holds are read apart, only by a decision whose instances need GPUs (use
# adds up: an allocation counts as its vCPUs, memory and disk plus,
# apart, its GPUs).

def seconds(later, earlier):
    return int((later - earlier).total_seconds())


# The window statements, by their shape (what they read, the exclusions
# they carry, whether hosts are named): their values are bound
# parameters (_window_values), so each is built, and its cache key
# worked out, once; an offer search on a busy cloud runs dozens.
_STATEMENTS = {}
_STATEMENTS_LOCK = threading.Lock()
_EXCLUSIONS = ('exclude_booking', 'exclude_lease_reservation',
               'exclude_allocation')


def _in_window(excluding):
    """The conditions of an allocation holding its host at some instant
    of [start, until), each until its end + the guard (``after``:
    start - guard; ``before``: until + the longest allocation, the
    index's bound), less those of ``excluding`` (names of _EXCLUSIONS)."""
    bound = functools.partial(sa.bindparam, type_=sa.DateTime)
    conditions = [A.end > bound('after'), A.end <= bound('before'),
                  A.start < bound('until')]
    if 'exclude_booking' in excluding:
        conditions.append(sa.or_(A.booking_id.is_(None),
                                 A.booking_id != sa.bindparam(
                                     'exclude_booking')))
    if 'exclude_lease_reservation' in excluding:
        conditions.append(sa.or_(
            A.lease_reservation_id.is_(None),
            A.lease_reservation_id != sa.bindparam(
                'exclude_lease_reservation')))
    if 'exclude_allocation' in excluding:
        conditions.append(A.id != sa.bindparam('exclude_allocation'))
    return conditions


def _host_ids():
    return sa.bindparam('host_ids', expanding=True)


def _busy_hosts_statement(excluding, _hosts):
    # The hosts held, each with the latest end of what holds it then.
    origin = sa.bindparam('origin', type_=sa.DateTime)
    return (sa.select(A.host_id,
                      functions.SecondsSince(sa.func.max(A.end), origin))
            .where(A.host_id.in_(_host_ids()))
            .where(*_in_window(excluding))
            .group_by(A.host_id))


def _sizes_statement(excluding, hosts):
    return _window_statement((A.vcpus, A.memory_mb, A.disk_gb), excluding,
                             hosts)


def _gpus_statement(excluding, hosts):
    return _window_statement((A.gpus,), excluding, hosts).where(
        A.gpus.isnot(None))


def _window_statement(columns, excluding, hosts):
    origin = sa.bindparam('origin', type_=sa.DateTime)
    query = (sa.select(A.host_id, functions.SecondsSince(A.start, origin),
                       functions.SecondsSince(A.end, origin), A.amount,
                       *columns)
             .where(*_in_window(excluding)))
    if hosts:
        query = query.where(A.host_id.in_(_host_ids()))
    return query


def _window_values(state, start, until, guard, host_ids, exclusions):
    """(the statement's shape, its values) of a read of [start, until)."""
    excluding = tuple(name for name in _EXCLUSIONS
                      if exclusions.get(name) is not None)
    values = {name: exclusions[name] for name in excluding}
    values.update(
        origin=start, after=start - guard, until=until,
        before=until + datetime.timedelta(seconds=state.longest_allocation))
    if host_ids is not None:
        values['host_ids'] = sorted(host_ids)
    return (excluding, host_ids is not None), values


def _run(context, build, state, start, until, guard, host_ids, exclusions):
    """The rows of the statement ``build`` makes, over [start, until)."""
    shape, values = _window_values(state, start, until, guard, host_ids,
                                   exclusions)
    key = (build, shape)
    statement = _STATEMENTS.get(key)
    if statement is None:
        with _STATEMENTS_LOCK:
            statement = _STATEMENTS.setdefault(key, build(*shape))
    with db_api.reader.using(context) as session:
        return session.execute(statement, values).all()


def idle_hosts(context, state, start, until, guard, host_ids,
               **exclusions):
    """The hosts of ``host_ids`` that no allocation holds at any instant
    of [start, until) (each until its end + ``guard``), as a set
    (held_hosts' complement)."""
    return set(host_ids) - held_hosts(context, state, start, until, guard,
                                      host_ids, **exclusions).keys()


def held_hosts(context, state, start, until, guard, host_ids,
               **exclusions):
    """{host_id: until when, in seconds from ``start``} of the hosts of
    ``host_ids`` that an allocation holds at some instant of [start,
    until): the latest end + ``guard`` of those allocations. The database
    answers from the index by host and window of those hosts only, and no
    allocation is read. (Asking for the idle ones with NOT EXISTS instead
    was slower on SQLite and MariaDB: for an idle host they scan every
    allocation of the host.) ``exclusions``: exclude_booking,
    exclude_lease_reservation, exclude_allocation (an id, or None)."""
    held = int(guard.total_seconds())
    return {host_id: ends + held for host_id, ends in _run(
        context, _busy_hosts_statement, state, start, until, guard,
        host_ids, exclusions)}


def allocations_in_window(context, state, start, until, guard,
                          host_ids=None, **exclusions):
    """{host_id: [maths.Allocation]} of the allocations holding a host
    (of ``host_ids``, if given) at some instant of [start, until), in
    seconds from ``start``, each holding until its end + ``guard``: their
    vCPUs, memory and disk (see gpu_allocations_in_window).
    ``exclusions``: as idle_hosts'."""
    held = int(guard.total_seconds())
    found = collections.defaultdict(list)
    for host_id, begins, ends, amount, vcpus, memory_mb, disk_gb in _run(
            context, _sizes_statement, state, start, until, guard,
            host_ids, exclusions):
        found[host_id].append(maths.Allocation(
            begins, ends + held, amount,
            {'vcpus': vcpus, 'memory_mb': memory_mb, 'disk_gb': disk_gb}))
    return found


def gpu_allocations_in_window(context, state, start, until, guard,
                              host_ids=None, **exclusions):
    """allocations_in_window's allocations holding GPUs, as allocations
    of their GPUs only."""
    held = int(guard.total_seconds())
    found = collections.defaultdict(list)
    for host_id, begins, ends, amount, gpus in _run(
            context, _gpus_statement, state, start, until, guard, host_ids,
            exclusions):
        if gpus:
            found[host_id].append(maths.Allocation(
                begins, ends + held, amount, {'gpus': gpus}))
    return found


def host_windows_in(context, start, until, guard):
    """{host_id: [maths.Allocation]}: host maintenance windows meeting
    [start, until), in seconds from ``start``, each an allocation that
    takes the whole host until its end + ``guard``."""
    W = models.HostMaintenanceWindow
    query = (sa.select(W.host_id, W.start, W.end)
             .where(W.end > start - guard)
             .where(W.start < until))
    found = collections.defaultdict(list)
    with db_api.reader.using(context) as session:
        for host_id, w_start, w_end in session.execute(query):
            found[host_id].append(maths.Allocation(
                seconds(w_start, start), seconds(w_end + guard, start), 1,
                WHOLE_HOST))
    return found


# An allocation that leaves nothing free.
WHOLE_HOST = {'vcpus': 2 ** 62}


def allocations_create(context, placed, start, end, size, booking_id=None,
                       lease_reservation_id=None, state=None):
    """Write the allocations of ``placed`` ({host_id: amount});
    ``state``, the State read under the lock, spares a write when the
    allocations are no longer than the longest one already."""
    with _session(context) as session:
        for host_id, amount in sorted(placed.items()):
            session.add(A(host_id=host_id, amount=amount, start=start,
                          end=end, booking_id=booking_id,
                          lease_reservation_id=lease_reservation_id,
                          vcpus=size.get('vcpus', 0),
                          memory_mb=size.get('memory_mb', 0),
                          disk_gb=size.get('disk_gb', 0),
                          gpus=size.get('gpus') or None))
        session.flush()
        seconds = int((end - start).total_seconds())
        if state is None or seconds > state.longest_allocation:
            stretch(session, seconds)


def note_allocations(context, start, end):
    """Allocations of [start, end) were written some other way (a lease
    made with its own): keep longest_allocation above their length."""
    with _session(context) as session:
        stretch(session, int((end - start).total_seconds()))


def allocations_on_host(context, host_id, start, until, guard):
    """The allocations (rows) holding ``host_id`` at some instant of
    [start, until), each until its end + ``guard``, by start."""
    with db_api.reader.using(context) as session:
        return (session.query(A).filter(A.host_id == host_id)
                .filter(A.end > start - guard)
                .filter(A.start < until)
                .order_by(A.start, A.id).all())


def allocation_move(context, allocation, placed):
    """Move ``allocation``'s instances to the hosts of ``placed``
    ({host_id: amount}), joining the allocations its owner has there
    already; the instances ``placed`` leaves out stay where they are."""
    with _session(context) as session:
        row = session.get(A, allocation.id)
        owner = (A.booking_id == row.booking_id if row.booking_id else
                 A.lease_reservation_id == row.lease_reservation_id)
        for host_id, amount in sorted(placed.items()):
            there = session.query(A).filter(owner).filter(
                A.host_id == host_id).first()
            if there is not None:
                there.amount += amount
                there.end = max(there.end, row.end)
                continue
            session.add(A(host_id=host_id, amount=amount,
                          start=row.start, end=row.end,
                          booking_id=row.booking_id,
                          lease_reservation_id=row.lease_reservation_id,
                          vcpus=row.vcpus, memory_mb=row.memory_mb,
                          disk_gb=row.disk_gb, gpus=row.gpus))
        left = row.amount - sum(placed.values())
        if left > 0:
            row.amount = left
        else:
            session.delete(row)
        session.flush()


def allocations_of_booking(context, booking_id):
    with db_api.reader.using(context) as session:
        return (session.query(A).filter(A.booking_id == booking_id)
                .order_by(A.host_id).all())


def allocations_set_end(context, end, booking_id=None,
                        lease_reservation_id=None):
    """Move the end of a booking's (or lease reservation's) allocations."""
    with _session(context) as session:
        query = session.query(A)
        if booking_id is not None:
            query = query.filter(A.booking_id == booking_id)
        else:
            query = query.filter(
                A.lease_reservation_id == lease_reservation_id)
        longest = 0
        for allocation in query:
            allocation.end = end
            longest = max(longest, int((end - allocation.start)
                                       .total_seconds()))
        session.flush()
        if longest:
            stretch(session, longest)


def allocations_release_stale(context):
    """Drop the allocations no lease took of bookings that are over (a
    cancellation or a failure whose own release was lost); returns how
    many went."""
    over = (sa.select(models.Booking.id)
            .where(models.Booking.status.notin_(states.Booking.LIVE)))
    with _session(context) as session:
        return (session.query(A)
                .filter(A.lease_reservation_id.is_(None))
                .filter(A.booking_id.in_(over))
                .delete(synchronize_session=False))


def allocations_release_unadopted(context, booking_id):
    """Drop the allocations of a booking no lease took (it failed or was
    cancelled before one was made)."""
    with _session(context) as session:
        return (session.query(A)
                .filter(A.booking_id == booking_id)
                .filter(A.lease_reservation_id.is_(None))
                .delete(synchronize_session=False))
