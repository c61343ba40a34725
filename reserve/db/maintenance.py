"""Maintenance windows closing catalogue flavors
(/v1/maintenance-windows); the calendar reads them with
reserve.db.desk.maintenance_in_window.

Same conventions as reserve.db.api, whose transaction context
this module uses: every function takes a RequestContext first and
joins the transaction the caller may have open on it.
"""
import sqlalchemy as sa

from reserve.common import exception
from reserve.db import api as db_api
from reserve.db import models

M = models.MaintenanceWindow
MF = models.MaintenanceWindowFlavor


def _window(session, window_id):
    window = session.get(M, window_id)
    if window is None:
        raise exception.MaintenanceWindowNotFound(id=window_id)
    return window


def window_create(context, values, flavor_ids=()):
    with db_api.writer.using(context) as session:
        window = M(**values)
        window.flavors = [MF(flavor_id=f) for f in sorted(set(flavor_ids))]
        session.add(window)
        session.flush()
        return window


def window_get(context, window_id):
    with db_api.reader.using(context) as session:
        return _window(session, window_id)


def window_list(context, flavor_id=None, ends_after=None, limit=None,
                marker=None):
    """Windows, optionally only those closing ``flavor_id`` (by name or
    for all flavors) and only those ending after ``ends_after``."""
    with db_api.reader.using(context) as session:
        query = session.query(M)
        if flavor_id is not None:
            query = query.filter(sa.or_(
                M.all_flavors.is_(True),
                sa.exists().where(MF.window_id == M.id,
                                  MF.flavor_id == flavor_id)))
        if ends_after is not None:
            query = query.filter(M.end > ends_after)
        return db_api._paginate(query, M, limit, marker,
                                sort_key='start')


def window_update(context, window_id, values, flavor_ids=None):
    with db_api.writer.using(context) as session:
        window = _window(session, window_id)
        for key, value in values.items():
            setattr(window, key, value)
        if flavor_ids is not None:
            window.flavors = [MF(flavor_id=f)
                              for f in sorted(set(flavor_ids))]
        session.flush()
        return window


def window_destroy(context, window_id):
    with db_api.writer.using(context) as session:
        window = _window(session, window_id)
        session.delete(window)
