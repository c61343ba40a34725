"""The OpenAPI 3.1 description of the v1 API, served at /v1/openapi.json.

It is built from the code so that it cannot drift from it: the request
bodies are the very JSON schemas the API validates with
(``reserve.api.schemas``), the error codes come from ``reserve.api.errors``
and the versions from ``reserve.api.microversion``. Response schemas list
the fields every answer carries (``required``) and allow more, so that a
client built on them keeps working when the API gains fields. Tests check
that every route the controllers serve is described, that every described
path is served, and that real answers match the response schemas.
"""
import copy

from reserve.api import errors
from reserve.api import microversion
from reserve.api.schemas import device_reservations as device_rsv_schema
from reserve.api.schemas import flavors as flavor_schema
from reserve.api.schemas import hosts as host_schema
from reserve.api.schemas import maintenance as window_schema
from reserve.api.schemas import reservations as booking_schema
from reserve.common import states
from reserve.devices import states as device_states

OPENAPI_VERSION = '3.1.0'
PATH = '/v1/openapi.json'

# -- building blocks ---------------------------------------------------------

STR = {'type': 'string'}
STR_OR_NULL = {'type': ['string', 'null']}
INT = {'type': 'integer'}
INT_OR_NULL = {'type': ['integer', 'null']}
BOOL = {'type': 'boolean'}
BOOL_OR_NULL = {'type': ['boolean', 'null']}
OBJECT = {'type': 'object'}
ANY = {}
DATE = {'type': 'string', 'format': 'date-time',
        'description': 'ISO 8601 in UTC, e.g. 2026-12-01T09:00:00Z'}
DATE_OR_NULL = {'type': ['string', 'null'], 'format': 'date-time'}
STR_LIST = {'type': 'array', 'items': STR}
GPU_COUNTS = {'type': ['object', 'null'], 'additionalProperties': INT,
              'description': 'GPUs by resource class, e.g. {"VGPU": 1}; '
                             'null when none are known'}


def ref(name):
    return {'$ref': '#/components/schemas/%s' % name}


def obj(properties, optional=(), description=None):
    """An object that has every property of ``properties`` (the ones named
    in ``optional`` may be absent) and may have more."""
    schema = {'type': 'object', 'properties': properties,
              'required': [k for k in properties if k not in optional]}
    if description:
        schema['description'] = description
    return schema


def array_of(schema):
    return {'type': 'array', 'items': schema}


def enum(values, nullable=False):
    schema = {'type': ['string', 'null'] if nullable else 'string',
              'enum': list(values) + ([None] if nullable else [])}
    return schema


def collection(key, item):
    """A page of a collection: the items and the paging links."""
    return obj({key: array_of(ref(item)), 'links': ref('Links')})


def one(key, item):
    return obj({key: ref(item)})


# -- response schemas --------------------------------------------------------

SCHEMAS = {
    'Error': obj({
        'status': INT,
        'code': {'type': 'string', 'pattern': r'^reserve\.',
                 'description': 'Stable code clients may branch on; see '
                                'the API reference for the list.'},
        'title': STR,
        'detail': {'type': 'string', 'description': 'For humans.'},
        'request_id': STR_OR_NULL,
    }),
    'ErrorBody': {
        'type': 'object',
        'properties': {'errors': {'type': 'array', 'minItems': 1,
                                  'items': ref('Error')}},
        'required': ['errors'],
        'additionalProperties': False,
    },
    'Link': obj({'rel': STR, 'href': {'type': 'string', 'format': 'uri'}}),
    'Links': dict(array_of(ref('Link')),
                  description='A "next" link when the page is full: follow '
                              'it until there is none.'),
    'Version': obj({
        'id': STR, 'status': STR, 'min_version': STR, 'max_version': STR,
        'links': array_of(ref('Link'))}),
    'Reservation': obj({
        'id': STR, 'project_id': STR, 'user_id': STR,
        'flavor_id': dict(STR, description='The catalogue flavor'),
        'instance_count': INT, 'start': DATE, 'end': DATE,
        'status': enum(states.Booking.ALL),
        'status_reason': STR_OR_NULL, 'lease_id': STR_OR_NULL,
        'compute_flavor': STR_OR_NULL,
        'created_at': DATE, 'updated_at': DATE,
    }, description='A booking of a catalogue flavor for a window.'),
    'LeaseAllocation': obj({'host_id': STR, 'host': STR_OR_NULL,
                            'count': INT}),
    'LeaseReservation': obj({
        'id': STR, 'resource_type': STR, 'status': STR, 'amount': INT,
        'source_flavor_id': STR_OR_NULL, 'vcpus': INT, 'memory_mb': INT,
        'disk_gb': INT, 'ephemeral_gb': INT, 'extra_specs': OBJECT,
        'resource_properties': ANY, 'affinity': BOOL_OR_NULL,
        # null for device:gpu reservations: no nova flavor, aggregate or
        # resource class of their own.
        'flavor_id': STR_OR_NULL, 'aggregate': STR_OR_NULL,
        'resource_class': STR_OR_NULL,
        'allocations': array_of(ref('LeaseAllocation')),
    }),
    'Event': obj({
        'id': STR,
        'event_type': enum((states.Event.START, states.Event.BEFORE_END,
                            states.Event.END)),
        'time': DATE,
        'status': enum((states.Event.UNDONE, states.Event.IN_PROGRESS,
                        states.Event.DONE, states.Event.ERROR)),
        'attempts': INT,
        'last_error': STR_OR_NULL,
    }),
    'Lease': obj({
        'id': STR, 'name': STR, 'project_id': STR, 'user_id': STR,
        'start': DATE, 'end': DATE, 'status': enum(states.Lease.ALL),
        'status_reason': STR_OR_NULL, 'degraded': BOOL,
        'created_at': DATE, 'updated_at': DATE,
        'reservations': array_of(ref('LeaseReservation')),
        'events': array_of(ref('Event')),
    }),
    'Host': obj({
        'id': STR, 'name': STR, 'service_name': STR_OR_NULL,
        'kind': enum(('nova', device_states.LIBVIRT)),
        'provider_uuid': STR_OR_NULL, 'vcpus': INT, 'memory_mb': INT,
        'local_gb': INT, 'reservable': BOOL,
        'capabilities': {'type': 'object', 'additionalProperties': STR},
        'gpus': dict(GPU_COUNTS, description='nova hosts: the GPUs flavor '
                                             'bookings are counted against'),
        'gpu_source': enum(('placement', 'libvirt', 'capabilities'),
                           nullable=True),
        'uri': STR_OR_NULL, 'topology_generation': STR_OR_NULL,
        'refreshed_at': DATE_OR_NULL, 'refresh_error': STR_OR_NULL,
        'created_at': DATE, 'updated_at': DATE,
    }),
    'HostRefresh': obj({'host': ref('Host'), 'refresh': OBJECT}),
    'HostMaintenanceWindow': obj({
        'id': STR, 'host_id': STR, 'start': DATE, 'end': DATE,
        'note': STR_OR_NULL, 'created_at': DATE,
    }),
    'MovedReservations': obj({
        'moved': array_of(obj({
            'reservation_id': STR, 'instances': INT,
            'to_hosts': STR_LIST})),
        'cancelled': dict(STR_LIST, description='Reservations no other '
                                                'host had room for: ERROR, '
                                                'with the reason'),
    }, description='What taking a host away did to the reservations it '
                   'held (with force)'),
    'Hostdev': obj({'kind': enum(('pci', 'mdev')), 'id': STR, 'live': BOOL,
                    'config': BOOL}),
    'Domain': obj({
        'name': STR, 'uuid': STR, 'running': BOOL, 'persistent': BOOL,
        'hostdevs': array_of(ref('Hostdev')),
        'xml': dict(STR, description='Only when one domain is shown'),
    }, optional=('xml',)),
    'Allocation': obj({
        'id': STR, 'host_id': STR, 'host': STR_OR_NULL,
        'reservation_id': STR,
        'booking_id': dict(STR_OR_NULL, description=(
            'The reservation (booking) the lease was made for, as '
            '/v1/reservations knows it')),
        'resource_type': STR, 'lease_id': STR,
        'project_id': STR, 'count': INT, 'start': DATE, 'end': DATE,
        'status': enum(states.Lease.ALL),
        'created_at': DATE, 'updated_at': DATE,
    }, description='Instance slots of a lease reservation on one host.'),
    'Flavor': obj({
        'id': STR, 'name': STR, 'nova_flavor_id': STR,
        'description': STR_OR_NULL, 'slots': INT,
        'max_length_hours': INT_OR_NULL, 'active': BOOL, 'is_public': BOOL,
        'start': DATE_OR_NULL, 'end': DATE_OR_NULL,
        'category': STR_OR_NULL, 'availability_zone': STR_OR_NULL,
        'projects': dict(STR_LIST, description='Administrators only'),
        'gpus': dict(GPU_COUNTS, description='What one instance of the '
                                             'nova flavor asks for'),
        'gpu_slots': dict(INT_OR_NULL, description='Instances the enrolled '
                          "hosts' GPUs hold at once (show, create and "
                          'update only)'),
        'created_at': DATE, 'updated_at': DATE,
    }, optional=('projects', 'gpu_slots'),
        description='A reservable flavor of the catalogue.'),
    'Grant': obj({'project_id': STR}),
    'FreeSlots': obj({
        'flavor_id': STR, 'instance_count': INT, 'start': DATE,
        'end': DATE, 'max_length_hours': INT_OR_NULL,
        'free_slots': array_of(obj({'start': DATE, 'end': DATE})),
    }),
    'FlavorAvailability': obj({
        'start': DATE_OR_NULL, 'end': DATE_OR_NULL,
        'availability': array_of(obj({
            'flavor_id': STR, 'name': STR, 'nova_flavor_id': STR,
            'category': STR_OR_NULL, 'availability_zone': STR_OR_NULL,
            'active': BOOL,
            'slots': dict(INT, description="The catalogue's slots"),
            'gpus': GPU_COUNTS,
            'total': dict(INT, description="The slots, capped by the "
                                           "hosts' GPUs"),
            'available': INT})),
    }),
    'MaintenanceWindow': obj({
        'id': STR, 'start': DATE, 'end': DATE, 'note': STR_OR_NULL,
        'all_flavors': BOOL, 'flavors': STR_LIST,
        'created_at': DATE, 'updated_at': DATE,
    }),
    'Limits': obj({
        'project_id': STR, 'driver': STR,
        'resources': {'type': 'object', 'additionalProperties': obj({
            'limit': dict(INT, description='-1: no limit'),
            'in_use': INT})},
    }),
    'Device': obj({
        'id': STR, 'host_id': STR, 'host': STR_OR_NULL,
        'pci_address': STR,
        'address': obj({'domain': STR, 'bus': STR, 'slot': STR,
                        'function': STR}),
        'node_device': STR, 'model': STR, 'vendor_id': STR_OR_NULL,
        'vendor_name': STR_OR_NULL, 'product_id': STR_OR_NULL,
        'product_name': STR_OR_NULL, 'pci_class': STR_OR_NULL,
        'numa_node': INT_OR_NULL, 'iommu_group': INT_OR_NULL,
        'iommu_group_members': STR_LIST,
        'sriov': obj({'physical_function': STR_OR_NULL,
                      'virtual_functions': STR_LIST,
                      'max_virtual_functions': INT_OR_NULL}),
        'mdev_types': array_of(ANY), 'mdevs': array_of(ANY),
        'in_use_by': array_of(ANY), 'driver': STR_OR_NULL,
        'state': enum(device_states.Unit.ALL),
        'reservation_id': STR_OR_NULL,
        'created_at': DATE, 'updated_at': DATE,
    }, description='A GPU unit (a PCI function) of a libvirt host.'),
    'DeviceAvailability': obj({
        'start': DATE_OR_NULL, 'end': DATE_OR_NULL,
        'availability': array_of(obj({
            'host_id': STR, 'host': STR, 'model': STR,
            'vendor_id': STR_OR_NULL, 'product_id': STR_OR_NULL,
            'free': INT, 'unit_ids': STR_LIST,
            'numa_node': INT_OR_NULL}, optional=('numa_node',))),
    }),
    'DeviceUnit': obj({'id': STR, 'pci_address': STR, 'model': STR,
                       'numa_node': INT_OR_NULL}),
    'DeviceAttachment': obj({
        'domain': STR, 'unit_id': STR, 'pci_address': STR,
        'kind': enum(('pci', 'mdev')), 'mdev_uuid': STR_OR_NULL,
        'state': enum((device_states.Attachment.PLANNED,
                       device_states.Attachment.ATTACHED,
                       device_states.Attachment.DETACHED)),
        'live': BOOL_OR_NULL, 'config': BOOL_OR_NULL,
        'project_id': STR_OR_NULL,
    }),
    'DeviceReservation': obj({
        'id': STR, 'host_id': STR, 'host': STR_OR_NULL,
        'project_id': STR, 'user_id': STR,
        'allowed_projects': STR_LIST, 'managing_projects': STR_LIST,
        'unit_ids': STR_LIST, 'units': array_of(ref('DeviceUnit')),
        'mdev_type': STR_OR_NULL, 'request': {'type': ['object', 'null']},
        'start': DATE,
        'end': dict(DATE_OR_NULL, description='null: open-ended'),
        'status': enum(device_states.Reservation.ALL),
        'status_reason': STR_OR_NULL, 'contract_ref': STR_OR_NULL,
        'reason': STR_OR_NULL, 'topology_generation': STR_OR_NULL,
        'domains': STR_LIST,
        'attachments': array_of(ref('DeviceAttachment')),
        'lease_id': STR_OR_NULL, 'released_at': DATE_OR_NULL,
        'created_at': DATE, 'updated_at': DATE,
    }, description='GPU units reserved for a set of projects.'),
    'DeviceReservationDryRun': obj({
        'fits': BOOL, 'start': DATE, 'end': DATE_OR_NULL,
        'reason': STR, 'host_id': STR, 'host': STR,
        'unit_ids': STR_LIST, 'units': array_of(ref('DeviceUnit')),
        'attachments': array_of(obj({'domain': STR, 'unit_id': STR,
                                     'pci_address': STR, 'kind': STR})),
    }, optional=('reason', 'host_id', 'host', 'unit_ids', 'units',
                 'attachments'),
        description='Whether the request fits (and which units it would '
                    'take, or why not); nothing is reserved.'),
}

# Request bodies: the schemas the API validates with, unchanged.
REQUEST_BODIES = {
    'ReservationCreate': booking_schema.create,
    'ReservationUpdate': booking_schema.update,
    'HostCreate': host_schema.create,
    'HostUpdate': host_schema.update,
    'HostMaintenanceWindowCreate': host_schema.maintenance_create,
    'FlavorCreate': flavor_schema.create,
    'FlavorUpdate': flavor_schema.update,
    'GrantCreate': flavor_schema.grant,
    'MaintenanceWindowCreate': window_schema.create,
    'MaintenanceWindowUpdate': window_schema.update,
    'DeviceReservationCreate': device_rsv_schema.create,
    'DeviceReservationUpdate': device_rsv_schema.update,
    'DeviceAttach': device_rsv_schema.attach,
    'DeviceDetach': device_rsv_schema.detach,
}

# -- errors ------------------------------------------------------------------


def error_codes():
    """{status: [codes]}: the generic code of each status, then the
    specific ones of reserve.api.errors.EXCEPTION_CODES."""
    codes = {}
    for status, code in errors.STATUS_CODES.items():
        codes.setdefault(status, []).append(code)
    for klass, code in errors.EXCEPTION_CODES.items():
        status = int(klass.code)
        if code not in codes.setdefault(status, []):
            codes[status].append(code)
    return codes


def _error_responses():
    responses = {}
    for status, codes in sorted(error_codes().items()):
        responses[str(status)] = {
            'description': '%s (code %s)' % (
                errors.status_title(status), ', '.join(codes)),
            'content': {'application/json': {'schema': ref('ErrorBody')}},
        }
    return responses


# -- operations --------------------------------------------------------------

def _json(schema, description):
    return {'description': description,
            'content': {'application/json': {'schema': schema}}}


def _param(name, where='query', description='', schema=None,
           required=None):
    return {'name': name, 'in': where, 'description': description,
            'required': where == 'path' if required is None else required,
            'schema': schema or STR}


LIMIT = _param('limit', description='Page size (at most [api]max_limit)',
               schema={'type': 'integer', 'minimum': 1})
MARKER = _param('marker', description='ID of the last item of the previous '
                                      'page')
ALL_PROJECTS = _param('all_projects', description='Every project '
                                                  '(administrators)',
                      schema=BOOL)
PROJECT_ID = _param('project_id', description="Another project's "
                                              "(administrators)")
START = _param('start', description='ISO 8601 date and time with a '
                                    'timezone', schema=DATE)
END = _param('end', description='ISO 8601 date and time with a timezone',
             schema=DATE)


def _op(op_id, tag, summary, ok, params=(), body=None, errors_=(400, 403),
        status=200, description=None):
    """One operation: ``ok`` is the answer's schema (None: no body)."""
    operation = {'operationId': op_id, 'tags': [tag], 'summary': summary,
                 'parameters': list(params), 'responses': {}}
    if description:
        operation['description'] = description
    if body is not None:
        operation['requestBody'] = {
            'required': True,
            'content': {'application/json': {'schema': ref(body)}}}
    if ok is None:
        operation['responses'][str(status)] = {'description': 'Done; no '
                                                              'body.'}
    else:
        operation['responses'][str(status)] = _json(ok, 'OK' if status ==
                                                    200 else 'Created')
    # Any request may carry a malformed (400) or unsupported (406)
    # OpenStack-API-Version, or fail to authenticate (401); a body that
    # is not JSON gets 415.
    generic = {400, 401, 406, 500} | ({415} if body is not None else set())
    for code in sorted(set(errors_) | generic):
        operation['responses'][str(code)] = {
            '$ref': '#/components/responses/Error%d' % code}
    return operation


def _path_param(name, description):
    return _param(name, where='path', description=description)


def _paths():
    rsv = _path_param('reservation_id', 'Reservation ID')
    lease = _path_param('lease_id', 'Lease ID')
    host = _path_param('host_ref', 'Host ID or name')
    domain = _path_param('domain_name', 'libvirt domain name')
    alloc = _path_param('allocation_id', 'Allocation ID')
    flavor = _path_param('flavor_ref', 'Catalogue flavor ID or name')
    project = _path_param('project_id', 'Project ID')
    window = _path_param('window_id', 'Maintenance window ID')
    device = _path_param('device_id', 'GPU unit ID')
    drsv = _path_param('device_reservation_id', 'Device reservation ID')
    version_doc = obj({'version': ref('Version')})
    return {
        '/': {
            'get': _op('listVersions', 'versions', 'The API versions',
                       obj({'versions': array_of(ref('Version'))}),
                       errors_=()),
        },
        '/v1': {
            'get': _op('showVersion', 'versions', 'Version 1 and its '
                                                  'microversions',
                       version_doc, errors_=()),
        },
        PATH: {
            'get': _op('showOpenAPI', 'versions', 'This description',
                       OBJECT, errors_=()),
        },
        '/v1/reservations': {
            'get': _op('listReservations', 'reservations',
                       'List reservations (your project unless told)',
                       collection('reservations', 'Reservation'),
                       [ALL_PROJECTS, PROJECT_ID,
                        _param('flavor_id', description='Flavor ID or '
                                                        'name'),
                        _param('status',
                               schema=enum(states.Booking.ALL)),
                        LIMIT, MARKER]),
            'post': _op('createReservation', 'reservations',
                        'Book a flavor for a window',
                        one('reservation', 'Reservation'),
                        body='ReservationCreate', status=201,
                        errors_=(400, 403, 409, 413)),
        },
        '/v1/reservations/{reservation_id}': {
            'get': _op('showReservation', 'reservations',
                       'Show a reservation', one('reservation',
                                                 'Reservation'),
                       [rsv], errors_=(400, 403, 404)),
            'patch': _op('updateReservation', 'reservations',
                         'Move the end of a reservation',
                         one('reservation', 'Reservation'), [rsv],
                         body='ReservationUpdate',
                         errors_=(400, 403, 404, 409, 413)),
            'delete': _op('deleteReservation', 'reservations',
                          'Cancel (or remove) a reservation', None, [rsv],
                          status=204, errors_=(403, 404, 409)),
        },
        '/v1/leases': {
            'get': _op('listLeases', 'leases', 'List leases',
                       collection('leases', 'Lease'),
                       [ALL_PROJECTS, PROJECT_ID,
                        _param('status', schema=enum(states.Lease.ALL)),
                        LIMIT, MARKER]),
        },
        '/v1/leases/{lease_id}': {
            'get': _op('showLease', 'leases',
                       'Show a lease with its reservations, allocations '
                       'and events', one('lease', 'Lease'), [lease],
                       errors_=(400, 403, 404)),
        },
        '/v1/hosts': {
            'get': _op('listHosts', 'hosts', 'List enrolled hosts',
                       collection('hosts', 'Host'),
                       [_param('reservable', schema=BOOL), LIMIT, MARKER]),
            'post': _op('createHost', 'hosts',
                        'Enroll a nova hypervisor (by name) or a libvirt '
                        'host (by uri)', one('host', 'Host'),
                        body='HostCreate', status=201,
                        errors_=(400, 403, 409, 502, 503)),
        },
        '/v1/hosts/{host_ref}': {
            'get': _op('showHost', 'hosts', 'Show a host',
                       one('host', 'Host'), [host],
                       errors_=(400, 403, 404)),
            'patch': _op('updateHost', 'hosts',
                         "Change a host's capabilities or reservability",
                         obj({'host': ref('Host'),
                              'reservations': ref('MovedReservations')},
                             optional=('reservations',)),
                         [host], body='HostUpdate',
                         errors_=(400, 403, 404, 409)),
            'delete': _op('deleteHost', 'hosts',
                          'Remove a host that holds no allocation', None,
                          [host], status=204, errors_=(403, 404, 409)),
        },
        '/v1/hosts/{host_ref}/maintenance-windows': {
            'get': _op('listHostMaintenanceWindows', 'hosts',
                       "A nova host's maintenance windows",
                       obj({'maintenance_windows': array_of(
                           ref('HostMaintenanceWindow'))}), [host],
                       errors_=(400, 403, 404)),
            'post': _op('createHostMaintenanceWindow', 'hosts',
                        'Take a nova host out of service for a window',
                        obj({'maintenance_window':
                             ref('HostMaintenanceWindow'),
                             'reservations': ref('MovedReservations')}),
                        [host], body='HostMaintenanceWindowCreate',
                        status=201, errors_=(400, 403, 404, 409),
                        description='The reservations the host holds then'
                                    ' are named in a 409, or with force '
                                    'moved to hosts with room for their '
                                    'whole window; those no host has room'
                                    ' for are cancelled with the reason.'),
        },
        '/v1/hosts/{host_ref}/maintenance-windows/{window_id}': {
            'delete': _op('deleteHostMaintenanceWindow', 'hosts',
                          "Remove a host's maintenance window", None,
                          [host, window], status=204,
                          errors_=(400, 403, 404)),
        },
        '/v1/hosts/{host_ref}/refresh': {
            'post': _op('refreshHost', 'hosts',
                        "Read a nova host's capacity from placement, or "
                        'rediscover the GPUs of a libvirt host, now',
                        ref('HostRefresh'), [host],
                        errors_=(400, 403, 404, 503)),
        },
        '/v1/hosts/{host_ref}/domains': {
            'get': _op('listHostDomains', 'hosts',
                       'The domains of a libvirt host and their hostdevs',
                       obj({'domains': array_of(ref('Domain'))}), [host],
                       errors_=(400, 403, 404, 503)),
        },
        '/v1/hosts/{host_ref}/domains/{domain_name}': {
            'get': _op('showHostDomain', 'hosts',
                       'A domain of a libvirt host with its XML',
                       obj({'domain': ref('Domain')}), [host, domain],
                       errors_=(400, 403, 404, 503)),
        },
        '/v1/allocations': {
            'get': _op('listAllocations', 'allocations',
                       'Which hosts back which lease reservations',
                       collection('allocations', 'Allocation'),
                       [PROJECT_ID,
                        _param('host_id', description='Host ID or name'),
                        _param('reservation_id',
                               description='Lease reservation ID'),
                        _param('lease_id'), LIMIT, MARKER],
                       description='Administrators see every project '
                                   'unless they give project_id; others '
                                   "see their project's."),
        },
        '/v1/allocations/{allocation_id}': {
            'get': _op('showAllocation', 'allocations',
                       'Show an allocation',
                       one('allocation', 'Allocation'), [alloc],
                       errors_=(400, 403, 404)),
        },
        '/v1/flavors': {
            'get': _op('listFlavors', 'flavors',
                       'List the flavors you may book',
                       collection('flavors', 'Flavor'),
                       [_param('category'), _param('availability_zone'),
                        _param('is_public', schema=BOOL),
                        _param('active', schema=BOOL), LIMIT, MARKER]),
            'post': _op('createFlavor', 'flavors',
                        'Add a flavor to the catalogue',
                        one('flavor', 'Flavor'), body='FlavorCreate',
                        status=201, errors_=(400, 403, 409)),
        },
        '/v1/flavors/availability': {
            'get': _op('flavorAvailability', 'flavors',
                       'How many of each flavor are free now, or at least '
                       'over a window', ref('FlavorAvailability'),
                       [START, END, _param('category'),
                        _param('availability_zone')]),
        },
        '/v1/flavors/{flavor_ref}': {
            'get': _op('showFlavor', 'flavors', 'Show a flavor',
                       one('flavor', 'Flavor'), [flavor],
                       errors_=(400, 403, 404)),
            'patch': _op('updateFlavor', 'flavors', 'Change a flavor',
                         one('flavor', 'Flavor'), [flavor],
                         body='FlavorUpdate', errors_=(400, 403, 404, 409)),
            'delete': _op('deleteFlavor', 'flavors',
                          'Remove a flavor no reservation references',
                          None, [flavor], status=204,
                          errors_=(403, 404, 409)),
        },
        '/v1/flavors/{flavor_ref}/projects': {
            'get': _op('listFlavorGrants', 'flavors',
                       'Projects granted a private flavor',
                       obj({'projects': array_of(ref('Grant'))}), [flavor],
                       errors_=(400, 403, 404)),
            'post': _op('grantFlavor', 'flavors',
                        'Grant a private flavor to a project',
                        obj({'project': ref('Grant')}), [flavor],
                        body='GrantCreate', status=201,
                        errors_=(400, 403, 404, 409)),
        },
        '/v1/flavors/{flavor_ref}/projects/{project_id}': {
            'delete': _op('revokeFlavor', 'flavors',
                          "Revoke a project's grant", None,
                          [flavor, project], status=204,
                          errors_=(403, 404)),
        },
        '/v1/flavors/{flavor_ref}/free-slots': {
            'get': _op('flavorFreeSlots', 'flavors',
                       'When a booking of the flavor fits',
                       ref('FreeSlots'),
                       [flavor, START, END,
                        _param('instance_count',
                               schema={'type': 'integer', 'minimum': 1})],
                       errors_=(400, 403, 404)),
        },
        '/v1/maintenance-windows': {
            'get': _op('listMaintenanceWindows', 'maintenance',
                       'List maintenance windows',
                       collection('maintenance_windows',
                                  'MaintenanceWindow'),
                       [_param('flavor_id', description='Flavor ID or '
                                                        'name'),
                        _param('include_past', schema=BOOL), LIMIT,
                        MARKER]),
            'post': _op('createMaintenanceWindow', 'maintenance',
                        'Close flavors for a window',
                        one('maintenance_window', 'MaintenanceWindow'),
                        body='MaintenanceWindowCreate', status=201,
                        errors_=(400, 403, 409)),
        },
        '/v1/maintenance-windows/{window_id}': {
            'get': _op('showMaintenanceWindow', 'maintenance',
                       'Show a maintenance window',
                       one('maintenance_window', 'MaintenanceWindow'),
                       [window], errors_=(400, 403, 404)),
            'patch': _op('updateMaintenanceWindow', 'maintenance',
                         'Change a maintenance window',
                         one('maintenance_window', 'MaintenanceWindow'),
                         [window], body='MaintenanceWindowUpdate',
                         errors_=(400, 403, 404, 409)),
            'delete': _op('deleteMaintenanceWindow', 'maintenance',
                          'Remove a maintenance window', None, [window],
                          status=204, errors_=(403, 404)),
        },
        '/v1/limits': {
            'get': _op('showLimits', 'limits',
                       "A project's reservation quota and usage",
                       obj({'limits': ref('Limits')}), [PROJECT_ID],
                       errors_=(400, 403, 503)),
        },
        '/v1/devices': {
            'get': _op('listDevices', 'devices',
                       'List the GPU units of the libvirt hosts',
                       collection('devices', 'Device'),
                       [_param('host', description='Host ID or name'),
                        _param('model'),
                        _param('state',
                               schema=enum(device_states.Unit.ALL)),
                        _param('numa_node',
                               schema={'type': 'integer', 'minimum': 0}),
                        _param('include_vfs', schema=BOOL,
                               description='List SR-IOV virtual functions '
                                           'as units too (default: only '
                                           'under their physical '
                                           'function)'),
                        LIMIT, MARKER]),
        },
        '/v1/devices/availability': {
            'get': _op('deviceAvailability', 'devices',
                       'GPU units free now or over a window, per host and '
                       'model', ref('DeviceAvailability'),
                       [_param('host'), _param('model'),
                        _param('mdev_type'),
                        _param('numa_local', schema=BOOL), START, END]),
        },
        '/v1/devices/{device_id}': {
            'get': _op('showDevice', 'devices', 'Show a GPU unit',
                       one('device', 'Device'), [device],
                       errors_=(400, 403, 404)),
        },
        '/v1/device-reservations': {
            'get': _op('listDeviceReservations', 'device-reservations',
                       'List GPU unit reservations',
                       collection('device_reservations',
                                  'DeviceReservation'),
                       [ALL_PROJECTS, PROJECT_ID,
                        _param('status', schema=enum(
                            device_states.Reservation.ALL)),
                        _param('host', description='Host ID or name'),
                        LIMIT, MARKER]),
            'post': _op('createDeviceReservation', 'device-reservations',
                        'Reserve GPU units (with dry_run=true: only say '
                        'whether and which would fit)',
                        one('device_reservation', 'DeviceReservation'),
                        [_param('dry_run', schema=BOOL)],
                        body='DeviceReservationCreate', status=201,
                        # 404: a unit or host the body names is unknown
                        errors_=(400, 403, 404, 409, 503)),
        },
        '/v1/device-reservations/{device_reservation_id}': {
            'get': _op('showDeviceReservation', 'device-reservations',
                       'Show a GPU unit reservation',
                       one('device_reservation', 'DeviceReservation'),
                       [drsv], errors_=(400, 403, 404)),
            'patch': _op('updateDeviceReservation', 'device-reservations',
                         'Change its end, projects or notes; or (on their '
                         'own) the domains its units go to',
                         one('device_reservation', 'DeviceReservation'),
                         [drsv], body='DeviceReservationUpdate',
                         errors_=(400, 403, 404, 409, 503)),
            'delete': _op('cancelDeviceReservation', 'device-reservations',
                          'Cancel a live reservation, or remove one that '
                          'is over', None, [drsv], status=204,
                          errors_=(403, 404, 409, 503)),
        },
        '/v1/device-reservations/{device_reservation_id}/affirm': {
            'post': _op('affirmDeviceReservation', 'device-reservations',
                        'Re-affirm a reservation in needs-review '
                        '(administrators)',
                        one('device_reservation', 'DeviceReservation'),
                        [drsv], errors_=(400, 403, 404, 409, 503)),
        },
        '/v1/device-reservations/{device_reservation_id}/attach': {
            'post': _op('attachDeviceDomain', 'device-reservations',
                        'Attach the units (or some) to a domain',
                        one('device_reservation', 'DeviceReservation'),
                        [drsv], body='DeviceAttach',
                        errors_=(400, 403, 404, 409, 503)),
        },
        '/v1/device-reservations/{device_reservation_id}/detach': {
            'post': _op('detachDeviceDomain', 'device-reservations',
                        'Detach the units from a domain',
                        one('device_reservation', 'DeviceReservation'),
                        [drsv], body='DeviceDetach',
                        errors_=(400, 403, 404, 409, 503)),
        },
    }


TAGS = [
    {'name': 'versions', 'description': 'Version discovery (no token '
                                        'needed)'},
    {'name': 'reservations', 'description': 'Bookings of catalogue '
                                            'flavors'},
    {'name': 'leases', 'description': 'The lease engine (read only)'},
    {'name': 'hosts', 'description': 'Hosts enrolled for reservations '
                                     '(administrators)'},
    {'name': 'allocations', 'description': 'Hosts backing reservations'},
    {'name': 'flavors', 'description': 'The reservable flavor catalogue, '
                                       'grants and the calendar'},
    {'name': 'maintenance', 'description': 'Maintenance windows'},
    {'name': 'limits', 'description': 'Quota'},
    {'name': 'devices', 'description': 'GPU units of libvirt hosts'},
    {'name': 'device-reservations', 'description': 'GPU unit '
                                                   'reservations'},
]


def _build():
    components = {'schemas': copy.deepcopy(SCHEMAS)}
    components['schemas'].update(copy.deepcopy(REQUEST_BODIES))
    components['responses'] = {
        'Error%s' % status: response
        for status, response in _error_responses().items()}
    components['securitySchemes'] = {
        'keystone': {'type': 'apiKey', 'in': 'header',
                     'name': 'X-Auth-Token',
                     'description': 'A keystone token (with '
                                    '[api]auth_strategy = keystone)'}}
    components['parameters'] = {
        'microversion': _param(
            microversion.HEADER, where='header',
            description='"%s <version>" or "%s latest"; %s to %s' % (
                microversion.SERVICE_TYPE, microversion.SERVICE_TYPE,
                microversion.MIN_VERSION, microversion.MAX_VERSION))}
    paths = _paths()
    # A dry run answers 200 with what would be reserved.
    create = paths['/v1/device-reservations']['post']
    create['responses']['201'] = _json(
        one('device_reservation', 'DeviceReservation'), 'Created')
    create['responses']['200'] = _json(
        obj({'dry_run': ref('DeviceReservationDryRun')}),
        'With dry_run=true: whether it fits; nothing is reserved')
    for path, item in paths.items():
        for method, operation in item.items():
            if path in ('/', '/v1', PATH):
                operation['security'] = []
            operation['parameters'].append(
                {'$ref': '#/components/parameters/microversion'})
    return {
        'openapi': OPENAPI_VERSION,
        'jsonSchemaDialect': 'https://json-schema.org/draft/2020-12/schema',
        'info': {
            'title': 'reserve',
            'version': str(microversion.MAX_VERSION),
            'description': (
                'Book GPU capacity of an OpenStack cloud for a future '
                'window. Every error has one shape, {"errors": [{status, '
                'code, title, detail, request_id}]}; every answer carries '
                'x-openstack-request-id.'),
            'license': {'name': 'Apache-2.0',
                        'identifier': 'Apache-2.0'},
        },
        'tags': TAGS,
        'security': [{'keystone': []}],
        'paths': paths,
        'components': components,
    }


_DOCUMENT = None


def document(server_url=None):
    """The OpenAPI document (a fresh copy), with ``server_url`` as its
    server when given."""
    global _DOCUMENT
    if _DOCUMENT is None:
        _DOCUMENT = _build()
    doc = copy.deepcopy(_DOCUMENT)
    if server_url:
        doc['servers'] = [{'url': server_url}]
    return doc
