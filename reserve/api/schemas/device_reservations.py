"""/v1/device-reservations: the bodies the API validates, and its part of
the OpenAPI document.

Dates are checked as strings here and parsed afterwards (ISO 8601 with a
timezone); which of device_ids and device_count is given, and what goes
with it, is checked by the controller, so that the message says it
plainly.

Microversion 1.2 (``microversion.ONE_NAME``) names a reservation's
devices ``device_ids``, ``devices``, ``device_count`` and
``attachments[].device_id``; before it, requests and answers keep the
names of ``_BEFORE_ONE_NAME``. The code reads and writes the new names
only: ``from_served`` and ``as_served`` translate at the edge.
"""
import copy

from reserve.api import microversion
from reserve.api.schemas import parts
from reserve.api.views import missing_capacity
from reserve.api.views import statuses

# {name since 1.2: the name before it} of the fields of a device
# reservation, of its dry run and of the availability of devices.
_BEFORE_ONE_NAME = {'device_ids': 'unit_ids', 'devices': 'units',
                    'device_count': 'count', 'device_id': 'unit_id'}
_SINCE_ONE_NAME = {old: new for new, old in _BEFORE_ONE_NAME.items()}


def old_names():
    """Whether the request being served reads the names before 1.2."""
    return not microversion.serves(microversion.ONE_NAME)


def as_served(fields, old=None):
    """``fields`` (a dict) under the names the request's microversion
    reads (``old``: whether that is before 1.2, when already known)."""
    if not (old_names() if old is None else old):
        return fields
    return {_BEFORE_ONE_NAME.get(k, k): v for k, v in fields.items()}


def served_names(old):
    """{name in the code: the name served} of the renamed fields, under
    the names before 1.2 when ``old``."""
    return dict(_BEFORE_ONE_NAME) if old else {
        name: name for name in _BEFORE_ONE_NAME}


def served_name(name):
    """How the request's microversion names the field ``name``."""
    return _BEFORE_ONE_NAME.get(name, name) if old_names() else name


def from_served(body):
    """A body validated at the request's microversion, under the names
    the code uses."""
    if not old_names():
        return dict(body)
    return {_SINCE_ONE_NAME.get(k, k): v for k, v in body.items()}


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
_device_ids = {'type': 'array', 'items': _id, 'minItems': 1,
               'maxItems': 64, 'uniqueItems': True}

create = {
    'type': 'object',
    'properties': {
        'device_ids': _device_ids,
        'device_count': {'type': 'integer', 'minimum': 1, 'maximum': 64},
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
        'device_ids': _device_ids,
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


def _before_one_name(schema):
    """``schema`` as microversions before 1.2 read it: the same fields,
    under their old names."""
    old = copy.deepcopy(schema)
    old['properties'] = {_BEFORE_ONE_NAME.get(k, k): v
                         for k, v in schema['properties'].items()}
    return old


create_before_one_name = _before_one_name(create)
attach_before_one_name = _before_one_name(attach)


def _served(schema, before):
    """The schema of a body at the request's microversion (for
    method.expose, which reads it when the body is read)."""
    def schema_of_request():
        return before if old_names() else schema
    return schema_of_request


served_create = _served(create, create_before_one_name)
served_attach = _served(attach, attach_before_one_name)


# -- the OpenAPI document ----------------------------------------------------

def _each_name(properties, optional=()):
    """An object of ``properties`` (``optional`` may be absent), each
    field renamed at 1.2 described under both names, either of which
    may be absent."""
    described, absent = {}, list(optional)
    for name, schema in properties.items():
        old = _BEFORE_ONE_NAME.get(name)
        if old is None:
            described[name] = schema
            continue
        described[name] = dict(schema, description='Since 1.2 (%s '
                                                   'before)' % old)
        described[old] = dict(schema, description='Before 1.2: %s' % name)
        absent += [name, old]
    return parts.obj(described, optional=absent)


def request_bodies():
    return {'DeviceReservationCreate': create,
            'DeviceReservationCreateBefore1.2': create_before_one_name,
            'DeviceReservationUpdate': update,
            'DeviceAttach': attach,
            'DeviceAttachBefore1.2': attach_before_one_name,
            'DeviceDetach': detach}


def response_schemas():
    return {
        'ReservedDevice': parts.obj({
            'id': parts.STR, 'pci_address': parts.STR, 'model': parts.STR,
            'numa_node': parts.INT_OR_NULL}),
        'DeviceAttachment': _each_name({
            'domain': parts.STR, 'device_id': parts.STR,
            'pci_address': parts.STR,
            'kind': parts.enum(('pci', 'mdev')),
            'mdev_uuid': parts.STR_OR_NULL,
            'state': parts.enum(statuses.ATTACHMENT.shown),
            'live': parts.BOOL_OR_NULL, 'config': parts.BOOL_OR_NULL,
            'project_id': parts.STR_OR_NULL,
        }),
        'DeviceReservation': dict(_each_name({
            'id': parts.STR, 'host_id': parts.STR,
            'host': parts.STR_OR_NULL, 'project_id': parts.STR,
            'user_id': parts.STR, 'allowed_projects': parts.STR_LIST,
            'managing_projects': parts.STR_LIST,
            'device_ids': parts.STR_LIST,
            'devices': parts.array_of(parts.ref('ReservedDevice')),
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
            'released_device_ids': dict(parts.STR_LIST, description=(
                'Since 1.4: the devices it lends out (on the spot '
                'market)')),
            'created_at': parts.DATE, 'updated_at': parts.DATE,
            'missing_capacity': missing_capacity.schema('devices'),
        }, optional=('missing_capacity', 'released_device_ids')),
            description='GPU devices reserved for a set of projects.'),
        'DeviceReservationDryRun': dict(_each_name({
            'fits': parts.BOOL, 'start': parts.DATE,
            'end': parts.DATE_OR_NULL, 'reason': parts.STR,
            'host_id': parts.STR, 'host': parts.STR,
            'device_ids': parts.STR_LIST,
            'devices': parts.array_of(parts.ref('ReservedDevice')),
            'attachments': parts.array_of(_each_name({
                'domain': parts.STR, 'device_id': parts.STR,
                'pci_address': parts.STR, 'kind': parts.STR})),
        }, optional=('reason', 'host_id', 'host', 'attachments')),
            description='Whether the request fits (and which devices it '
                        'would take, or why not); nothing is reserved.'),
    }


def paths():
    drsv = parts.path_param('device_reservation_id',
                            'Device reservation ID')
    tag = 'device-reservations'
    one = parts.one('device_reservation', 'DeviceReservation')
    create = parts.operation(
        'createDeviceReservation', tag,
        'Reserve GPU devices (with dry_run=true: only say whether and which '
        'would fit)', one, [parts.param('dry_run', schema=parts.BOOL)],
        body=('DeviceReservationCreate', 'DeviceReservationCreateBefore1.2'),
        status=201,
        # 404: a device or host the body names is unknown
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
                'domains its devices go to', one, [drsv],
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
                'Attach the devices (or some) to a domain', one, [drsv],
                body=('DeviceAttach', 'DeviceAttachBefore1.2'),
                errors_=(400, 403, 404, 409, 503)),
        },
        '/v1/device-reservations/{device_reservation_id}/detach': {
            'post': parts.operation(
                'detachDeviceDomain', tag, 'Detach the devices from a domain',
                one, [drsv], body='DeviceDetach',
                errors_=(400, 403, 404, 409, 503)),
        },
    }
