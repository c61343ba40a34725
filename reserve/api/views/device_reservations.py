"""The representation of a device reservation (/v1/device-reservations)."""
from reserve.api.views import devices as device_views
from reserve.api.views import statuses
from reserve.common import timeutils
from reserve.devices import states


def _unit_view(device):
    return {'id': device.id, 'pci_address': device.pci_address,
            'model': device_views.model_of(device),
            'numa_node': device.numa_node}


def _attachment_view(attachment):
    return {'domain': attachment.domain, 'unit_id': attachment.device_id,
            'pci_address': attachment.device.pci_address,
            'kind': attachment.kind, 'mdev_uuid': attachment.mdev_uuid,
            'state': statuses.ATTACHMENT.show(attachment.state),
            'live': attachment.live,
            'config': attachment.config,
            'project_id': attachment.project_id}


def end_view(end_date):
    """An end as the API shows it: null when open-ended."""
    return None if states.is_open_end(end_date) else \
        timeutils.isoformat(end_date)


def _by_address(device):
    return device.pci_address


def _by_domain(attachment):
    return attachment.domain, attachment.device.pci_address


def reservations_view(ctx, reservations):
    """The API representation of a page of device reservations: each
    unit's, shared by many reservations, is built once."""
    unit_views = {}

    def unit_view(device):
        view = unit_views.get(device.id)
        if view is None:
            view = unit_views[device.id] = _unit_view(device)
        return view
    return [reservation_view(ctx, r, unit_view) for r in reservations]


def reservation_view(ctx, reservation, unit_view=_unit_view):
    """The API representation of a device reservation."""
    units = sorted((u.device for u in reservation.units), key=_by_address)
    live = [a for a in reservation.attachments
            if a.state != states.Attachment.DETACHED]
    return {
        'id': reservation.id,
        'host_id': reservation.host_id,
        'host': reservation.host_name,
        'project_id': reservation.project_id,
        'user_id': reservation.user_id,
        'allowed_projects': reservation.project_ids(states.Role.ALLOWED),
        'managing_projects': reservation.project_ids(states.Role.MANAGING),
        'unit_ids': [d.id for d in units],
        'units': [unit_view(d) for d in units],
        'mdev_type': reservation.mdev_type,
        'request': reservation.request,
        'start': timeutils.isoformat(reservation.start_date),
        'end': end_view(reservation.end_date),
        'status': statuses.DEVICE_RESERVATION.show(reservation.status),
        'status_reason': reservation.status_reason,
        'contract_ref': reservation.contract_ref,
        'reason': reservation.reason,
        'topology_generation': reservation.topology_generation,
        'domains': sorted({a.domain for a in live}),
        'attachments': [_attachment_view(a) for a in sorted(
            reservation.attachments, key=_by_domain)],
        'lease_id': reservation.lease_id,
        'released_at': timeutils.isoformat(reservation.released_at),
        'created_at': timeutils.isoformat(reservation.created_at),
        'updated_at': timeutils.isoformat(reservation.updated_at),
    }
