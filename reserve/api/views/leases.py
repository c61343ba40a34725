"""The representation of a lease (/v1/leases) and what it holds."""
from reserve.api import microversion
from reserve.api.views import statuses
from reserve.common import placement
from reserve.common import states
from reserve.common import timeutils


def allocation_view(allocation):
    view = {
        'host_id': allocation.host_id,
        'host': allocation.host.name if allocation.host else None,
    }
    if microversion.serves(microversion.ONE_NAME):
        view['amount'] = allocation.amount
    else:
        view['count'] = allocation.amount
    return view


def lease_reservation_view(reservation):
    """One reservation inside a lease, with the names of its artefacts.

    Only a flavor:instance reservation has a nova flavor, an aggregate
    and a resource class (named after it); a device:gpu one attaches
    devices with libvirt, so those fields are null there.
    """
    # Only these have a flavor, an aggregate and a class as artefacts.
    fenced = reservation.resource_type == states.FLAVOR_INSTANCE
    view = {
        'id': reservation.id,
        'resource_type': reservation.resource_type,
        'status': statuses.LEASE_RESERVATION.show(reservation.status),
        'amount': reservation.amount,
        'source_flavor_id': reservation.source_flavor_id,
        'vcpus': reservation.vcpus,
        'memory_mb': reservation.memory_mb,
        'disk_gb': reservation.disk_gb,
        'ephemeral_gb': reservation.ephemeral_gb,
        'extra_specs': reservation.extra_specs or {},
        'resource_properties': reservation.resource_properties,
        'affinity': reservation.affinity,
        # The nova flavor and the aggregate are named after the reservation.
        'reserved_flavor_id': reservation.id if fenced else None,
        'aggregate': reservation.id if fenced else None,
        'resource_class': (placement.reservation_resource_class(
            reservation.id) if fenced else None),
        'allocations': [allocation_view(a)
                        for a in sorted(reservation.allocations,
                                        key=lambda a: (a.host.name
                                                       if a.host else '',
                                                       a.host_id))],
    }
    if not microversion.serves(microversion.ONE_NAME):
        view['flavor_id'] = view['reserved_flavor_id']
        if not microversion.serves(microversion.GLOSSARY_NAMES):
            del view['reserved_flavor_id']
    return view


def event_view(event):
    return {
        'id': event.id,
        'event_type': event.event_type,
        'time': timeutils.isoformat(event.time),
        'status': event.status,
        'attempts': event.attempts,
        'last_error': event.last_error,
    }


def lease_view(lease):
    """The API representation of a lease and everything in it."""
    return {
        'id': lease.id,
        'name': lease.name,
        'project_id': lease.project_id,
        'user_id': lease.user_id,
        'start': timeutils.isoformat(lease.start),
        'end': timeutils.isoformat(lease.end),
        'status': lease.status,
        'status_reason': lease.status_reason,
        'degraded': bool(lease.degraded),
        'created_at': timeutils.isoformat(lease.created_at),
        'updated_at': timeutils.isoformat(lease.updated_at),
        'reservations': [lease_reservation_view(r)
                         for r in lease.reservations],
        'events': [event_view(e) for e in lease.events],
    }


def show(lease):
    """The answer about one lease."""
    return {'lease': lease_view(lease)}
