"""/v1/limits (read only: no bodies): its part of the OpenAPI document."""
from reserve.api.schemas import parts


def response_schemas():
    return {
        'Limits': parts.obj({
            'project_id': parts.STR, 'driver': parts.STR,
            'resources': {'type': 'object', 'description': (
                'By quota resource: reservations, instance_hours, '
                'device_reservations and device_hours (before 1.2: '
                'unit_reservations and unit_hours)'),
                          'additionalProperties': parts.obj({
                              'limit': dict(parts.INT,
                                            description='-1: no limit'),
                              'in_use': parts.INT})},
        }),
    }


def paths():
    return {
        '/v1/limits': {
            'get': parts.operation(
                'showLimits', 'limits',
                "A project's reservation quota and usage",
                parts.obj({'limits': parts.ref('Limits')}),
                [parts.PROJECT_ID], errors_=(400, 403, 503)),
        },
    }
