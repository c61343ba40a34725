"""The booking desk's catalogue flavors (/v1/flavors) and their grants
to projects.

Same conventions as reserve.db.api, whose transaction context
this module uses: every function takes a RequestContext first and
joins the transaction the caller may have open on it.
"""
from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import sqlalchemy as sa
from sqlalchemy import orm

from reserve.common import exception
from reserve.common import states
from reserve.db import api as db_api
from reserve.db import models

F = models.Flavor
B = models.Booking


def _by_ref(query, ref):
    """Match a flavor by id, else by name (names are never UUIDs)."""
    if uuidutils.is_uuid_like(ref):
        return query.filter(F.id == ref)
    return query.filter(F.name == ref)


def _visible_to(query, project_id):
    """Public flavors, and private ones granted to ``project_id``."""
    granted = sa.exists().where(models.FlavorProject.flavor_id == F.id,
                                models.FlavorProject.project_id ==
                                project_id)
    return query.filter(sa.or_(F.is_public.is_(True), granted))


def flavor_create(context, values, project_ids=()):
    try:
        with db_api.writer.using(context) as session:
            flavor = F(**values)
            flavor.projects = [models.FlavorProject(project_id=p)
                               for p in sorted(set(project_ids))]
            session.add(flavor)
            session.flush()
            return flavor
    except db_exc.DBDuplicateEntry:
        existing = flavor_get(context, values['name'])
        raise exception.FlavorAlreadyExists(name=values['name'],
                                            id=existing.id)


def flavor_get(context, ref, project_id=None, active_only=False):
    """The flavor with id or name ``ref``.

    project_id: only if public or granted to that project; active_only:
    only if active. FlavorNotFound otherwise.
    """
    with db_api.reader.using(context) as session:
        query = _by_ref(session.query(F), ref)
        if project_id is not None:
            query = _visible_to(query, project_id)
        if active_only:
            query = query.filter(F.active.is_(True))
        flavor = query.first()
        if flavor is None:
            raise exception.FlavorNotFound(id=ref)
        return flavor


def flavor_find_id(context, ref):
    """The id of the flavor with id or name ``ref``, or None."""
    with db_api.reader.using(context) as session:
        row = _by_ref(session.query(F.id), ref).first()
        return row[0] if row else None


def _narrowed(query, grants, project_id, active_only, filters):
    """flavor_list's query (or statement) for its arguments, whose
    values may be bound parameters."""
    if not grants:
        query = query.options(orm.raiseload(F.projects),
                              orm.raiseload(F.spot_projects))
    if project_id is not None:
        query = _visible_to(query, project_id)
    if active_only:
        query = query.filter(F.active.is_(True))
    for column, value in filters.items():
        query = query.filter(getattr(F, column) == value)
    return query


# flavor_list's statements by shape (which filters, grants or not), their
# values bound at each call: a list is read at every availability request.
_LIST_STATEMENTS = {}


def _list_statement(visible, active_only, filter_names, grants):
    shape = (visible, active_only, filter_names, grants)
    statement = _LIST_STATEMENTS.get(shape)
    if statement is None:
        statement = _LIST_STATEMENTS[shape] = _narrowed(
            sa.select(F), grants,
            sa.bindparam('project_id') if visible else None, active_only,
            {name: sa.bindparam('filter_' + name) for name in filter_names}
        ).order_by(F.name)
    return statement


def flavor_list(context, project_id=None, active_only=False, filters=None,
                limit=None, marker=None, grants=True):
    """Flavors, optionally only those ``project_id`` may see and only the
    active ones; ``filters`` maps column names to required values. With
    ``grants`` False, the flavors come without their projects and spot
    projects (two queries fewer; an access to them raises)."""
    filters = filters or {}
    with db_api.reader.using(context) as session:
        if limit is None and marker is None:
            values = {'filter_' + k: v for k, v in filters.items()}
            values['project_id'] = project_id
            statement = _list_statement(project_id is not None, active_only,
                                        tuple(sorted(filters)), grants)
            return session.execute(statement, values).scalars().all()
        query = _narrowed(session.query(F), grants, project_id, active_only,
                          filters)
        return db_api._paginate(query, F, limit, marker, sort_key='name')


# What the catalogue's counts read of an entry (admission.offered and
# availability): no grants, no ORM objects.
_COUNTED = (F.id, F.name, F.slots, F.active, F.spot, F.nova_flavor,
            F.longest_booking)


def flavor_rows(context):
    """Every catalogue entry, by name, as a read-only row of the columns
    the booking desk's counts read (_COUNTED): a thousand entries in one
    query and a few milliseconds, for the figures of each scrape."""
    with db_api.reader.using(context) as session:
        return session.execute(sa.select(*_COUNTED).order_by(F.name)).all()


def flavor_update(context, flavor_id, values):
    try:
        with db_api.writer.using(context) as session:
            flavor = session.get(F, flavor_id)
            if flavor is None:
                raise exception.FlavorNotFound(id=flavor_id)
            for key, value in values.items():
                setattr(flavor, key, value)
            session.flush()
            return flavor
    except db_exc.DBDuplicateEntry:
        existing = flavor_get(context, values['name'])
        raise exception.FlavorAlreadyExists(name=values['name'],
                                            id=existing.id)


def flavor_destroy(context, flavor_id):
    """Delete a flavor no reservation references (FlavorInUse else)."""
    with db_api.writer.using(context) as session:
        flavor = session.get(F, flavor_id)
        if flavor is None:
            raise exception.FlavorNotFound(id=flavor_id)
        count = (session.query(sa.func.count(B.id))
                 .filter(B.flavor_id == flavor_id).scalar())
        if count:
            raise exception.FlavorInUse(name=flavor.name, count=count)
        # With no booking, its days count nothing.
        session.execute(models.flavor_slot_days.delete().where(
            models.flavor_slot_days.c.flavor_id == flavor_id))
        session.delete(flavor)


def live_booking_count(context, flavor_id):
    """How many bookings of the flavor are live (they hold its calendar
    and will be, or are, built in the cloud)."""
    with db_api.reader.using(context) as session:
        return (session.query(sa.func.count(B.id))
                .filter(B.flavor_id == flavor_id)
                .filter(B.status.in_(states.Booking.LIVE)).scalar())


def flavor_lock(context, flavor_ids=None):
    """Lock the rows of ``flavor_ids`` (every flavor when None) until the
    caller's transaction ends, and return them, ordered by id.

    This serialises everything that changes a flavor's calendar. Call it
    right after the capacity lock (reserve.capacity.store.lock) in a
    writer transaction: on MariaDB the snapshot of REPEATABLE READ is
    taken at the first plain read, which must come after the locks.
    SQLite has no row locks; there the capacity lock took the database's
    write lock already, which serialises writers.
    """
    with db_api.writer.using(context) as session:
        # Grants load on first use, within the caller's transaction (only
        # private flavors need them): one round trip less while locked.
        query = session.query(F).options(orm.lazyload(F.projects))
        if flavor_ids is not None:
            query = query.filter(F.id.in_(sorted(set(flavor_ids))))
        # Always in the same order, so that two lockers cannot deadlock.
        return query.order_by(F.id).with_for_update().all()


# Grants -------------------------------------------------------------------

def grant_add(context, flavor_id, project_id):
    try:
        with db_api.writer.using(context) as session:
            grant = models.FlavorProject(flavor_id=flavor_id,
                                         project_id=project_id)
            session.add(grant)
            session.flush()
            return grant
    except db_exc.DBDuplicateEntry:
        raise exception.GrantAlreadyExists(project=project_id,
                                           flavor=flavor_id)


def grant_remove(context, flavor_id, project_id):
    with db_api.writer.using(context) as session:
        removed = (session.query(models.FlavorProject)
                   .filter_by(flavor_id=flavor_id, project_id=project_id)
                   .delete(synchronize_session=False))
        if not removed:
            raise exception.GrantNotFound(project=project_id,
                                          flavor=flavor_id)


# Spot opt-ins ---------------------------------------------------------------

def spot_flavor_list(context):
    """The active spot flavors, with the projects that opted in."""
    with db_api.reader.using(context) as session:
        return (session.query(models.Flavor)
                .filter(models.Flavor.spot.is_(True))
                .filter(models.Flavor.active.is_(True))
                .order_by(models.Flavor.id).all())


def spot_flavors_withdrawn(context):
    """The entries that are no live spot flavor (inactive, or no longer
    spot) but still have projects opted in: their nova flavor's access
    is taken away."""
    with db_api.reader.using(context) as session:
        return (session.query(models.Flavor)
                .filter(models.Flavor.spot_projects.any())
                .filter(sa.or_(models.Flavor.spot.is_(False),
                               models.Flavor.active.is_(False)))
                .order_by(models.Flavor.id).all())


def spot_opt_in(context, flavor_id, project_id):
    """Project ``project_id`` opts in to spot flavor ``flavor_id``; True
    when it had not yet (opting in twice is no error)."""
    try:
        with db_api.writer.using(context) as session:
            session.add(models.FlavorSpotProject(flavor_id=flavor_id,
                                                 project_id=project_id))
            session.flush()
    except db_exc.DBDuplicateEntry:
        return False
    return True


def spot_opt_out(context, flavor_id, project_id):
    """True when the project had opted in."""
    with db_api.writer.using(context) as session:
        return bool(session.query(models.FlavorSpotProject)
                    .filter_by(flavor_id=flavor_id, project_id=project_id)
                    .delete(synchronize_session=False))
