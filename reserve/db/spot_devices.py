"""Database access for spot devices: the devices an active device
reservation lends out (``spot_since`` on its device rows) and the
reclaims under way (``reclaiming_since``), see reserve.devices.spot.

Like reserve.db.api, every function takes a RequestContext first and
joins the caller's transaction when there is one.
"""
import sqlalchemy as sa

from reserve.db import api as db_api
from reserve.db import models

_DR = models.DeviceReservation
_HELD = models.DeviceReservationDevice


def _rows(session, reservation_id, device_ids):
    query = session.query(_HELD).filter(
        _HELD.device_reservation_id == reservation_id)
    if device_ids is not None:
        query = query.filter(_HELD.device_id.in_(list(device_ids)))
    return query


def lend(context, reservation_id, device_ids, when):
    """Put devices of a reservation on the spot market (those already
    there keep their time)."""
    with db_api.writer.using(context) as session:
        (_rows(session, reservation_id, device_ids)
         .filter(_HELD.spot_since.is_(None))
         .update({_HELD.spot_since: when}, synchronize_session=False))


def mark_reclaiming(context, reservation_id, device_ids, when):
    """Record that a reclaim of these lent devices began (committed
    before any spot domain is touched)."""
    with db_api.writer.using(context) as session:
        (_rows(session, reservation_id, device_ids)
         .filter(_HELD.spot_since.isnot(None))
         .filter(_HELD.reclaiming_since.is_(None))
         .update({_HELD.reclaiming_since: when},
                 synchronize_session=False))


def take_back(context, reservation_id, device_ids=None):
    """The devices are the reservation's alone again (None: all)."""
    with db_api.writer.using(context) as session:
        (_rows(session, reservation_id, device_ids)
         .update({_HELD.spot_since: None, _HELD.reclaiming_since: None},
                 synchronize_session=False))


def reclaiming(context):
    """The ids of the reservations with a reclaim under way."""
    with db_api.reader.using(context) as session:
        return sorted({row[0] for row in session.query(
            _HELD.device_reservation_id).filter(
                _HELD.reclaiming_since.isnot(None))})


def drop_detached(context, detached):
    """Delete the spot attachments in state ``detached`` (the devices
    layer's DETACHED) of the reservations not released: what a crash
    left between libvirt's detach and the rows' deletion. Returns how
    many went."""
    attached = models.DeviceAttachment
    unreleased = sa.select(_DR.id).where(_DR.released_at.is_(None))
    with db_api.writer.using(context) as session:
        return (session.query(attached)
                .filter(attached.spot.is_(True))
                .filter(attached.state == detached)
                .filter(attached.device_reservation_id.in_(unreleased))
                .delete(synchronize_session=False))


def on_market(context, status, detached, host_ids=None):
    """{device id: whether a spot domain holds it} of the devices on the
    spot market now: lent by a reservation of ``status`` (the devices
    layer's ACTIVE: one in needs-review withholds them) that has not
    released its devices, not being reclaimed. ``detached``: the state
    of an attachment that holds nothing."""
    attached = models.DeviceAttachment
    held = (sa.select(attached.id)
            .where(attached.device_reservation_id ==
                   _HELD.device_reservation_id)
            .where(attached.device_id == _HELD.device_id)
            .where(attached.spot.is_(True))
            .where(attached.state != detached)
            .exists())
    query = (sa.select(_HELD.device_id, held)
             .join(_DR, _DR.id == _HELD.device_reservation_id)
             .where(_HELD.spot_since.isnot(None))
             .where(_HELD.reclaiming_since.is_(None))
             .where(_DR.status == status)
             .where(_DR.released_at.is_(None)))
    if host_ids is not None:
        query = query.where(_DR.host_id.in_(list(host_ids)))
    with db_api.reader.using(context) as session:
        return {device_id: bool(in_use)
                for device_id, in_use in session.execute(query)}
