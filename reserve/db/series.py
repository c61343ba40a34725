"""Series of bookings (/v1/series): a recurrence rule and its occurrences,
each a booking whose series_id names the series.

Same conventions as reserve.db.api, whose transaction context this
module uses: every function takes a RequestContext first and joins the
transaction the caller may have open on it.
"""
import sqlalchemy as sa

from reserve.common import exception
from reserve.db import api as db_api
from reserve.db import models
from reserve.db import slot_days


def series_create(context, values):
    with db_api.writer.using(context) as session:
        series = models.Series(**values)
        session.add(series)
        session.flush()
        return series


def series_get(context, series_id, project_id=None):
    """The series, SeriesNotFound when it is missing or (``project_id``
    given) another project's."""
    with db_api.reader.using(context) as session:
        query = session.query(models.Series).filter_by(id=series_id)
        if project_id is not None:
            query = query.filter_by(project_id=project_id)
        series = query.first()
        if series is None:
            raise exception.SeriesNotFound(id=series_id)
        return series


def series_list(context, project_id=None, limit=None, marker=None):
    with db_api.reader.using(context) as session:
        query = session.query(models.Series)
        if project_id is not None:
            query = query.filter_by(project_id=project_id)
        return db_api._paginate(query, models.Series, limit, marker)


def series_set_refused(context, series_id, refused):
    """Record the occurrences that did not fit (a list of dicts)."""
    with db_api.writer.using(context) as session:
        (session.query(models.Series).filter_by(id=series_id)
         .update({'refused': refused}, synchronize_session=False))


def occurrences(context, series_id):
    """The bookings of a series still on record, by start. (A booking
    deleted after its end, or purged, is gone from it.)"""
    with db_api.reader.using(context) as session:
        return (session.query(models.Booking)
                .filter_by(series_id=series_id)
                .order_by(models.Booking.start, models.Booking.id).all())


def series_destroy(context, series_id):
    """Remove a series and its bookings (a series withdrawn right after
    its admission, before any lease was asked for)."""
    with db_api.writer.using(context) as session:
        ids = (sa.select(models.Booking.id)
               .where(models.Booking.series_id == series_id))
        before = slot_days.read(
            session, models.Booking.series_id == series_id, lock=True)
        (session.query(models.Allocation)
         .filter(models.Allocation.booking_id.in_(ids))
         .delete(synchronize_session=False))
        session.query(models.Booking).filter_by(
            series_id=series_id).delete(synchronize_session=False)
        session.query(models.Series).filter_by(id=series_id).delete(
            synchronize_session=False)
        slot_days.count(session, before)
