"""Database access for GPU devices and device reservations.

Like reserve.db.api, every function takes a RequestContext first and joins
the caller's transaction when there is one, so a claim (reservation,
units, attachments) is written in the same transaction as its lease.

A device reservation is visible to a project when the project created it
or is in its audience or among its managers; functions taking
``project_id`` return only those (None: every reservation).
"""
import collections

import sqlalchemy as sa
from sqlalchemy import orm

from reserve.common import exception
from reserve.common import states
from reserve.db import api as db_api
from reserve.db import functions
from reserve.db import leases as leases_db
from reserve.db import models

_DR = models.DeviceReservation
_PROJECT = models.DeviceReservationProject
_UNIT = models.DeviceReservationUnit


# Hosts --------------------------------------------------------------------

def libvirt_hosts(context, reservable=None):
    with db_api.reader.using(context) as session:
        query = (session.query(models.Host)
                 .filter_by(kind=states.LIBVIRT)
                 .order_by(models.Host.name))
        if reservable is not None:
            query = query.filter_by(reservable=reservable)
        return query.all()


def host_by_uri(context, uri):
    with db_api.reader.using(context) as session:
        return session.query(models.Host).filter_by(uri=uri).first()


def host_record_refresh(context, host_id, values):
    """topology_generation, refreshed_at, refresh_error of a host."""
    with db_api.writer.using(context) as session:
        (session.query(models.Host).filter_by(id=host_id)
         .update(dict(values, updated_at=models._now()),
                 synchronize_session=False))


def lock_host(context, host_id):
    """Serialise claims on one host until the transaction ends: its row
    is locked (FOR UPDATE); on SQLite the write lock is taken now, so
    that two claimers never read the same free units."""
    with db_api.writer.using(context) as session:
        (session.query(models.Host)
         .filter_by(id=host_id)
         .update({'updated_at': models.Host.updated_at},
                 synchronize_session=False))


# Devices ------------------------------------------------------------------

def device_get(context, device_id):
    with db_api.reader.using(context) as session:
        device = session.get(models.Device, device_id)
        if device is None:
            raise exception.DeviceNotFound(id=device_id)
        return device


def device_list(context, host_ids=None, states_in=None):
    """Devices of libvirt hosts, by host name and PCI address."""
    with db_api.reader.using(context) as session:
        query = (session.query(models.Device)
                 .join(models.Host, models.Host.id == models.Device.host_id)
                 .order_by(models.Host.name, models.Device.pci_address))
        if host_ids is not None:
            query = query.filter(models.Device.host_id.in_(host_ids))
        if states_in is not None:
            query = query.filter(models.Device.state.in_(states_in))
        return query.all()


def devices_sync(context, host_id, found):
    """Make the host's device rows what discovery ``found`` (dicts of
    Device columns keyed by pci_address); devices no longer found are
    kept, as 'missing'. Returns (added, missing) PCI addresses."""
    added, missing = [], []
    with db_api.writer.using(context) as session:
        rows = {d.pci_address: d for d in session.query(models.Device)
                .filter_by(host_id=host_id)}
        for address, values in found.items():
            row = rows.get(address)
            if row is None:
                session.add(models.Device(host_id=host_id, **values))
                added.append(address)
                continue
            for key, value in values.items():
                if getattr(row, key) != value:
                    setattr(row, key, value)
        for address, row in rows.items():
            if address not in found and row.state != states.Device.MISSING:
                row.state = states.Device.MISSING
                missing.append(address)
        session.flush()
    return sorted(added), sorted(missing)


# Device reservations --------------------------------------------------------

def _visible_to(project_id):
    return sa.or_(_DR.project_id == project_id,
                  sa.exists().where(_PROJECT.reservation_id == _DR.id,
                                    _PROJECT.project_id == project_id))


def reservation_create(context, values, projects, device_ids, attachments):
    """Write a reservation with its projects ({role: [project ids]}),
    units and planned attachments (dicts of DeviceAttachment columns)."""
    with db_api.writer.using(context) as session:
        reservation = _DR(**values)
        reservation.projects = [
            _PROJECT(project_id=project, role=role)
            for role, ids in projects.items() for project in sorted(set(ids))]
        reservation.units = [_UNIT(device_id=d) for d in device_ids]
        reservation.attachments = [models.DeviceAttachment(**a)
                                   for a in attachments]
        session.add(reservation)
        session.flush()
        return reservation


def reservation_find(context, reservation_id):
    with db_api.reader.using(context) as session:
        return session.get(_DR, reservation_id)


def _host_name():
    """The name of the reservation's host, in a query of reservations."""
    return (sa.select(models.Host.name)
            .where(models.Host.id == _DR.host_id).scalar_subquery())


def _lease_id():
    """The id of the lease the reservation owns, in a query of them."""
    return (sa.select(models.Lease.id)
            .where(models.Lease.owner_type == states.Owner.DEVICE_RESERVATION)
            .where(models.Lease.owner_id == _DR.id).scalar_subquery())


def reservation_get(context, reservation_id, project_id=None):
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
# holds thousands of units, attachments and projects, and as ORM objects
# building them (and the garbage collector's walks over them) costs
# several times the queries. Each table is read once for the page, only
# the columns the API shows, into tuples.

_A = models.DeviceAttachment
_DR_COLUMNS = tuple(_DR.__table__.columns)
_ATTACHMENT_COLUMNS = (_A.reservation_id, _A.device_id, _A.domain, _A.kind,
                       _A.mdev_uuid, _A.project_id, _A.state, _A.live,
                       _A.config)
_DEVICE_COLUMNS = (models.Device.id, models.Device.pci_address,
                   models.Device.numa_node, models.Device.vendor_id,
                   models.Device.product_id, models.Device.product_name)
_LISTED_FIELDS = [c.key for c in _DR_COLUMNS] + [
    'host_name', 'lease_id', 'projects', 'units', 'attachments']


class Listed(collections.namedtuple('Listed', _LISTED_FIELDS)):
    """A device reservation as reservation_list reads it: its columns,
    ``host_name`` and ``lease_id`` as reservation_get has them, and its
    ``projects`` (project_id, role), ``units`` and ``attachments`` (the
    columns the API shows), each with its ``device`` (id, pci_address,
    numa_node and what names its model)."""
    __slots__ = ()

    project_ids = models.DeviceReservation.project_ids


_Unit = collections.namedtuple('_Unit', 'device')
_Attachment = collections.namedtuple(
    '_Attachment', [c.key for c in _ATTACHMENT_COLUMNS] + ['device'])


def reservation_list(context, project_id=None, status=None, host_id=None,
                     limit=None, marker=None):
    """A page of reservations by creation, as Listed tuples: five
    queries, however many the page holds."""
    with db_api.reader.using(context) as session:
        query = session.query(*_DR_COLUMNS, _host_name(), _lease_id())
        if project_id is not None:
            query = query.filter(_visible_to(project_id))
        if status is not None:
            query = query.filter(_DR.status == status)
        if host_id is not None:
            query = query.filter(_DR.host_id == host_id)
        page = db_api._paginate(query, _DR, limit, marker)
        found = {r.id: r for r in (Listed(*row, [], [], []) for row in page)}
        if found:
            _read_listed(session, found)
    return list(found.values())


def _read_listed(session, found):
    """The projects, units and attachments of ``found`` ({id: Listed}).
    The units' devices are read once each: a page holds many
    reservations of few devices."""
    ids = list(found)
    dialect = session.bind.dialect.name

    def of_page(column):
        return functions.one_of(column, ids, dialect)

    for row in session.execute(
            sa.select(_PROJECT.reservation_id, _PROJECT.project_id,
                      _PROJECT.role)
            .where(of_page(_PROJECT.reservation_id))
            .order_by(_PROJECT.project_id)):
        found[row.reservation_id].projects.append(row)
    units = session.execute(
        sa.select(_UNIT.reservation_id, _UNIT.device_id)
        .where(of_page(_UNIT.reservation_id))).all()
    attachments = session.execute(
        sa.select(*_ATTACHMENT_COLUMNS).where(of_page(_A.reservation_id))
        .order_by(_A.domain, _A.device_id)).all()
    wanted = sorted({row.device_id for row in units} |
                    {row.device_id for row in attachments})
    devices = {row.id: row for row in session.execute(
        sa.select(*_DEVICE_COLUMNS).where(
            functions.one_of(models.Device.id, wanted, dialect)))}
    for row in units:
        found[row.reservation_id].units.append(_Unit(devices[row.device_id]))
    for row in attachments:
        found[row.reservation_id].attachments.append(
            _Attachment(*row, devices[row.device_id]))


def reservations_of_host(context, host_id, statuses):
    with db_api.reader.using(context) as session:
        return (session.query(_DR).filter_by(host_id=host_id)
                .filter(_DR.status.in_(statuses))
                .order_by(_DR.created_at).all())


def reservations_unreleased(context, statuses=None):
    with db_api.reader.using(context) as session:
        query = session.query(_DR).filter(_DR.released_at.is_(None))
        if statuses is not None:
            query = query.filter(_DR.status.in_(statuses))
        return query.order_by(_DR.created_at).all()


def project_unit_windows(context, project_id, statuses):
    """(start, end, units) of each unreleased device reservation of
    ``statuses`` a project made: what its quota of unit-hours counts."""
    query = (sa.select(_DR.start_date, _DR.end_date, sa.func.count())
             .join(_UNIT, _UNIT.reservation_id == _DR.id)
             .where(_DR.project_id == project_id)
             .where(_DR.released_at.is_(None))
             .where(_DR.status.in_(statuses))
             .group_by(_DR.id, _DR.start_date, _DR.end_date))
    with db_api.reader.using(context) as session:
        return [tuple(row) for row in session.execute(query)]


def reservation_update(context, reservation_id, values,
                       expected_status=None):
    """Update a reservation; with expected_status (one or several), only
    while it still has it. Returns whether a row changed."""
    with db_api.writer.using(context) as session:
        query = session.query(_DR).filter_by(id=reservation_id)
        if expected_status is not None:
            if isinstance(expected_status, str):
                expected_status = (expected_status,)
            query = query.filter(_DR.status.in_(expected_status))
        values = dict(values, updated_at=models._now())
        return bool(query.update(values, synchronize_session=False))


def reservation_set_projects(context, reservation_id, role, project_ids):
    with db_api.writer.using(context) as session:
        (session.query(_PROJECT)
         .filter_by(reservation_id=reservation_id, role=role)
         .delete(synchronize_session=False))
        for project in sorted(set(project_ids)):
            session.add(_PROJECT(reservation_id=reservation_id,
                                 project_id=project, role=role))


def reservation_destroy(context, reservation_id):
    with db_api.writer.using(context) as session:
        reservation = session.get(_DR, reservation_id)
        if reservation is not None:
            session.delete(reservation)


def reservation_lease(context, reservation_id):
    """The lease a device reservation owns, or None once it is gone."""
    return leases_db.lease_get_by_owner(
        context, states.Owner.DEVICE_RESERVATION, reservation_id)


def unreleased_predecessors(context, reservation):
    """{reservation id: [unit ids]} of the reservations that hold some
    of ``reservation``'s units before it and have not released them: its
    start must wait for their end (late, or taken over from a manager
    that died)."""
    mine = orm.aliased(_UNIT)
    with db_api.reader.using(context) as session:
        rows = (session.query(_UNIT.reservation_id, _UNIT.device_id)
                .join(_DR, _DR.id == _UNIT.reservation_id)
                .join(mine, mine.device_id == _UNIT.device_id)
                .filter(mine.reservation_id == reservation.id)
                .filter(_DR.id != reservation.id)
                .filter(_DR.released_at.is_(None))
                .filter(_DR.start_date < reservation.start_date)
                .order_by(_UNIT.reservation_id, _UNIT.device_id).all())
    held = {}
    for holder, unit in rows:
        held.setdefault(holder, []).append(unit)
    return held


def claims(context, start, end, host_ids=None, exclude=None):
    """(device_id, reservation) of every unreleased reservation whose
    window overlaps [start, end): the units it withholds then."""
    with db_api.reader.using(context) as session:
        query = (session.query(_UNIT.device_id, _DR)
                 .join(_DR, _DR.id == _UNIT.reservation_id)
                 .filter(_DR.released_at.is_(None))
                 .filter(_DR.start_date < end)
                 .filter(_DR.end_date > start))
        if host_ids is not None:
            query = query.filter(_DR.host_id.in_(host_ids))
        if exclude is not None:
            query = query.filter(_DR.id != exclude)
        return query.all()


# Attachments --------------------------------------------------------------

def attachments_add(context, reservation_id, attachments):
    with db_api.writer.using(context) as session:
        rows = [models.DeviceAttachment(reservation_id=reservation_id, **a)
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


def attachments_delete(context, attachment_ids):
    with db_api.writer.using(context) as session:
        (session.query(models.DeviceAttachment)
         .filter(models.DeviceAttachment.id.in_(list(attachment_ids)))
         .delete(synchronize_session=False))


def attachments_of_host(context, host_id, states_in):
    """Attachments of the host's reservations in these states."""
    with db_api.reader.using(context) as session:
        return (session.query(models.DeviceAttachment)
                .join(_DR, _DR.id == models.DeviceAttachment.reservation_id)
                .filter(_DR.host_id == host_id)
                .filter(models.DeviceAttachment.state.in_(states_in))
                .all())
