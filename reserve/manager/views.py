"""Leases and hosts as plain dicts, for RPC replies (their dates
datetimes: reserve.common.rpc's serializer carries them)."""
from reserve.common import states


def _reserved_flavor_id(reservation):
    return reservation.id \
        if reservation.resource_type == states.FLAVOR_INSTANCE else None


def lease(lease):
    return {
        'id': lease.id, 'name': lease.name,
        'project_id': lease.project_id, 'user_id': lease.user_id,
        'start': lease.start, 'end': lease.end,
        'status': lease.status, 'status_reason': lease.status_reason,
        'degraded': lease.degraded,
        'reservations': [{
            'id': r.id, 'resource_type': r.resource_type,
            'status': r.status, 'amount': r.amount,
            # Only flavor:instance reservations have a reserved flavor.
            'reserved_flavor_id': _reserved_flavor_id(r),
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
        'created_at': host.created_at, 'updated_at': host.updated_at,
    }
