"""Which device of a reservation goes to which domain: pure functions.

Passed through whole (no mdev type), each device goes to one domain, the
devices dealt over the domains in order. With an mdev type, each domain
gets one mediated device on a device, the devices taken in turn. An mdev's
UUID is named after the reservation, device and domain, so that a retry
(or the repair after a host restart) makes the same one again.

Devices here are anything with ``id``, ``pci_address`` and ``mdev_types``
({type: available instances}), such as reserve.devices.selection.Device.
"""
import uuid

from reserve.common import exception
from reserve.devices import states

_MDEV_NAMESPACE = uuid.UUID('6f1c1c53-5a5e-4f43-9a55-2b7d2d4f6c1e')


def mdev_uuid(reservation_id, device_id, domain):
    return str(uuid.uuid5(_MDEV_NAMESPACE, '%s/%s/%s' % (
        reservation_id, device_id, domain)))


def _row(reservation_id, device, domain, kind, project_id):
    return {'device_id': device.id, 'domain': domain, 'kind': kind,
            'mdev_uuid': (mdev_uuid(reservation_id, device.id, domain)
                          if kind == states.Attachment.MDEV else None),
            'project_id': project_id, 'state': states.Attachment.PLANNED}


def for_domains(reservation_id, devices, domains, mdev_type, project_id):
    """Attachment rows for ``domains`` over ``devices`` (objects with id
    and, for mdevs, mdev_types {type: available instances})."""
    if not domains:
        return []
    devices = list(devices)
    if mdev_type is None:
        if len(domains) > len(devices):
            raise exception.Invalid(
                reason='%d domains but %d device(s): passed through whole, '
                       'each device goes to one domain' % (len(domains),
                                                           len(devices)))
        return [_row(reservation_id, device, domains[i % len(domains)],
                     states.Attachment.PCI, project_id)
                for i, device in enumerate(devices)]
    rows = [_row(reservation_id, devices[j % len(devices)], domain,
                 states.Attachment.MDEV, project_id)
            for j, domain in enumerate(domains)]
    _check_instances(rows, devices, mdev_type)
    return rows


def _check_instances(rows, devices, mdev_type, already=None):
    wanted = dict(already or {})
    for row in rows:
        wanted[row['device_id']] = wanted.get(row['device_id'], 0) + 1
    for device in devices:
        available = device.mdev_types.get(mdev_type, 0)
        if wanted.get(device.id, 0) > available:
            raise exception.Invalid(
                reason='device %s has %d %s instance(s) available, %d '
                       'wanted' % (device.id, available, mdev_type,
                                   wanted[device.id]))


def for_one_domain(reservation, devices, domain, device_ids, project_id):
    """Attachment rows giving one more domain devices of a reservation:
    the named ones, else (passthrough) every device no domain holds, or
    (mdev) one mdev on the device with the fewest of them."""
    current = [a for a in reservation.attachments
               if a.state != states.Attachment.DETACHED]
    by_id = {u.id: u for u in devices}
    for device_id in device_ids or ():
        if device_id not in by_id:
            raise exception.Invalid(
                reason='device %s is not a device of reservation %s' % (
                    device_id, reservation.id))
    mine = {a.device_id for a in current if a.domain == domain}
    if reservation.mdev_type is None:
        holders = {a.device_id: a.domain for a in current}
        if device_ids:
            taken = ['%s (%s)' % (u, holders[u]) for u in device_ids
                     if holders.get(u, domain) != domain]
            if taken:
                raise exception.Conflict(
                    reason='passed through whole, a device goes to one '
                           'domain; these are held by another domain of '
                           'the reservation: %s' % ', '.join(taken))
            chosen = [by_id[u] for u in device_ids]
        else:
            chosen = [u for u in devices if u.id not in holders]
            if not chosen and not mine:
                raise exception.Conflict(
                    reason='every device of reservation %s is attached to a '
                           'domain; detach one, or name devices' %
                           reservation.id)
        return [_row(reservation.id, u, domain, states.Attachment.PCI,
                     project_id) for u in chosen if u.id not in mine]
    if device_ids:
        chosen = [by_id[u] for u in device_ids]
    elif mine:
        chosen = []
    else:
        load = {u.id: 0 for u in devices}
        for attachment in current:
            load[attachment.device_id] = load.get(attachment.device_id,
                                                  0) + 1
        chosen = [min(devices, key=lambda u: (load[u.id], u.pci_address))]
    rows = [_row(reservation.id, u, domain, states.Attachment.MDEV,
                 project_id) for u in chosen if u.id not in mine]
    already = {}
    for attachment in current:
        already[attachment.device_id] = already.get(attachment.device_id,
                                                    0) + 1
    _check_instances(rows, devices, reservation.mdev_type, already)
    return rows
