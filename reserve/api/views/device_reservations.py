"""The representation of a device reservation (/v1/device-reservations).

Before microversion 1.2 its fields keep their earlier names, its
request record's too (``schemas.device_reservations.as_served``).
"""
from reserve.api import microversion
from reserve.api.schemas import device_reservations as schema
from reserve.api.views import devices as device_views
from reserve.api.views import missing_capacity
from reserve.api.views import statuses
from reserve.common import timeutils
from reserve.devices import states


def _device_view(device):
    return {'id': device.id, 'pci_address': device.pci_address,
            'model': device_views.model_of(device),
            'numa_node': device.numa_node}


def _attachment_view(attachment, names):
    return {
        'domain': attachment.domain, names['device_id']: attachment.device_id,
        'pci_address': attachment.device.pci_address,
        'kind': attachment.kind, 'mdev_uuid': attachment.mdev_uuid,
        'state': statuses.ATTACHMENT.show(attachment.state),
        'live': attachment.live,
        'config': attachment.config,
        'project_id': attachment.project_id}


def end_view(end):
    """An end as the API shows it: null when open-ended."""
    return None if states.is_open_end(end) else \
        timeutils.isoformat(end)


def _by_address(device):
    return device.pci_address


def _by_domain(attachment):
    return attachment.domain, attachment.device.pci_address


class _Shape:
    """What the request's microversion makes of a reservation's view,
    asked once for a page: the fields' names (``old``: those before
    1.2), whether it shows released_device_ids (1.4) and
    missing_capacity (1.3)."""

    def __init__(self, old=None):
        self.old = schema.old_names() if old is None else old
        self.names = schema.served_names(self.old)
        self.spot = microversion.serves(microversion.SPOT)
        self.missing = missing_capacity.shown()


def reservations_view(ctx, reservations):
    """The API representation of a page of device reservations: each
    device's, shared by many reservations, is built once."""
    seen = {}
    shape = _Shape()
    failed = missing_capacity.failed_hosts(ctx) if shape.missing else None

    def device_view(device):
        view = seen.get(device.id)
        if view is None:
            view = seen[device.id] = _device_view(device)
        return view
    return [_view(r, device_view, shape, failed) for r in reservations]


def reservation_view(ctx, reservation, device_view=_device_view, old=None,
                     failed=None):
    """The API representation of a device reservation (``old``: whether
    the request reads the names before 1.2, ``failed`` the failed hosts,
    when already known)."""
    shape = _Shape(old)
    if shape.missing and failed is None:
        failed = missing_capacity.failed_hosts(ctx)
    return _view(reservation, device_view, shape, failed)


def _view(reservation, device_view, shape, failed):
    devices = sorted((held.device for held in reservation.devices),
                     key=_by_address)
    live = [a for a in reservation.attachments
            if a.state != states.Attachment.DETACHED]
    view = _fields(reservation, device_view, shape, devices, live)
    if shape.spot:
        view['released_device_ids'] = reservation.lent_device_ids()
    if shape.missing:
        view['missing_capacity'] = missing_capacity.of_device_reservation(
            reservation, failed)
    return view


def _fields(reservation, device_view, shape, devices, live):
    names, old = shape.names, shape.old
    return {
        'id': reservation.id,
        'host_id': reservation.host_id,
        'host': reservation.host_name,
        'project_id': reservation.project_id,
        'user_id': reservation.user_id,
        'allowed_projects': reservation.project_ids(states.Role.ALLOWED),
        'managing_projects': reservation.project_ids(states.Role.MANAGING),
        names['device_ids']: [d.id for d in devices],
        names['devices']: [device_view(d) for d in devices],
        'mdev_type': reservation.mdev_type,
        'request': reservation.request and schema.as_served(
            reservation.request, old),
        'start': timeutils.isoformat(reservation.start),
        'end': end_view(reservation.end),
        'status': statuses.DEVICE_RESERVATION.show(reservation.status),
        'status_reason': reservation.status_reason,
        'contract_ref': reservation.contract_ref,
        'reason': reservation.reason,
        'topology_generation': reservation.topology_generation,
        'domains': sorted({a.domain for a in live}),
        'attachments': [_attachment_view(a, names) for a in sorted(
            reservation.attachments, key=_by_domain)],
        'lease_id': reservation.lease_id,
        'released_at': timeutils.isoformat(reservation.released_at),
        'created_at': timeutils.isoformat(reservation.created_at),
        'updated_at': timeutils.isoformat(reservation.updated_at),
    }
