"""Which unit of a reservation goes to which domain: pure functions.

Passed through whole (no mdev type), each unit goes to one domain, the
units dealt over the domains in order. With an mdev type, each domain
gets one mediated device on a unit, the units taken in turn. An mdev's
UUID is named after the reservation, unit and domain, so that a retry
(or the repair after a host restart) makes the same one again.

Units here are anything with ``id``, ``pci_address`` and ``mdev_types``
({type: available instances}), such as reserve.devices.selection.Unit.
"""
import uuid

from reserve.common import exception
from reserve.devices import states

_MDEV_NAMESPACE = uuid.UUID('6f1c1c53-5a5e-4f43-9a55-2b7d2d4f6c1e')


def mdev_uuid(reservation_id, device_id, domain):
    return str(uuid.uuid5(_MDEV_NAMESPACE, '%s/%s/%s' % (
        reservation_id, device_id, domain)))


def _row(reservation_id, unit, domain, kind, project_id):
    return {'device_id': unit.id, 'domain': domain, 'kind': kind,
            'mdev_uuid': (mdev_uuid(reservation_id, unit.id, domain)
                          if kind == states.Attachment.MDEV else None),
            'project_id': project_id, 'state': states.Attachment.PLANNED}


def for_domains(reservation_id, units, domains, mdev_type, project_id):
    """Attachment rows for ``domains`` over ``units`` (objects with id
    and, for mdevs, mdev_types {type: available instances})."""
    if not domains:
        return []
    units = list(units)
    if mdev_type is None:
        if len(domains) > len(units):
            raise exception.Invalid(
                reason='%d domains but %d unit(s): passed through whole, '
                       'each unit goes to one domain' % (len(domains),
                                                         len(units)))
        return [_row(reservation_id, unit, domains[i % len(domains)],
                     states.Attachment.PCI, project_id)
                for i, unit in enumerate(units)]
    rows = [_row(reservation_id, units[j % len(units)], domain,
                 states.Attachment.MDEV, project_id)
            for j, domain in enumerate(domains)]
    _check_instances(rows, units, mdev_type)
    return rows


def _check_instances(rows, units, mdev_type, already=None):
    wanted = dict(already or {})
    for row in rows:
        wanted[row['device_id']] = wanted.get(row['device_id'], 0) + 1
    for unit in units:
        available = unit.mdev_types.get(mdev_type, 0)
        if wanted.get(unit.id, 0) > available:
            raise exception.Invalid(
                reason='unit %s has %d %s instance(s) available, %d '
                       'wanted' % (unit.id, available, mdev_type,
                                   wanted[unit.id]))


def for_one_domain(reservation, units, domain, unit_ids, project_id):
    """Attachment rows giving one more domain units of a reservation:
    the named ones, else (passthrough) every unit no domain holds, or
    (mdev) one mdev on the unit with the fewest of them."""
    current = [a for a in reservation.attachments
               if a.state != states.Attachment.DETACHED]
    by_id = {u.id: u for u in units}
    for unit_id in unit_ids or ():
        if unit_id not in by_id:
            raise exception.Invalid(
                reason='unit %s is not a unit of reservation %s' % (
                    unit_id, reservation.id))
    mine = {a.device_id for a in current if a.domain == domain}
    if reservation.mdev_type is None:
        holders = {a.device_id: a.domain for a in current}
        if unit_ids:
            taken = ['%s (%s)' % (u, holders[u]) for u in unit_ids
                     if holders.get(u, domain) != domain]
            if taken:
                raise exception.Conflict(
                    reason='passed through whole, a unit goes to one '
                           'domain; these are held by another domain of '
                           'the reservation: %s' % ', '.join(taken))
            chosen = [by_id[u] for u in unit_ids]
        else:
            chosen = [u for u in units if u.id not in holders]
            if not chosen and not mine:
                raise exception.Conflict(
                    reason='every unit of reservation %s is attached to a '
                           'domain; detach one, or name units' %
                           reservation.id)
        return [_row(reservation.id, u, domain, states.Attachment.PCI,
                     project_id) for u in chosen if u.id not in mine]
    if unit_ids:
        chosen = [by_id[u] for u in unit_ids]
    elif mine:
        chosen = []
    else:
        load = {u.id: 0 for u in units}
        for attachment in current:
            load[attachment.device_id] = load.get(attachment.device_id,
                                                  0) + 1
        chosen = [min(units, key=lambda u: (load[u.id], u.pci_address))]
    rows = [_row(reservation.id, u, domain, states.Attachment.MDEV,
                 project_id) for u in chosen if u.id not in mine]
    already = {}
    for attachment in current:
        already[attachment.device_id] = already.get(attachment.device_id,
                                                    0) + 1
    _check_instances(rows, units, reservation.mdev_type, already)
    return rows
