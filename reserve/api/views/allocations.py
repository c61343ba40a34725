"""The representation of an allocation (/v1/allocations)."""
from reserve.api import microversion
from reserve.common import timeutils


def allocation_view(allocation, lease_reservation, lease):
    """The API representation of an allocation."""
    view = {
        'id': allocation.id,
        'host_id': allocation.host_id,
        'host': allocation.host.name if allocation.host else None,
        # The booking (/v1/reservations) whose allocation this is, when the
        # lease was made for one: the id its user holds.
        'booking_id': allocation.booking_id,
        'resource_type': lease_reservation.resource_type,
        'lease_id': lease.id,
        'project_id': lease.project_id,
        'start': timeutils.isoformat(lease.start),
        'end': timeutils.isoformat(lease.end),
        'status': lease.status,
        'created_at': timeutils.isoformat(allocation.created_at),
        'updated_at': timeutils.isoformat(allocation.updated_at),
    }
    if microversion.serves(microversion.ONE_NAME):
        view['lease_reservation_id'] = lease_reservation.id
        view['amount'] = allocation.amount
    else:
        view['reservation_id'] = lease_reservation.id
        view['count'] = allocation.amount
        if microversion.serves(microversion.GLOSSARY_NAMES):
            view['lease_reservation_id'] = lease_reservation.id
    return view


def show(row):
    """The answer about one allocation: ``row`` is (allocation, lease
    reservation, lease)."""
    return {'allocation': allocation_view(*row)}
