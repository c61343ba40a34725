"""Leases, their lease reservations and allocations.

Same conventions as reserve.db.api, whose transaction context
this module uses: every function takes a RequestContext first and
joins the transaction the caller may have open on it.
"""
import collections

from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import sqlalchemy as sa
from sqlalchemy import orm

from reserve.common import exception
from reserve.common import states
from reserve.db import api as db_api
from reserve.db import events as events_db
from reserve.db import models


def _insert(connection, table, rows):
    """Insert ``rows`` (dicts of columns), those of the same columns in
    one statement."""
    shapes = collections.defaultdict(list)
    for row in rows:
        shapes[tuple(sorted(row))].append(row)
    for same in shapes.values():
        connection.execute(table.insert(), same)


def lease_create(context, lease_values, reservations, events):
    """Write a lease, its reservations, allocations and events at once,
    as rows (no object is built); returns the lease's id.

    ``reservations`` is a list of dicts of LeaseReservation columns plus
    an ``allocations`` list of Allocation columns (the allocations chosen for
    it), or an ``adopt_booking`` id: the allocations that booking's admission
    wrote become the reservation's.
    """
    lease = dict(lease_values)
    lease_id = lease.setdefault('id', uuidutils.generate_uuid())
    rows, allocations, adopted = [], [], []
    for values in reservations:
        values = dict(values, lease_id=lease_id)
        reservation_id = values.setdefault('id', uuidutils.generate_uuid())
        allocations += [dict(a, lease_reservation_id=reservation_id)
                        for a in values.pop('allocations', [])]
        booking_id = values.pop('adopt_booking', None)
        if booking_id:
            adopted.append((booking_id, reservation_id))
        rows.append(values)
    allocation = models.Allocation.__table__
    with db_api.writer.using(context) as session:
        connection = session.connection()
        try:
            connection.execute(models.Lease.__table__.insert(), [lease])
        except db_exc.DBDuplicateEntry:
            raise exception.Conflict(
                reason='a lease named %s, or of the same owner, exists' %
                lease_values['name'])
        _insert(connection, models.LeaseReservation.__table__, rows)
        _insert(connection, allocation, allocations)
        _insert(connection, models.Event.__table__,
                [dict(e, lease_id=lease_id) for e in events])
        for booking_id, reservation_id in adopted:
            connection.execute(
                allocation.update()
                .where(allocation.c.booking_id == booking_id)
                .values(lease_reservation_id=reservation_id))
    return lease_id


def _whole_leases(session):
    """A query of leases loading, for all the rows at once, their
    reservations with their allocations and hosts, and their events: the
    objects are whole after the session, in a query per table."""
    return session.query(models.Lease).options(
        orm.selectinload(models.Lease.reservations)
        .selectinload(models.LeaseReservation.allocations)
        .joinedload(models.Allocation.host),
        orm.selectinload(models.Lease.events))


def lease_get(context, lease_id, project_id=None):
    with db_api.reader.using(context) as session:
        query = _whole_leases(session).filter_by(id=lease_id)
        if project_id is not None:
            query = query.filter_by(project_id=project_id)
        lease = query.first()
        if lease is None:
            raise exception.LeaseNotFound(id=lease_id)
        return lease


def lease_get_by_owner(context, owner_type, owner_id):
    """The lease of a booking or a device reservation (states.Owner),
    or None."""
    with db_api.reader.using(context) as session:
        return (_whole_leases(session)
                .filter_by(owner_type=owner_type, owner_id=owner_id)
                .first())


def lease_state_by_owner(context, owner_type, owner_id):
    """The id and status of the lease of a booking or a device reservation
    (a row), or None: what most callers ask of an owner's lease, read
    without its reservations and events."""
    with db_api.reader.connection.using(context) as connection:
        return connection.execute(
            sa.select(models.Lease.id, models.Lease.status)
            .where(models.Lease.owner_type == owner_type,
                   models.Lease.owner_id == owner_id)).first()


def lease_list(context, project_id=None, status=None, limit=None,
               marker=None):
    with db_api.reader.using(context) as session:
        query = _whole_leases(session)
        if project_id is not None:
            query = query.filter_by(project_id=project_id)
        if status is not None:
            query = query.filter_by(status=status)
        return db_api._paginate(query, models.Lease, limit, marker)


@db_api.retry_on_deadlock
def lease_update(context, lease_id, values, expected_status=None,
                 expected_end=None):
    """Update a lease; with expected_status (one or several) and
    expected_end, only while it still has them (a compare-and-swap).
    Returns whether a row changed."""
    with db_api.writer.using(context) as session:
        return db_api.compare_and_swap(session, models.Lease, lease_id,
                                       values, expected_status,
                                       expected_end)


@db_api.retry_on_deadlock
def lease_mark_deleting(context, lease_id, now):
    """A cancelled lease: DELETING, its end_lease due ``now`` and its
    other events skipped, in one transaction, so that no crash or lost
    message leaves it DELETING with its end still ahead. A lease ended
    already (TERMINATED) is left as it is. Returns whether it moved."""
    with db_api.writer.using(context):
        if not lease_update(context, lease_id,
                            {'status': states.Lease.DELETING},
                            expected_status=tuple(
                                s for s in states.Lease.ALL
                                if s != states.Lease.TERMINATED)):
            return False
        events_db.events_end_now(context, lease_id, now)
        return True


def lease_destroy(context, lease_id):
    """Delete a lease in one statement: its reservations, their
    allocations and its events go with it (their keys are ON DELETE
    CASCADE; SQLite's are enforced, see reserve.db.api)."""
    leases = models.Lease.__table__
    with db_api.writer.using(context) as session:
        session.execute(leases.delete().where(leases.c.id == lease_id))


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
    with db_api.reader.using(context) as session:
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


def lease_id_of(context, lease_reservation_id):
    """The id of the lease of a lease reservation, or None."""
    with db_api.reader.using(context) as session:
        row = (session.query(models.LeaseReservation.lease_id)
               .filter_by(id=lease_reservation_id).first())
        return row[0] if row else None


def lease_reservation_ids_live(context):
    """The ids of the lease reservations of every lease not TERMINATED:
    their cloud objects are theirs (a lease being ended or deleted is
    still at work on them)."""
    with db_api.reader.using(context) as session:
        rows = (session.query(models.LeaseReservation.id)
                .join(models.Lease,
                      models.LeaseReservation.lease_id == models.Lease.id)
                .filter(models.Lease.status != states.Lease.TERMINATED)
                .all())
        return {row[0] for row in rows}


def lease_reservation_update(context, lease_reservation_id, values):
    with db_api.writer.using(context) as session:
        values = dict(values, updated_at=models._now())
        (session.query(models.LeaseReservation)
         .filter_by(id=lease_reservation_id)
         .update(values, synchronize_session=False))


def allocations_delete(context, lease_reservation_id):
    with db_api.writer.using(context) as session:
        (session.query(models.Allocation)
         .filter_by(lease_reservation_id=lease_reservation_id)
         .delete(synchronize_session=False))


def _allocations_of(session, project_id=None):
    """Allocations joined to their lease (of ``project_id`` if given),
    which are read with them."""
    query = (session.query(models.Allocation)
             .join(models.LeaseReservation,
                   models.Allocation.lease_reservation_id ==
                   models.LeaseReservation.id)
             .join(models.Lease,
                   models.LeaseReservation.lease_id == models.Lease.id)
             .options(orm.contains_eager(models.Allocation.lease_reservation)
                      .contains_eager(models.LeaseReservation.lease)))
    if project_id is not None:
        query = query.filter(models.Lease.project_id == project_id)
    return query


def _with_lease(allocation):
    lease_reservation = allocation.lease_reservation
    return allocation, lease_reservation, lease_reservation.lease


def allocation_list(context, project_id=None, host_id=None,
                    lease_reservation_id=None, lease_id=None, limit=None,
                    marker=None):
    """Allocations with the lease reservation and lease they belong to.

    Each row is ``(allocation, lease_reservation, lease)``; the host is
    loaded with the allocation. ``project_id`` limits them to the leases
    of that project.
    """
    with db_api.reader.using(context) as session:
        query = _allocations_of(session, project_id)
        if host_id is not None:
            query = query.filter(models.Allocation.host_id == host_id)
        if lease_reservation_id is not None:
            query = query.filter(models.Allocation.lease_reservation_id ==
                                 lease_reservation_id)
        if lease_id is not None:
            query = query.filter(models.LeaseReservation.lease_id == lease_id)
        return [_with_lease(allocation) for allocation in
                db_api._paginate(query, models.Allocation, limit, marker)]


def allocation_get(context, allocation_id, project_id=None):
    """One allocation as ``(allocation, lease_reservation, lease)``."""
    with db_api.reader.using(context) as session:
        allocation = (_allocations_of(session, project_id)
                      .filter(models.Allocation.id == allocation_id)
                      .first())
        if allocation is None:
            raise exception.AllocationNotFound(id=allocation_id)
        return _with_lease(allocation)
