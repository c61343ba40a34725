"""/v1/maintenance-windows: the bodies the API validates, and its part of
the OpenAPI document.

A window closes the flavors it lists (by id or name), or every flavor
with all_flavors; force creates it even over live reservations.
"""
from reserve.api.schemas import parts

_date = {'type': 'string', 'minLength': 1, 'maxLength': 64,
         'format': 'date-time'}

_properties = {
    'start': _date,
    'end': _date,
    'note': {'type': ['string', 'null'], 'maxLength': 2048},
    'flavors': {'type': 'array', 'minItems': 1, 'maxItems': 1000,
                'uniqueItems': True,
                'items': {'type': 'string', 'minLength': 1,
                          'maxLength': 255}},
    'all_flavors': {'type': 'boolean'},
    'force': {'type': 'boolean'},
}

create = {
    'type': 'object',
    'properties': _properties,
    'required': ['start', 'end'],
    'additionalProperties': False,
}

update = {
    'type': 'object',
    'properties': _properties,
    'minProperties': 1,
    'additionalProperties': False,
}


# -- the OpenAPI document ----------------------------------------------------

def request_bodies():
    return {'MaintenanceWindowCreate': create,
            'MaintenanceWindowUpdate': update}


def response_schemas():
    return {
        'MaintenanceWindow': parts.obj({
            'id': parts.STR, 'start': parts.DATE, 'end': parts.DATE,
            'note': parts.STR_OR_NULL, 'all_flavors': parts.BOOL,
            'flavors': parts.STR_LIST,
            'created_at': parts.DATE, 'updated_at': parts.DATE,
        }),
    }


def paths():
    window = parts.path_param('window_id', 'Maintenance window ID')
    one = parts.one('maintenance_window', 'MaintenanceWindow')
    return {
        '/v1/maintenance-windows': {
            'get': parts.operation(
                'listMaintenanceWindows', 'maintenance',
                'List maintenance windows',
                parts.collection('maintenance_windows',
                                 'MaintenanceWindow'),
                [parts.param('flavor_id', description='Flavor ID or name'),
                 parts.param('include_past', schema=parts.BOOL),
                 parts.LIMIT, parts.MARKER]),
            'post': parts.operation(
                'createMaintenanceWindow', 'maintenance',
                'Close flavors for a window', one,
                body='MaintenanceWindowCreate', status=201,
                errors_=(400, 403, 409)),
        },
        '/v1/maintenance-windows/{window_id}': {
            'get': parts.operation(
                'showMaintenanceWindow', 'maintenance',
                'Show a maintenance window', one, [window],
                errors_=(400, 403, 404)),
            'patch': parts.operation(
                'updateMaintenanceWindow', 'maintenance',
                'Change a maintenance window', one, [window],
                body='MaintenanceWindowUpdate',
                errors_=(400, 403, 404, 409)),
            'delete': parts.operation(
                'deleteMaintenanceWindow', 'maintenance',
                'Remove a maintenance window', None, [window],
                status=204, errors_=(403, 404)),
        },
    }
