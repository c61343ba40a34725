"""The projects a booking shares its reserved flavor with
(booking_projects): written by the booking desk, read by the API's
visibility check and by the flavor:instance plugin, which gives each
shared project the access its owner has.

Same conventions as reserve.db.api: every function takes a
RequestContext first and joins the transaction the caller may have open
on it.
"""
import collections

import sqlalchemy as sa

from reserve.common import exception
from reserve.common import states
from reserve.db import api as db_api
from reserve.db import models

_ROW = models.BookingProject

# What the plugin works from: the projects shared with now, and those
# whose share was taken back and whose access may still be there.
Shares = collections.namedtuple('Shares', 'shared removed')


def shares_add(context, booking_id, project_ids):
    """The first shares of a booking being written (in its transaction)."""
    with db_api.writer.using(context) as session:
        for project_id in project_ids:
            session.add(_ROW(booking_id=booking_id, project_id=project_id))


def shares_of(context, booking_id):
    """Shares of the booking ``booking_id``, each list sorted."""
    with db_api.reader.using(context) as session:
        rows = (session.query(_ROW.project_id, _ROW.removed_at)
                .filter(_ROW.booking_id == booking_id).all())
    return Shares(sorted(p for p, removed in rows if removed is None),
                  sorted(p for p, removed in rows if removed is not None))


def shared_project_ids(context, booking_id):
    return shares_of(context, booking_id).shared


def shared_with(context, booking_id, project_id):
    """Whether ``booking_id`` is shared with ``project_id`` now."""
    with db_api.reader.using(context) as session:
        return session.query(
            sa.exists().where(_ROW.booking_id == booking_id,
                              _ROW.project_id == project_id,
                              _ROW.removed_at.is_(None))).scalar()


@db_api.retry_on_deadlock
def shares_change(context, booking_id, change):
    """The shares of a live booking replaced by ``change(current)`` (the
    sorted list shared now → the list wanted), under the booking's row
    lock, so that two changes at once apply one after the other and a
    cancel meanwhile is seen: 409 once the booking is over. Returns
    (the booking, the projects now shared, sorted)."""
    with db_api.writer.using(context) as session:
        booking = (session.query(models.Booking)
                   .filter_by(id=booking_id).with_for_update().first())
        if booking is None:
            raise exception.BookingNotFound(id=booking_id)
        if booking.status not in states.Booking.LIVE:
            raise exception.InvalidState(
                what='Reservation %s' % booking_id, status=booking.status,
                reason='the projects it is shared with change only while '
                       'it lives')
        rows = {r.project_id: r for r in
                session.query(_ROW).filter(_ROW.booking_id == booking_id)}
        wanted = set(change(sorted(p for p, r in rows.items()
                                   if r.removed_at is None)))
        now = models._now()
        for project_id, row in rows.items():
            if project_id in wanted:
                row.removed_at = None
            elif row.removed_at is None:
                row.removed_at = now
        for project_id in wanted - set(rows):
            session.add(_ROW(booking_id=booking_id, project_id=project_id))
        return booking, sorted(wanted)


def shares_forget(context, booking_id, project_ids):
    """The shares taken back of ``project_ids`` forgotten, once their
    access is gone; one shared again meanwhile stays."""
    if not project_ids:
        return
    with db_api.writer.using(context) as session:
        (session.query(_ROW)
         .filter(_ROW.booking_id == booking_id,
                 _ROW.project_id.in_(list(project_ids)),
                 _ROW.removed_at.is_not(None))
         .delete(synchronize_session=False))


def shares_drop(session, booking_ids):
    """The shares of the bookings ``booking_ids`` (a list, or a query of
    ids) go with them (SQLite keeps no foreign keys)."""
    (session.query(_ROW).filter(_ROW.booking_id.in_(booking_ids))
     .delete(synchronize_session=False))
