"""Database access for libvirt hosts and their GPU devices; the
device reservations are reserve.db.device_reservations.

Like reserve.db.api, every function takes a RequestContext first and joins
the caller's transaction when there is one.
"""
import sqlalchemy as sa

from reserve.common import exception
from reserve.common import states
from reserve.db import api as db_api
from reserve.db import models


# Hosts --------------------------------------------------------------------

def libvirt_hosts(context, reservable=None):
    """The libvirt hosts; ``reservable`` True: those that take new
    holds (reservable and not failed), False: the others."""
    with db_api.reader.using(context) as session:
        query = (session.query(models.Host)
                 .filter_by(kind=states.LIBVIRT)
                 .order_by(models.Host.name))
        taking = sa.and_(models.Host.reservable.is_(True),
                         models.Host.failure.is_(None))
        if reservable is True:
            query = query.filter(taking)
        elif reservable is False:
            query = query.filter(sa.not_(taking))
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
    kept, as MISSING. Returns (added, missing) PCI addresses."""
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
