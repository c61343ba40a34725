"""Hosts and their maintenance windows.

Same conventions as reserve.db.api, whose transaction context
this module uses: every function takes a RequestContext first and
joins the transaction the caller may have open on it.
"""
import secrets

from oslo_db import exception as db_exc
import sqlalchemy as sa
from sqlalchemy import orm

from reserve.common import exception
from reserve.db import api as db_api
from reserve.db import models


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
                                         longest_allocation=0))
        session.flush()


def host_create(context, values, capabilities=None):
    try:
        with db_api.writer.using(context) as session:
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


# The hosts' reads load their capabilities (models.Host.capabilities).
_WITH_CAPABILITIES = (orm.selectinload(models.Host.capabilities),)


def host_get(context, host_id):
    """The host of that id, else of that name."""
    H = models.Host
    with db_api.reader.using(context) as session:
        host = (session.query(H).options(*_WITH_CAPABILITIES)
                .filter(sa.or_(H.id == host_id, H.name == host_id))
                .order_by(sa.case((H.id == host_id, 0), else_=1))
                .first())
        if host is None:
            raise exception.HostNotFound(id=host_id)
        return host


def _host_ref_query():
    H = models.Host
    ref = sa.bindparam('ref')
    return (sa.select(H.id, H.name, H.kind, H.topology_generation)
            .where(sa.or_(H.id == ref, H.name == ref))
            .order_by(sa.case((H.id == ref, 0), else_=1))
            .limit(1))


# Built once, not at each call: building the statement and its cache key
# cost more than the read (twice per device-reservation POST naming a
# host).
_HOST_REF = _host_ref_query()


def host_ref(context, host_id):
    """What a request naming a host needs of it, as a read-only row
    (id, name, kind, topology_generation; none of its capabilities): the
    host of that id, else of that name."""
    with db_api.reader.using(context) as session:
        row = session.execute(_HOST_REF, {'ref': host_id}).first()
        if row is None:
            raise exception.HostNotFound(id=host_id)
        return row


def host_list(context, reservable=None, limit=None, marker=None):
    with db_api.reader.using(context) as session:
        query = session.query(models.Host).options(*_WITH_CAPABILITIES)
        if reservable is not None:
            query = query.filter_by(reservable=reservable)
        return db_api._paginate(query, models.Host, limit, marker)


def host_update(context, host_id, values, capabilities=None):
    """Update columns; ``capabilities`` maps keys to values (None drops)."""
    with db_api.writer.using(context) as session:
        host = session.get(models.Host, host_id, options=_WITH_CAPABILITIES)
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
    with db_api.writer.using(context) as session:
        host = session.get(models.Host, host_id)
        if host is None:
            raise exception.HostNotFound(id=host_id)
        # The ids users hold: the booking's where there is one.
        holders = [r for (r,) in session.query(
                   sa.func.coalesce(models.Allocation.booking_id,
                                    models.Allocation.lease_reservation_id))
                   .filter_by(host_id=host_id)]
        if holders:
            raise exception.HostInUse(id=host_id,
                                      reservations=', '.join(sorted(holders)))
        session.delete(host)
        capacity_changed(session)


def host_windows(context, host_id):
    """A host's maintenance windows, by start."""
    W = models.HostMaintenanceWindow
    with db_api.reader.using(context) as session:
        return (session.query(W).filter(W.host_id == host_id)
                .order_by(W.start, W.id).all())


def host_window_create(context, values):
    with db_api.writer.using(context) as session:
        window = models.HostMaintenanceWindow(**values)
        session.add(window)
        session.flush()
        return window


def host_window_get(context, window_id):
    with db_api.reader.using(context) as session:
        window = session.get(models.HostMaintenanceWindow, window_id)
        if window is None:
            raise exception.HostMaintenanceWindowNotFound(id=window_id)
        return window


def host_window_destroy(context, host_id, window_id):
    W = models.HostMaintenanceWindow
    with db_api.writer.using(context) as session:
        if not (session.query(W).filter(W.host_id == host_id)
                .filter(W.id == window_id)
                .delete(synchronize_session=False)):
            raise exception.HostMaintenanceWindowNotFound(id=window_id)


def held_on_failed_hosts(context, now, booking_id=None,
                         lease_reservation_ids=None):
    """The allocations of a booking (or of lease reservations) that hold
    a failed host after ``now``: the capacity they lack. Each has its
    host (``allocation.host``: failure, failed_at), by host name."""
    A = models.Allocation
    with db_api.reader.using(context) as session:
        query = (session.query(A).join(models.Host, A.host_id ==
                                       models.Host.id)
                 .filter(models.Host.failure.isnot(None))
                 .filter(A.end > now))
        if booking_id is not None:
            query = query.filter(A.booking_id == booking_id)
        else:
            query = query.filter(A.lease_reservation_id.in_(
                sorted(lease_reservation_ids or ())))
        return sorted(query.all(), key=lambda a: (a.host.name, a.id))


def hosts_starting_between(context, start, until):
    """The ids of the hosts that an allocation starting in [start,
    until) holds."""
    A = models.Allocation
    with db_api.reader.using(context) as session:
        return {host_id for (host_id,) in session.query(A.host_id)
                .filter(A.start >= start).filter(A.start < until)
                .distinct()}
