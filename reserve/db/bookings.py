"""Bookings (/v1/reservations): a project's booking of a catalogue
flavor.

Same conventions as reserve.db.api, whose transaction context
this module uses: every function takes a RequestContext first and
joins the transaction the caller may have open on it.
"""
import collections

import sqlalchemy as sa
from sqlalchemy import orm

from reserve.common import exception
from reserve.common import states
from reserve.db import api as db_api
from reserve.db import models
from reserve.db import sharing as sharing_db
from reserve.db import slot_days


def _stretch_longest_booking(session, booking):
    """Keep the flavor's longest_booking an upper bound of the length of
    its bookings: the calendar's reads rely on it (see db.desk)."""
    seconds = int((booking.end - booking.start).total_seconds())
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
    with db_api.writer.using(context) as session:
        booking = models.Booking(**values)
        session.add(booking)
        session.flush()
        _stretch_longest_booking(session, booking)
        slot_days.count(session, after=[slot_days.counted(booking)])
        return booking


def _booking_query(session, booking_id, project_id):
    query = session.query(models.Booking).filter_by(id=booking_id)
    if project_id is not None:
        query = query.filter_by(project_id=project_id)
    return query


def booking_get(context, booking_id, project_id=None):
    with db_api.reader.using(context) as session:
        booking = _booking_query(session, booking_id, project_id).first()
        if booking is None:
            raise exception.BookingNotFound(id=booking_id)
        return booking


# A list reads the bookings' columns, not objects: building a page of
# ORM objects cost more than its query.
_COLUMNS = tuple(attr.key for attr in
                 sa.inspect(models.Booking).column_attrs)


class Listed(collections.namedtuple('Listed', _COLUMNS + ('status',))):
    """A booking as booking_list reads it: its columns under the model's
    names, and the ``status`` shown (the desk's close, else the recorded
    one), as the model's own."""
    __slots__ = ()


def booking_list(context, project_id=None, flavor_id=None, status=None,
                 limit=None, marker=None):
    """A page of bookings by creation, as Listed tuples."""
    with db_api.reader.using(context) as session:
        query = session.query(*(getattr(models.Booking, key)
                                for key in _COLUMNS))
        if project_id is not None:
            query = query.filter(models.Booking.project_id == project_id)
        if flavor_id is not None:
            query = query.filter(models.Booking.flavor_id == flavor_id)
        if status is not None:
            query = query.filter(models.Booking.status == status)
        rows = db_api._paginate(query, models.Booking, limit, marker)
    return [Listed(*row, row.closed_as or row.recorded_status)
            for row in rows]


def booking_find_by_reserved_flavor(context, flavor_id):
    """The booking whose lease's flavor is ``flavor_id``, or None."""
    with db_api.reader.using(context) as session:
        return (session.query(models.Booking)
                .filter_by(reserved_flavor_id=flavor_id).first())


def booking_list_by_lease(context, lease_id):
    with db_api.reader.using(context) as session:
        return (session.query(models.Booking)
                .filter_by(lease_id=lease_id).all())


# Written only by booking_move (the manager's moves) and booking_close
# (the desk's cancel and eviction); tests/unit/test_status_writers.py
# holds every caller to that.
_STATUS_COLUMNS = frozenset(('status', 'recorded_status', 'closed_as'))


def _swap(context, booking_id, values, expected_status=None,
          expected_end=None):
    """The compare-and-swap under booking_update, booking_move and
    booking_close: the updated booking, or None when it lost."""
    with db_api.writer.using(context) as session:
        # What the row counts in the flavor's days, read (locked) before
        # a write that may change it.
        before = (slot_days.read(session, models.Booking.id == booking_id,
                                 lock=True)
                  if slot_days.COUNTED_COLUMNS & set(values) else None)
        if not db_api.compare_and_swap(session, models.Booking, booking_id,
                                       values, expected_status,
                                       expected_end):
            if session.get(models.Booking, booking_id) is None:
                raise exception.BookingNotFound(id=booking_id)
            return None
        session.expire_all()
        booking = session.get(models.Booking, booking_id)
        if 'start' in values or 'end' in values:
            _stretch_longest_booking(session, booking)
        if before is not None:
            slot_days.count(session, before, [slot_days.counted(booking)])
        return booking


@db_api.retry_on_deadlock
def booking_update(context, booking_id, values, expected_status=None,
                   expected_end=None):
    """Update a booking's other columns; with expected_status (and
    expected_end), only if it still has them.

    Returns the updated booking, or None when the compare-and-swap lost.
    """
    if _STATUS_COLUMNS & set(values):
        raise ValueError('a booking\'s status moves by booking_move or '
                         'booking_close only')
    return _swap(context, booking_id, values, expected_status, expected_end)


@db_api.retry_on_deadlock
def booking_move(context, booking_id, status, sources, **values):
    """Move a booking from one of ``sources`` (shown statuses: a closed
    booking never moves) to ``status``, with ``values``; the updated
    booking, or None when it was elsewhere. The manager's, through
    reserve.manager.booking_status."""
    return _swap(context, booking_id,
                 dict(values, recorded_status=status),
                 expected_status=sources)


@db_api.retry_on_deadlock
def booking_close(context, booking_id, closed_as, reason, live):
    """The desk's close of a booking whose shown status is one of
    ``live``: from now on it shows ``closed_as``, whatever its lease
    does. The updated booking, or None when it was not live any more.
    The one compare-and-swap of a cancel (reserve.booking.cancel)."""
    return _swap(context, booking_id,
                 {'closed_as': closed_as, 'status_reason': reason},
                 expected_status=live)


def _drop_unadopted_allocations(session, booking_ids):
    """The allocations no lease took of the bookings ``booking_ids`` (a
    query of ids) go with them. A lease's allocations (adopted) never do:
    they outlive the booking row (its booking_id becomes NULL) until the
    lease's teardown deletes them."""
    (session.query(models.Allocation)
     .filter(models.Allocation.lease_reservation_id.is_(None))
     .filter(models.Allocation.booking_id.in_(booking_ids))
     .delete(synchronize_session=False))


def booking_destroy(context, booking_id):
    with db_api.writer.using(context) as session:
        before = slot_days.read(session, models.Booking.id == booking_id,
                                lock=True)
        _drop_unadopted_allocations(session, [booking_id])
        sharing_db.shares_drop(session, [booking_id])
        session.query(models.Booking).filter_by(id=booking_id).delete()
        slot_days.count(session, before)


def booking_list_stale(context, status, updated_before):
    """Bookings in ``status`` untouched since ``updated_before``."""
    with db_api.reader.using(context) as session:
        return (session.query(models.Booking)
                .filter_by(status=status)
                .filter(models.Booking.updated_at < updated_before)
                .all())


def booking_list_end_not_on_lease(context, updated_before):
    """Bookings whose end moved but whose lease still ends elsewhere.

    The update_lease cast was lost (or its worker died): the lease would
    end at the old time. Only bookings untouched since ``updated_before``,
    so that a cast in flight is left to arrive.
    """
    with db_api.reader.using(context) as session:
        return (session.query(models.Booking)
                .join(models.Lease,
                      models.Lease.id == models.Booking.lease_id)
                .filter(models.Booking.status.in_(
                    (states.Booking.ALLOCATED, states.Booking.ACTIVE)))
                .filter(models.Lease.status.in_(
                    (states.Lease.PENDING, states.Lease.STARTING,
                     states.Lease.ACTIVE)))
                .filter(models.Booking.end != models.Lease.end)
                .filter(models.Booking.updated_at < updated_before)
                .all())


def booking_list_behind_lease(context):
    """Bookings whose shown status lags their lease's: ALLOCATED while
    it is ACTIVE, ALLOCATED or ACTIVE while it is TERMINATED. The
    manager moves both in one transaction, so only a hand-made edit (or
    a restore) leaves one behind."""
    B, L = models.Booking, models.Lease
    with db_api.reader.using(context) as session:
        return (session.query(B).join(L, L.id == B.lease_id)
                .filter(sa.or_(
                    sa.and_(L.status == states.Lease.ACTIVE,
                            B.status.in_((states.Booking.ALLOCATED,))),
                    sa.and_(L.status == states.Lease.TERMINATED,
                            B.status.in_((states.Booking.ALLOCATED,
                                          states.Booking.ACTIVE)))))
                .all())


def booking_purge(context, ended_before):
    """Bookings over (COMPLETE, or LAPSED on standby) whose end is
    before ``ended_before`` go (none of them counted in reserve.db.slot_days:
    they are not live)."""
    over = (states.Booking.COMPLETE, states.Booking.LAPSED)
    purged = (sa.select(models.Booking.id)
              .where(models.Booking.status.in_(over))
              .where(models.Booking.end < ended_before))
    with db_api.writer.using(context) as session:
        _drop_unadopted_allocations(session, purged)
        sharing_db.shares_drop(session, purged)
        return (session.query(models.Booking)
                .filter(models.Booking.status.in_(over))
                .filter(models.Booking.end < ended_before)
                .delete(synchronize_session=False))


def booking_list_waiting(context):
    """The STANDBY bookings (reserve.booking.standby), oldest waiter
    first."""
    with db_api.reader.using(context) as session:
        return (session.query(models.Booking)
                .filter_by(status=states.Booking.STANDBY)
                .order_by(models.Booking.standby_since, models.Booking.id)
                .all())


def booking_count_waiting(context, project_id):
    """How many bookings of ``project_id`` are STANDBY."""
    with db_api.reader.using(context) as session:
        return (session.query(sa.func.count(models.Booking.id))
                .filter_by(project_id=project_id,
                           status=states.Booking.STANDBY)
                .scalar())
