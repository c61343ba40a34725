"""Database access for device reservations: their projects, devices
and attachments, and the holds the booking desk and the manager read.

Like reserve.db.api, every function takes a RequestContext first and joins
the caller's transaction when there is one, so a hold (reservation,
devices, attachments) is written in the same transaction as its lease.

A device reservation is visible to a project when the project created it
or is in its audience or among its managers; functions taking
``project_id`` return only those (None: every reservation).
"""
import collections

from oslo_utils import uuidutils
import sqlalchemy as sa
from sqlalchemy import orm

from reserve.common import exception
from reserve.common import states
from reserve.db import api as db_api
from reserve.db import leases as leases_db
from reserve.db import models

_DR = models.DeviceReservation
_PROJECT = models.DeviceReservationProject
_HELD = models.DeviceReservationDevice


def _visible_to(project_id):
    return sa.or_(_DR.project_id == project_id,
                  sa.exists().where(_PROJECT.device_reservation_id == _DR.id,
                                    _PROJECT.project_id == project_id))


def device_reservation_insert(context, values, projects, device_ids,
                              attachments):
    """Write a reservation (``values``: its columns, ``status`` the
    recorded one, ``id`` made when absent) with its projects ({role:
    [project ids]}), devices and planned attachments (dicts of
    DeviceAttachment columns), in rows: no object is built. Returns its
    id."""
    values = dict(values)
    reservation_id = values.setdefault('id', uuidutils.generate_uuid())
    rows = [
        (_DR, [values]),
        (_PROJECT, [{'device_reservation_id': reservation_id,
                     'project_id': project, 'role': role}
                    for role, ids in projects.items()
                    for project in sorted(set(ids))]),
        (_HELD, [{'device_reservation_id': reservation_id, 'device_id': d}
                 for d in device_ids]),
        (models.DeviceAttachment, [dict(a, device_reservation_id=(
            reservation_id)) for a in attachments]),
    ]
    with db_api.writer.using(context) as session:
        # Core inserts on the session's connection: the ORM's bulk insert
        # would only add its bookkeeping to the same statements.
        connection = session.connection()
        for model, found in rows:
            if found:
                connection.execute(model.__table__.insert(), found)
    return reservation_id


_COLLECTIONS = ('projects', 'devices', 'attachments')


def device_reservation_find(context, reservation_id, collections=None):
    """The reservation or None; ``collections``: those of its projects,
    devices and attachments to load (all when None), the others raise
    when read."""
    options = [orm.raiseload(getattr(_DR, name)) for name in _COLLECTIONS
               if collections is not None and name not in collections]
    with db_api.reader.using(context) as session:
        return session.get(_DR, reservation_id, options=options)


def device_reservation_row(context, reservation_id):
    """What the worker reads of a reservation to know whether there is
    anything to do, as a read-only row (none of its devices, projects
    and attachments), or None: its id, project_id, user_id, start, end,
    released_at and the status shown (the desk's close, else the
    recorded one)."""
    with db_api.reader.using(context) as session:
        return session.execute(
            sa.select(_DR.id, _DR.project_id, _DR.user_id, _DR.start,
                      _DR.end, _DR.released_at,
                      sa.func.coalesce(_DR.closed_as, _DR.recorded_status)
                      .label('status'))
            .where(_DR.id == reservation_id)).first()


def _host_name():
    """The name of the reservation's host, in a query of reservations."""
    hosts = models.Host.__table__
    return (sa.select(hosts.c.name)
            .where(hosts.c.id == _DR.__table__.c.host_id).scalar_subquery())


def _lease_id():
    """The id of the lease the reservation owns, in a query of them."""
    leases = models.Lease.__table__
    return (sa.select(leases.c.id)
            .where(leases.c.owner_type == states.Owner.DEVICE_RESERVATION)
            .where(leases.c.owner_id == _DR.__table__.c.id)
            .scalar_subquery())


def device_reservation_get(context, reservation_id, project_id=None):
    """The reservation, with its ``host_name`` and ``lease_id``."""
    with db_api.reader.using(context) as session:
        query = (session.query(_DR).filter_by(id=reservation_id)
                 .options(orm.with_expression(_DR.host_name, _host_name()),
                          orm.with_expression(_DR.lease_id, _lease_id())))
        if project_id is not None:
            query = query.filter(_visible_to(project_id))
        reservation = query.first()
        if reservation is None:
            raise exception.DeviceReservationNotFound(id=reservation_id)
        return reservation


# The list reads rows, not objects: a page of a thousand reservations
# holds thousands of devices, attachments and projects, and as ORM objects
# building them (and the garbage collector's walks over them) costs
# several times the queries. The reservations come with their devices and
# projects joined into strings by the database (the driver's cost is per
# value read), then their attachments and the devices' rows, into
# tuples: three queries, however many the page holds.

_DR_TABLE = _DR.__table__
_A_TABLE = models.DeviceAttachment.__table__
_DR_COLUMNS = tuple(_DR_TABLE.columns)
_ATTACHMENT_COLUMNS = tuple(_A_TABLE.c[name] for name in (
    'device_reservation_id', 'device_id', 'domain', 'kind', 'mdev_uuid',
    'project_id', 'state', 'live', 'config'))
_DEVICE_COLUMNS = tuple(models.Device.__table__.c[name] for name in (
    'id', 'pci_address', 'numa_node', 'vendor_id', 'product_id',
    'product_name'))
# Joins the ids of a reservation's devices or projects: neither holds it
# (device ids are UUIDs; project ids match \S+, and Python's \s, which
# the schemas' patterns use, matches \x1f too).
_SEPARATOR = '\x1f'
_STATUS, _CLOSED_AS = (_DR_COLUMNS.index(_DR_TABLE.c[name])
                       for name in ('status', 'closed_as'))
_LISTED_FIELDS = [c.key for c in _DR_COLUMNS] + [
    'host_name', 'lease_id', 'projects', 'lent', 'devices', 'attachments']


class Listed(collections.namedtuple('Listed', _LISTED_FIELDS)):
    """A device reservation as device_reservation_list reads it: its columns,
    ``host_name`` and ``lease_id`` as device_reservation_get has them, its
    ``projects`` ({role: sorted project ids}), and its ``devices`` and
    ``attachments`` (the columns the API shows), each with its ``device``
    (id, pci_address, numa_node and what names its model)."""
    __slots__ = ()

    def project_ids(self, role):
        return self.projects.get(role, [])

    def lent_device_ids(self):
        return self.lent


# Plain tuples: a SQLAlchemy row's attributes are several times slower to
# read, and the view reads each many times.
_Device = collections.namedtuple(
    '_Device', [c.key for c in _DEVICE_COLUMNS])
_Held = collections.namedtuple('_Held', 'device')
_Attachment = collections.namedtuple(
    '_Attachment', [c.key for c in _ATTACHMENT_COLUMNS] + ['device'])


def _joined(table, column, *where):
    """The values of ``column`` of ``table`` (keyed by
    device_reservation_id) for each reservation, joined by _SEPARATOR,
    in a query of them (of the rows matching ``where``)."""
    return (sa.select(sa.func.aggregate_strings(column, _SEPARATOR))
            .where(table.c.device_reservation_id == _DR_TABLE.c.id, *where)
            .scalar_subquery())


def _split(joined):
    return joined.split(_SEPARATOR) if joined else []


def _by_role(joined):
    """{role: sorted project ids} from 'role:project' values joined."""
    projects = {}
    for pair in sorted(_split(joined)):
        role, _, project_id = pair.partition(':')
        projects.setdefault(role, []).append(project_id)
    return projects


# The statements of a list are built once per shape (which filters it
# has), their values bound at each call: building them and working out
# their cache key cost more than running them on SQLite.
_LIST_STATEMENTS = {}


def _page(reservation_id, project_id, status, host_id, marker, limit):
    """The ids of a page, in a subquery, for the filters and limit given
    (their values are bound parameters)."""
    query = sa.select(_DR_TABLE.c.id)
    if reservation_id:
        query = query.where(_DR_TABLE.c.id == sa.bindparam('reservation_id'))
    if project_id:
        query = query.where(_visible_to(sa.bindparam('project_id')))
    if status:
        query = query.where(_DR.status == sa.bindparam('status'))
    if host_id:
        query = query.where(_DR_TABLE.c.host_id == sa.bindparam('host_id'))
    if marker:
        # After the marker in the order of the list (created_at, id).
        created = sa.bindparam('marker_created_at',
                               type_=_DR_TABLE.c.created_at.type)
        query = query.where(sa.or_(
            _DR_TABLE.c.created_at > created,
            sa.and_(_DR_TABLE.c.created_at == created,
                    _DR_TABLE.c.id > sa.bindparam('marker'))))
    query = query.order_by(_DR_TABLE.c.created_at, _DR_TABLE.c.id)
    if limit:
        query = query.limit(sa.bindparam('limit'))
    return query.subquery('page')


def _list_statements(shape):
    """(reservations, attachments, devices) of a page of this shape."""
    statements = _LIST_STATEMENTS.get(shape)
    if statements is not None:
        return statements
    projects, held = _PROJECT.__table__, _HELD.__table__
    page = _page(*shape)
    reservations = (
        sa.select(*_DR_COLUMNS, _host_name(), _lease_id(),
                  _joined(projects, projects.c.role + ':' +
                          projects.c.project_id),
                  _joined(held, held.c.device_id,
                          held.c.spot_since.isnot(None)),
                  _joined(held, held.c.device_id))
        .join_from(_DR_TABLE, page, page.c.id == _DR_TABLE.c.id)
        .order_by(_DR_TABLE.c.created_at, _DR_TABLE.c.id))
    attachments = (
        sa.select(*_ATTACHMENT_COLUMNS)
        .join(page, page.c.id == _A_TABLE.c.device_reservation_id)
        .order_by(_A_TABLE.c.domain, _A_TABLE.c.device_id))
    # The devices held by the page or attached by it: a page holds many
    # reservations of few devices, each device read once.
    devices = sa.select(*_DEVICE_COLUMNS).where(sa.or_(
        _DEVICE_COLUMNS[0].in_(
            sa.select(held.c.device_id)
            .join(page, page.c.id == held.c.device_reservation_id)),
        _DEVICE_COLUMNS[0].in_(
            sa.select(_A_TABLE.c.device_id)
            .join(page, page.c.id == _A_TABLE.c.device_reservation_id))))
    statements = _LIST_STATEMENTS[shape] = (reservations, attachments,
                                            devices)
    return statements


def device_reservation_listed(context, reservation_id, project_id=None):
    """The reservation as device_reservation_list reads it (a Listed
    tuple, for a view of it): three queries, where
    device_reservation_get's objects load each of their collections
    apart."""
    found = device_reservation_list(context, project_id=project_id,
                                    reservation_id=reservation_id)
    if not found:
        raise exception.DeviceReservationNotFound(id=reservation_id)
    return found[0]


def device_reservation_list(context, project_id=None, status=None,
                            host_id=None, limit=None, marker=None,
                            reservation_id=None):
    """A page of reservations by creation, as Listed tuples."""
    values = {'reservation_id': reservation_id, 'project_id': project_id,
              'status': status, 'host_id': host_id, 'marker': marker,
              'limit': limit}
    reservations, attachments, devices = _list_statements(tuple(
        values[name] is not None
        for name in ('reservation_id', 'project_id', 'status', 'host_id',
                     'marker', 'limit')))
    # Rows straight from a connection: the ORM's processing of them
    # would only be undone.
    with db_api.reader.connection.using(context) as connection:
        if marker is not None:
            values['marker_created_at'] = connection.execute(
                sa.select(_DR_TABLE.c.created_at)
                .where(_DR_TABLE.c.id == marker)).scalar()
            if values['marker_created_at'] is None:
                raise exception.Invalid(reason='marker %s not found' %
                                        marker)
        found, held = {}, []
        for row in connection.execute(reservations, values):
            *columns, projects_joined, lent, device_ids = row
            # The status shown: the desk's close, else the recorded one.
            if columns[_CLOSED_AS]:
                columns[_STATUS] = columns[_CLOSED_AS]
            found[row[0]] = Listed(*columns, _by_role(projects_joined),
                                   sorted(_split(lent)), [], [])
            held.extend((row[0], device_id)
                        for device_id in _split(device_ids))
        if found:
            by_id = {row[0]: _Device(*row)
                     for row in connection.execute(devices, values)}
            for reservation_id, device_id in held:
                found[reservation_id].devices.append(_Held(by_id[device_id]))
            for row in connection.execute(attachments, values):
                found[row[0]].attachments.append(
                    _Attachment(*row, by_id[row[1]]))
    return list(found.values())


def device_reservations_of_host(context, host_id, statuses):
    with db_api.reader.using(context) as session:
        return (session.query(_DR).filter_by(host_id=host_id)
                .filter(_DR.status.in_(statuses))
                .order_by(_DR.created_at).all())


def device_reservations_unreleased(context, statuses=None,
                                   starting_before=None):
    with db_api.reader.using(context) as session:
        query = session.query(_DR).filter(_DR.released_at.is_(None))
        if statuses is not None:
            query = query.filter(_DR.status.in_(statuses))
        if starting_before is not None:
            query = query.filter(_DR.start <= starting_before)
        return query.order_by(_DR.created_at).all()


def project_device_windows(context, project_id, statuses):
    """(start, end, devices) of each unreleased device reservation of
    ``statuses`` a project made: what its quota of device-hours counts."""
    query = (sa.select(_DR.start, _DR.end, sa.func.count())
             .join(_HELD, _HELD.device_reservation_id == _DR.id)
             .where(_DR.project_id == project_id)
             .where(_DR.released_at.is_(None))
             .where(_DR.status.in_(statuses))
             .group_by(_DR.id, _DR.start, _DR.end))
    with db_api.reader.using(context) as session:
        return [tuple(row) for row in session.execute(query)]


# Written only by device_reservation_move (the manager's moves) and
# device_reservation_close (the desk's cancel);
# tests/unit/test_status_writers.py holds every caller to that.
_STATUS_COLUMNS = frozenset(('status', 'recorded_status', 'closed_as'))


def _swap(context, reservation_id, values, expected_status=None):
    with db_api.writer.using(context) as session:
        return db_api.compare_and_swap(session, _DR, reservation_id, values,
                                       expected_status)


def device_reservation_update(context, reservation_id, values,
                              expected_status=None):
    """Update a reservation's other columns; with expected_status (one
    or several), only while it still has it. Returns whether a row
    changed."""
    if _STATUS_COLUMNS & set(values):
        raise ValueError('a device reservation\'s status moves by '
                         'device_reservation_move or device_reservation_close '
                         'only')
    return _swap(context, reservation_id, values, expected_status)


def device_reservation_move(context, reservation_id, status, sources,
                            **values):
    """Move a reservation from one of ``sources`` (shown statuses: a
    cancelled one never moves) to ``status``, with ``values``; whether
    it moved. The manager's, through reserve.devices.status."""
    return _swap(context, reservation_id,
                 dict(values, recorded_status=status),
                 expected_status=sources)


def device_reservation_close(context, reservation_id, closed_as, reason,
                             live):
    """The desk's cancel of a reservation whose shown status is one of
    ``live``: it shows ``closed_as`` from now on. Whether it was live.
    The one compare-and-swap of a cancel (reserve.booking.cancel)."""
    return _swap(context, reservation_id,
                 {'closed_as': closed_as, 'status_reason': reason},
                 expected_status=live)


def device_reservation_lock_live(context, reservation_id, statuses):
    """Whether the reservation still has one of ``statuses``, its row
    locked for the caller's transaction (an UPDATE that changes nothing:
    a cancel, itself a compare-and-swap on the status, waits for that
    transaction and then sees what it wrote)."""
    with db_api.writer.using(context) as session:
        return bool(session.query(_DR)
                    .filter(_DR.id == reservation_id)
                    .filter(_DR.status.in_(tuple(statuses)))
                    .update({_DR.recorded_status: _DR.recorded_status},
                            synchronize_session=False))


def device_reservation_set_projects(context, reservation_id, role,
                                    project_ids):
    with db_api.writer.using(context) as session:
        (session.query(_PROJECT)
         .filter_by(device_reservation_id=reservation_id, role=role)
         .delete(synchronize_session=False))
        for project in sorted(set(project_ids)):
            session.add(_PROJECT(device_reservation_id=reservation_id,
                                 project_id=project, role=role))


def device_reservation_destroy(context, reservation_id):
    """Delete a reservation (its projects, devices and attachments go by
    the foreign keys); idempotent, two DELETEs at once included."""
    with db_api.writer.using(context) as session:
        (session.query(_DR).filter_by(id=reservation_id)
         .delete(synchronize_session=False))


def device_reservation_lease(context, reservation_id):
    """The lease a device reservation owns, or None once it is gone."""
    return leases_db.lease_get_by_owner(
        context, states.Owner.DEVICE_RESERVATION, reservation_id)


def device_reservation_lease_state(context, reservation_id):
    """The id and status of the lease a device reservation owns (a row),
    or None once it is gone."""
    return leases_db.lease_state_by_owner(
        context, states.Owner.DEVICE_RESERVATION, reservation_id)


def unreleased_predecessors(context, reservation):
    """{reservation id: [device ids]} of the reservations that hold some
    of ``reservation``'s devices before it and have not released them: its
    start must wait for their end (late, or taken over from a manager
    that died)."""
    mine = orm.aliased(_HELD)
    with db_api.reader.using(context) as session:
        rows = (session.query(_HELD.device_reservation_id, _HELD.device_id)
                .join(_DR, _DR.id == _HELD.device_reservation_id)
                .join(mine, mine.device_id == _HELD.device_id)
                .filter(mine.device_reservation_id == reservation.id)
                .filter(_DR.id != reservation.id)
                .filter(_DR.released_at.is_(None))
                .filter(_DR.start < reservation.start)
                .order_by(_HELD.device_reservation_id, _HELD.device_id).all())
    held = {}
    for holder, device in rows:
        held.setdefault(holder, []).append(device)
    return held


def holds(context, start, end, host_ids=None, exclude=None):
    """(device_id, reservation) of every unreleased reservation whose
    window overlaps [start, end): the devices it withholds then. The
    reservations come with their projects (who may see them), not their
    devices or attachments, which each hold would otherwise read again
    (an access to those raises)."""
    return holds_over(context, [(start, end)], host_ids, exclude)[0]


def holds_over(context, windows, host_ids=None, exclude=None):
    """holds() of each window of ``windows`` ([(start, end)]), in that
    order, from one read."""
    with db_api.reader.using(context) as session:
        query = (session.query(_HELD.device_id, _DR)
                 .options(orm.raiseload(_DR.devices),
                          orm.raiseload(_DR.attachments))
                 .join(_DR, _DR.id == _HELD.device_reservation_id)
                 .filter(_DR.released_at.is_(None))
                 .filter(sa.or_(*(sa.and_(_DR.start < end, _DR.end > start)
                                  for start, end in windows))))
        if host_ids is not None:
            query = query.filter(_DR.host_id.in_(host_ids))
        if exclude is not None:
            query = query.filter(_DR.id != exclude)
        rows = query.all()
    return [[(device_id, reservation) for device_id, reservation in rows
             if reservation.start < end and reservation.end > start]
            for start, end in windows]


# Attachments --------------------------------------------------------------

def attachments_add(context, reservation_id, attachments):
    with db_api.writer.using(context) as session:
        rows = [models.DeviceAttachment(device_reservation_id=reservation_id,
                                        **a)
                for a in attachments]
        session.add_all(rows)
        session.flush()
        return rows


def attachment_update(context, attachment_id, values):
    with db_api.writer.using(context) as session:
        (session.query(models.DeviceAttachment)
         .filter_by(id=attachment_id)
         .update(dict(values, updated_at=models._now()),
                 synchronize_session=False))


def attachments_set_state(context, attachment_ids, state, only_from):
    """Move attachments in one of ``only_from`` states to ``state``."""
    with db_api.writer.using(context) as session:
        (session.query(models.DeviceAttachment)
         .filter(models.DeviceAttachment.id.in_(list(attachment_ids)))
         .filter(models.DeviceAttachment.state.in_(tuple(only_from)))
         .update({'state': state, 'updated_at': models._now()},
                 synchronize_session=False))


def attachments_delete(context, attachment_ids):
    with db_api.writer.using(context) as session:
        (session.query(models.DeviceAttachment)
         .filter(models.DeviceAttachment.id.in_(list(attachment_ids)))
         .delete(synchronize_session=False))


def attachments_of_host(context, host_id, states_in):
    """Attachments of the host's reservations in these states."""
    with db_api.reader.using(context) as session:
        return (session.query(models.DeviceAttachment)
                .join(_DR, _DR.id ==
                      models.DeviceAttachment.device_reservation_id)
                .filter(_DR.host_id == host_id)
                .filter(models.DeviceAttachment.state.in_(states_in))
                .all())
