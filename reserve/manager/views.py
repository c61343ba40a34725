"""Leases as plain dicts, for RPC replies."""
from reserve.common import states
from reserve.common import timeutils


def _reserved_flavor_id(reservation):
    return reservation.id \
        if reservation.resource_type == states.FLAVOR_INSTANCE else None


def lease(lease):
    return {
        'id': lease.id, 'name': lease.name,
        'project_id': lease.project_id, 'user_id': lease.user_id,
        'start_date': timeutils.isoformat(lease.start_date),
        'end_date': timeutils.isoformat(lease.end_date),
        'status': lease.status, 'status_reason': lease.status_reason,
        'degraded': lease.degraded,
        'reservations': [{
            'id': r.id, 'resource_type': r.resource_type,
            'status': r.status, 'amount': r.amount,
            # Only flavor:instance reservations have a reserved flavor.
            'reserved_flavor_id': _reserved_flavor_id(r),
            # Its name before 1.4, read by workers of the previous release.
            'flavor_id': _reserved_flavor_id(r),
        } for r in lease.reservations],
    }


def host(host):
    return {
        'id': host.id, 'name': host.name, 'kind': host.kind,
        'service_name': host.service_name,
        'provider_uuid': host.provider_uuid, 'vcpus': host.vcpus,
        'memory_mb': host.memory_mb, 'local_gb': host.local_gb,
        'reservable': host.reservable,
        'capabilities': {c.key: c.value for c in host.capabilities},
        'created_at': timeutils.isoformat(host.created_at),
        'updated_at': timeutils.isoformat(host.updated_at),
    }
