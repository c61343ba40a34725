"""/v1/device-reservations: the bodies the API validates, and its part of
the OpenAPI document.

Dates are checked as strings here and parsed afterwards (ISO 8601 with a
timezone); which of unit_ids and count is given, and what goes with it,
is checked by the controller, so that the message says it plainly.
"""
from reserve.api.schemas import parts
from reserve.api.views import statuses

_date = {'type': 'string', 'minLength': 1, 'maxLength': 64,
         'format': 'date-time'}
_id = {'type': 'string', 'minLength': 1, 'maxLength': 36}
_project = {'type': 'string', 'minLength': 1, 'maxLength': 64,
            'pattern': r'^\S+$'}
_projects = {'type': 'array', 'items': _project, 'uniqueItems': True,
             'maxItems': 100}
# libvirt domain names: no '/', no surrounding space.
_domain = {'type': 'string', 'minLength': 1, 'maxLength': 255,
           'pattern': r'^[^/\s]([^/]*[^/\s])?$'}
_domains = {'type': 'array', 'items': _domain, 'uniqueItems': True,
            'maxItems': 64}
_unit_ids = {'type': 'array', 'items': _id, 'minItems': 1, 'maxItems': 64,
             'uniqueItems': True}

create = {
    'type': 'object',
    'properties': {
        'unit_ids': _unit_ids,
        'count': {'type': 'integer', 'minimum': 1, 'maximum': 64},
        'model': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'host': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'numa_local': {'type': 'boolean'},
        'mdev_type': {'type': 'string', 'minLength': 1, 'maxLength': 64,
                      'pattern': r'^[A-Za-z0-9_.:-]+$'},
        'allowed_projects': dict(_projects, minItems=1),
        'managing_projects': _projects,
        'start': _date,
        'end': dict(_date, type=['string', 'null']),
        'domains': _domains,
        'contract_ref': {'type': 'string', 'maxLength': 255},
        'reason': {'type': 'string', 'maxLength': 4096},
    },
    'additionalProperties': False,
}

update = {
    'type': 'object',
    'properties': {
        'domains': _domains,
        'end': dict(_date, type=['string', 'null']),
        'allowed_projects': dict(_projects, minItems=1),
        'managing_projects': _projects,
        'contract_ref': {'type': ['string', 'null'], 'maxLength': 255},
        'reason': {'type': ['string', 'null'], 'maxLength': 4096},
    },
    'minProperties': 1,
    'additionalProperties': False,
}

attach = {
    'type': 'object',
    'properties': {
        'domain': _domain,
        'unit_ids': _unit_ids,
    },
    'required': ['domain'],
    'additionalProperties': False,
}

detach = {
    'type': 'object',
    'properties': {
        'domain': _domain,
    },
    'required': ['domain'],
    'additionalProperties': False,
}


# -- the OpenAPI document ----------------------------------------------------

def request_bodies():
    return {'DeviceReservationCreate': create,
            'DeviceReservationUpdate': update,
            'DeviceAttach': attach, 'DeviceDetach': detach}


def response_schemas():
    return {
        'DeviceUnit': parts.obj({'id': parts.STR, 'pci_address': parts.STR,
                                 'model': parts.STR,
                                 'numa_node': parts.INT_OR_NULL}),
        'DeviceAttachment': parts.obj({
            'domain': parts.STR, 'unit_id': parts.STR,
            'pci_address': parts.STR,
            'kind': parts.enum(('pci', 'mdev')),
            'mdev_uuid': parts.STR_OR_NULL,
            'state': parts.enum(statuses.ATTACHMENT.shown),
            'live': parts.BOOL_OR_NULL, 'config': parts.BOOL_OR_NULL,
            'project_id': parts.STR_OR_NULL,
        }),
        'DeviceReservation': parts.obj({
            'id': parts.STR, 'host_id': parts.STR,
            'host': parts.STR_OR_NULL, 'project_id': parts.STR,
            'user_id': parts.STR, 'allowed_projects': parts.STR_LIST,
            'managing_projects': parts.STR_LIST,
            'unit_ids': parts.STR_LIST,
            'units': parts.array_of(parts.ref('DeviceUnit')),
            'mdev_type': parts.STR_OR_NULL,
            'request': {'type': ['object', 'null']},
            'start': parts.DATE,
            'end': dict(parts.DATE_OR_NULL, description='null: open-ended'),
            'status': parts.enum(statuses.DEVICE_RESERVATION.shown),
            'status_reason': parts.STR_OR_NULL,
            'contract_ref': parts.STR_OR_NULL,
            'reason': parts.STR_OR_NULL,
            'topology_generation': parts.STR_OR_NULL,
            'domains': parts.STR_LIST,
            'attachments': parts.array_of(parts.ref('DeviceAttachment')),
            'lease_id': parts.STR_OR_NULL,
            'released_at': parts.DATE_OR_NULL,
            'created_at': parts.DATE, 'updated_at': parts.DATE,
        }, description='GPU units reserved for a set of projects.'),
        'DeviceReservationDryRun': parts.obj({
            'fits': parts.BOOL, 'start': parts.DATE,
            'end': parts.DATE_OR_NULL, 'reason': parts.STR,
            'host_id': parts.STR, 'host': parts.STR,
            'unit_ids': parts.STR_LIST,
            'units': parts.array_of(parts.ref('DeviceUnit')),
            'attachments': parts.array_of(parts.obj({
                'domain': parts.STR, 'unit_id': parts.STR,
                'pci_address': parts.STR, 'kind': parts.STR})),
        }, optional=('reason', 'host_id', 'host', 'unit_ids', 'units',
                     'attachments'),
            description='Whether the request fits (and which units it '
                        'would take, or why not); nothing is reserved.'),
    }


def paths():
    drsv = parts.path_param('device_reservation_id',
                            'Device reservation ID')
    tag = 'device-reservations'
    one = parts.one('device_reservation', 'DeviceReservation')
    create = parts.operation(
        'createDeviceReservation', tag,
        'Reserve GPU units (with dry_run=true: only say whether and which '
        'would fit)', one, [parts.param('dry_run', schema=parts.BOOL)],
        body='DeviceReservationCreate', status=201,
        # 404: a unit or host the body names is unknown
        errors_=(400, 403, 404, 409, 503))
    # A dry run answers 200 with what would be reserved.
    create['responses']['200'] = parts.json_response(
        parts.obj({'dry_run': parts.ref('DeviceReservationDryRun')}),
        'With dry_run=true: whether it fits; nothing is reserved')
    return {
        '/v1/device-reservations': {
            'get': parts.operation(
                'listDeviceReservations', tag, 'List device reservations',
                parts.collection('device_reservations',
                                 'DeviceReservation'),
                [parts.ALL_PROJECTS, parts.PROJECT_ID,
                 parts.param('status', schema=parts.enum(
                     statuses.DEVICE_RESERVATION.shown)),
                 parts.param('host', description='Host ID or name'),
                 parts.LIMIT, parts.MARKER]),
            'post': create,
        },
        '/v1/device-reservations/{device_reservation_id}': {
            'get': parts.operation(
                'showDeviceReservation', tag, 'Show a device reservation',
                one, [drsv], errors_=(400, 403, 404)),
            'patch': parts.operation(
                'updateDeviceReservation', tag,
                'Change its end, projects or notes; or (on their own) the '
                'domains its units go to', one, [drsv],
                body='DeviceReservationUpdate',
                errors_=(400, 403, 404, 409, 503)),
            'delete': parts.operation(
                'cancelDeviceReservation', tag,
                'Cancel a live reservation, or remove one that is over',
                None, [drsv], status=204, errors_=(403, 404, 409, 503)),
        },
        '/v1/device-reservations/{device_reservation_id}/affirm': {
            'post': parts.operation(
                'affirmDeviceReservation', tag,
                'Re-affirm a reservation in needs-review (administrators)',
                one, [drsv], errors_=(400, 403, 404, 409, 503)),
        },
        '/v1/device-reservations/{device_reservation_id}/attach': {
            'post': parts.operation(
                'attachDeviceDomain', tag,
                'Attach the units (or some) to a domain', one, [drsv],
                body='DeviceAttach', errors_=(400, 403, 404, 409, 503)),
        },
        '/v1/device-reservations/{device_reservation_id}/detach': {
            'post': parts.operation(
                'detachDeviceDomain', tag, 'Detach the units from a domain',
                one, [drsv], body='DeviceDetach',
                errors_=(400, 403, 404, 409, 503)),
        },
    }
