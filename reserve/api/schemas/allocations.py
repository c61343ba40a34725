"""/v1/allocations (read only: no bodies): its part of the OpenAPI
document."""
from reserve.api.schemas import parts
from reserve.common import states


def response_schemas():
    return {
        'Allocation': parts.obj({
            'id': parts.STR, 'host_id': parts.STR,
            'host': parts.STR_OR_NULL,
            'lease_reservation_id': dict(parts.STR, description=(
                'Since 1.1: the lease reservation')),
            'reservation_id': dict(parts.STR, description=(
                'Before 1.2: the same as lease_reservation_id')),
            'booking_id': dict(parts.STR_OR_NULL, description=(
                'The reservation (booking) the lease was made for, as '
                '/v1/reservations knows it')),
            'resource_type': parts.STR, 'lease_id': parts.STR,
            'project_id': parts.STR,
            'amount': dict(parts.INT, description=(
                'Since 1.2: the instances (or GPU devices) held on the '
                'host')),
            'count': dict(parts.INT, description=(
                'Before 1.2: the same as amount')),
            'start': parts.DATE, 'end': parts.DATE,
            'status': parts.enum(states.Lease.ALL),
            'created_at': parts.DATE, 'updated_at': parts.DATE,
        }, optional=('lease_reservation_id', 'reservation_id', 'amount',
                     'count'),
            description='What a lease reservation holds on one host.'),
    }


def paths():
    alloc = parts.path_param('allocation_id', 'Allocation ID')
    return {
        '/v1/allocations': {
            'get': parts.operation(
                'listAllocations', 'allocations',
                'Which hosts back which lease reservations',
                parts.collection('allocations', 'Allocation'),
                [parts.PROJECT_ID,
                 parts.param('host_id', description='Host ID or name'),
                 parts.param('lease_reservation_id', description=(
                     'Since 1.2: lease reservation ID')),
                 parts.param('reservation_id', description=(
                     'Before 1.2: lease reservation ID')),
                 parts.param('lease_id'), parts.LIMIT, parts.MARKER],
                description='Administrators see every project unless '
                            "they give project_id; others see their "
                            "project's."),
        },
        '/v1/allocations/{allocation_id}': {
            'get': parts.operation(
                'showAllocation', 'allocations', 'Show an allocation',
                parts.one('allocation', 'Allocation'), [alloc],
                errors_=(400, 403, 404)),
        },
    }
