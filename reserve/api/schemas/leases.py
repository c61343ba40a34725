"""/v1/leases (read only: no bodies): its part of the OpenAPI document."""
from reserve.api.schemas import parts
from reserve.common import states


def response_schemas():
    return {
        'LeaseAllocation': parts.obj({
            'host_id': parts.STR, 'host': parts.STR_OR_NULL,
            'amount': dict(parts.INT, description=(
                'Since 1.2: the instances held on the host')),
            'count': dict(parts.INT, description=(
                'Before 1.2: the same as amount')),
        }, optional=('amount', 'count')),
        'LeaseReservation': parts.obj({
            'id': parts.STR, 'resource_type': parts.STR,
            'status': parts.STR,
            'amount': dict(parts.INT, description=(
                'How many of its resource: instances (flavor:instance) or '
                'GPU devices (device:gpu)')),
            'source_flavor_id': parts.STR_OR_NULL, 'vcpus': parts.INT,
            'memory_mb': parts.INT, 'disk_gb': parts.INT,
            'ephemeral_gb': parts.INT, 'extra_specs': parts.OBJECT,
            'resource_properties': parts.ANY,
            'affinity': parts.BOOL_OR_NULL,
            # null for device:gpu reservations: no nova flavor, aggregate
            # or resource class of their own.
            'reserved_flavor_id': dict(parts.STR_OR_NULL, description=(
                'Since 1.1: the reserved flavor')),
            'flavor_id': dict(parts.STR_OR_NULL, description=(
                'Before 1.2: the same as reserved_flavor_id')),
            'aggregate': parts.STR_OR_NULL,
            'resource_class': parts.STR_OR_NULL,
            'allocations': parts.array_of(parts.ref('LeaseAllocation')),
        }, optional=('reserved_flavor_id', 'flavor_id')),
        'Event': parts.obj({
            'id': parts.STR,
            'event_type': parts.enum((states.Event.START,
                                      states.Event.BEFORE_END,
                                      states.Event.END)),
            'time': parts.DATE,
            'status': parts.enum((states.Event.UNDONE,
                                  states.Event.IN_PROGRESS,
                                  states.Event.DONE, states.Event.ERROR)),
            'attempts': parts.INT,
            'last_error': parts.STR_OR_NULL,
        }),
        'Lease': parts.obj({
            'id': parts.STR, 'name': parts.STR, 'project_id': parts.STR,
            'user_id': parts.STR, 'start': parts.DATE, 'end': parts.DATE,
            'status': parts.enum(states.Lease.ALL),
            'status_reason': parts.STR_OR_NULL, 'degraded': parts.BOOL,
            'created_at': parts.DATE, 'updated_at': parts.DATE,
            'reservations': parts.array_of(parts.ref('LeaseReservation')),
            'events': parts.array_of(parts.ref('Event')),
        }),
    }


def paths():
    lease = parts.path_param('lease_id', 'Lease ID')
    return {
        '/v1/leases': {
            'get': parts.operation(
                'listLeases', 'leases', 'List leases',
                parts.collection('leases', 'Lease'),
                [parts.ALL_PROJECTS, parts.PROJECT_ID,
                 parts.param('status', schema=parts.enum(states.Lease.ALL)),
                 parts.LIMIT, parts.MARKER]),
        },
        '/v1/leases/{lease_id}': {
            'get': parts.operation(
                'showLease', 'leases',
                'Show a lease with its reservations, allocations and '
                'events', parts.one('lease', 'Lease'), [lease],
                errors_=(400, 403, 404)),
        },
    }
