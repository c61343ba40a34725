"""/v1/hosts: the bodies the API validates, and its part of the OpenAPI
document."""
from reserve.api.schemas import parts
from reserve.devices import states as device_states

_capability_key = {'type': 'string', 'minLength': 1, 'maxLength': 255,
                   'pattern': r'^\S(.*\S)?$'}

_capability_value = {'type': ['string', 'number', 'boolean'],
                     'maxLength': 1024}

create = {
    'type': 'object',
    'properties': {
        'name': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        # A libvirt host (kind 'libvirt'): qemu+tls://, qemu+ssh://, or
        # test:///<definition>.xml; reserve.virt.uris tells which forms
        # are allowed. Without it, a nova hypervisor.
        'uri': {'type': 'string', 'minLength': 1, 'maxLength': 512,
                'pattern': r'^[a-z][a-z0-9+.-]*:///?\S*$'},
        'capabilities': {
            'type': 'object',
            'propertyNames': _capability_key,
            'additionalProperties': _capability_value,
        },
        'reservable': {'type': 'boolean'},
    },
    'required': ['name'],
    'additionalProperties': False,
}

update = {
    'type': 'object',
    'properties': {
        'capabilities': {
            'type': 'object',
            'propertyNames': _capability_key,
            # null drops the capability
            'additionalProperties': {
                'type': ['string', 'number', 'boolean', 'null'],
                'maxLength': 1024},
        },
        'reservable': {'type': 'boolean'},
        # With reservable false: move the reservations the host holds
        # (cancelling those no other host has room for) instead of 409.
        'force': {'type': 'boolean'},
    },
    'minProperties': 1,
    'additionalProperties': False,
}

_date = {'type': 'string', 'minLength': 1, 'maxLength': 64,
         'format': 'date-time'}

# /v1/hosts/{id}/maintenance-windows: the host holds nothing then; force
# moves the reservations it holds then instead of a 409.
maintenance_create = {
    'type': 'object',
    'properties': {
        'start': _date,
        'end': _date,
        'note': {'type': ['string', 'null'], 'maxLength': 2048},
        'force': {'type': 'boolean'},
    },
    'required': ['start', 'end'],
    'additionalProperties': False,
}


# -- the OpenAPI document ----------------------------------------------------

def request_bodies():
    return {'HostCreate': create, 'HostUpdate': update,
            'HostMaintenanceWindowCreate': maintenance_create}


def response_schemas():
    return {
        'Host': parts.obj({
            'id': parts.STR, 'name': parts.STR,
            'service_name': parts.STR_OR_NULL,
            'kind': parts.enum(('nova', device_states.LIBVIRT)),
            'provider_uuid': parts.STR_OR_NULL, 'vcpus': parts.INT,
            'memory_mb': parts.INT, 'local_gb': parts.INT,
            'reservable': parts.BOOL,
            'capabilities': {'type': 'object',
                             'additionalProperties': parts.STR},
            'gpus': dict(parts.GPU_COUNTS,
                         description='nova hosts: the GPUs flavor bookings '
                                     'are counted against'),
            'gpu_source': parts.enum(('placement', 'aggregates',
                                      'libvirt', 'capabilities'),
                                     nullable=True),
            'uri': parts.STR_OR_NULL,
            'topology_generation': parts.STR_OR_NULL,
            'refreshed_at': parts.DATE_OR_NULL,
            'refresh_error': parts.STR_OR_NULL,
            'created_at': parts.DATE, 'updated_at': parts.DATE,
            'failure': dict(parts.STR_OR_NULL, description=(
                'Since 1.3: what nova or libvirt reported failed; while '
                'set the host takes nothing new. null: healthy')),
            'failed_at': dict(parts.DATE_OR_NULL, description=(
                'Since 1.3: when it failed')),
        }, optional=('failure', 'failed_at')),
        'HostRefresh': parts.obj({'host': parts.ref('Host'),
                                  'refresh': parts.OBJECT}),
        'HostMaintenanceWindow': parts.obj({
            'id': parts.STR, 'host_id': parts.STR, 'start': parts.DATE,
            'end': parts.DATE, 'note': parts.STR_OR_NULL,
            'created_at': parts.DATE,
        }),
        'MovedReservations': parts.obj({
            'moved': parts.array_of(parts.obj({
                'reservation_id': parts.STR, 'instances': parts.INT,
                'to_hosts': parts.STR_LIST})),
            'cancelled': dict(parts.STR_LIST,
                              description='Reservations no other host had '
                                          'room for: ERROR, with the '
                                          'reason'),
        }, description='What taking a host away did to the reservations '
                       'it held (with force)'),
        'Hostdev': parts.obj({'kind': parts.enum(('pci', 'mdev')),
                              'id': parts.STR, 'live': parts.BOOL,
                              'config': parts.BOOL}),
        'Domain': parts.obj({
            'name': parts.STR, 'uuid': parts.STR, 'running': parts.BOOL,
            'persistent': parts.BOOL,
            'hostdevs': parts.array_of(parts.ref('Hostdev')),
            'owner': dict(parts.STR_OR_NULL,
                          description="The project that owns it: nova's "
                                      'metadata on a host run by nova, '
                                      "else the administrator's record; "
                                      'null: none'),
            'xml': dict(parts.STR, description='Only when one domain is '
                                               'shown'),
        }, optional=('xml',)),
    }


def _host():
    return parts.path_param('host_ref', 'Host ID or name')


def paths():
    return dict(_enrollment_paths(), **_window_paths(), **_libvirt_paths())


def _enrollment_paths():
    host = _host()
    return {
        '/v1/hosts': {
            'get': parts.operation(
                'listHosts', 'hosts', 'List enrolled hosts',
                parts.collection('hosts', 'Host'),
                [parts.param('reservable', schema=parts.BOOL), parts.LIMIT,
                 parts.MARKER]),
            'post': parts.operation(
                'createHost', 'hosts',
                'Enroll a nova hypervisor (by name) or a libvirt host (by '
                'uri)', parts.one('host', 'Host'),
                body='HostCreate', status=201,
                errors_=(400, 403, 409, 502, 503)),
        },
        '/v1/hosts/{host_ref}': {
            'get': parts.operation(
                'showHost', 'hosts', 'Show a host',
                parts.one('host', 'Host'), [host],
                errors_=(400, 403, 404)),
            'patch': parts.operation(
                'updateHost', 'hosts',
                "Change a host's capabilities or reservability",
                parts.obj({'host': parts.ref('Host'),
                           'reservations': parts.ref('MovedReservations')},
                          optional=('reservations',)),
                [host], body='HostUpdate', errors_=(400, 403, 404, 409)),
            'delete': parts.operation(
                'deleteHost', 'hosts',
                'Remove a host that holds no allocation', None,
                [host], status=204, errors_=(403, 404, 409)),
        },
    }


def _window_paths():
    host = _host()
    window = parts.path_param('window_id', 'Maintenance window ID')
    return {
        '/v1/hosts/{host_ref}/maintenance-windows': {
            'get': parts.operation(
                'listHostMaintenanceWindows', 'hosts',
                "A nova host's maintenance windows",
                parts.obj({'maintenance_windows': parts.array_of(
                    parts.ref('HostMaintenanceWindow'))}), [host],
                errors_=(400, 403, 404)),
            'post': parts.operation(
                'createHostMaintenanceWindow', 'hosts',
                'Take a nova host out of service for a window',
                parts.obj({'maintenance_window':
                           parts.ref('HostMaintenanceWindow'),
                           'reservations': parts.ref('MovedReservations')}),
                [host], body='HostMaintenanceWindowCreate',
                status=201, errors_=(400, 403, 404, 409),
                description='The reservations the host holds then are '
                            'named in a 409, or with force moved to hosts '
                            'with room for their whole window; those no '
                            'host has room for are cancelled with the '
                            'reason.'),
        },
        '/v1/hosts/{host_ref}/maintenance-windows/{window_id}': {
            'delete': parts.operation(
                'deleteHostMaintenanceWindow', 'hosts',
                "Remove a host's maintenance window", None,
                [host, window], status=204, errors_=(400, 403, 404)),
        },
    }


def _libvirt_paths():
    host = _host()
    domain = parts.path_param('domain_name', 'libvirt domain name')
    return {
        '/v1/hosts/{host_ref}/refresh': {
            'post': parts.operation(
                'refreshHost', 'hosts',
                "Read a nova host's capacity from placement, or "
                'rediscover the GPUs of a libvirt host, now',
                parts.ref('HostRefresh'), [host],
                errors_=(400, 403, 404, 503)),
        },
        '/v1/hosts/{host_ref}/domains': {
            'get': parts.operation(
                'listHostDomains', 'hosts',
                'The domains of a libvirt host and their hostdevs',
                parts.obj({'domains': parts.array_of(parts.ref('Domain'))}),
                [host], errors_=(400, 403, 404, 503)),
        },
        '/v1/hosts/{host_ref}/domains/{domain_name}': {
            'get': parts.operation(
                'showHostDomain', 'hosts',
                'A domain of a libvirt host with its XML',
                parts.obj({'domain': parts.ref('Domain')}), [host, domain],
                errors_=(400, 403, 404, 503)),
        },
    }
