"""The OpenAPI 3.1 description of the v1 API, served at /v1/openapi.json.

It is built from the code so that it cannot drift from it: each resource's
paths, response schemas and request bodies come from its module of
``reserve.api.schemas``, where the request bodies are the very JSON
schemas the API validates with; the error codes come from
``reserve.api.errors`` and the versions from ``reserve.api.microversion``.
Response schemas list the fields every answer carries (``required``) and
allow more, so that a client built on them keeps working when the API
gains fields. Tests check that every route the controllers serve is
described, that every described path is served, and that real answers
match the response schemas.
"""
import copy

from reserve.api import errors
from reserve.api import microversion
from reserve.api.schemas import allocations
from reserve.api.schemas import calendar
from reserve.api.schemas import device_reservations
from reserve.api.schemas import devices
from reserve.api.schemas import diagnoses
from reserve.api.schemas import domain_owners
from reserve.api.schemas import flavors
from reserve.api.schemas import hosts
from reserve.api.schemas import leases
from reserve.api.schemas import limits
from reserve.api.schemas import maintenance
from reserve.api.schemas import offers
from reserve.api.schemas import parts
from reserve.api.schemas import reports
from reserve.api.schemas import reservations
from reserve.api.schemas import series
from reserve.api.schemas import sharing
from reserve.api.schemas import spot

OPENAPI_VERSION = '3.1.0'
PATH = '/v1/openapi.json'

# In the order of the document.
RESOURCES = (reservations, sharing, leases, hosts, domain_owners,
             allocations, flavors, maintenance, limits, reports, devices,
             device_reservations, spot, diagnoses, calendar, series,
             offers)


def _gather(part):
    """The ``part`` (paths, response_schemas, request_bodies) of every
    resource that has one, merged in the order of RESOURCES."""
    found = {}
    for resource in RESOURCES:
        if hasattr(resource, part):
            found.update(getattr(resource, part)())
    return found


# -- schemas -----------------------------------------------------------------

_WINDOW_OR_NULL = {'type': ['object', 'null'],
                   'properties': {'start': parts.DATE, 'end': parts.DATE},
                   'required': ['start', 'end']}
_OPEN_WINDOW_OR_NULL = {'type': ['object', 'null'],
                        'properties': {'start': parts.DATE,
                                       'end': parts.DATE_OR_NULL},
                        'required': ['start', 'end']}

# Those of every resource's answers.
GENERIC_SCHEMAS = {
    'Error': parts.obj({
        'status': parts.INT,
        'code': {'type': 'string', 'pattern': r'^reserve\.',
                 'description': 'Stable code clients may branch on; see '
                                'the API reference for the list.'},
        'title': parts.STR,
        'detail': {'type': 'string', 'description': 'For humans.'},
        'request_id': parts.STR_OR_NULL,
        'counter_offer': {'anyOf': [parts.ref('CounterOffer'),
                                    parts.ref('DeviceCounterOffer')]},
        'occurrences': dict(parts.array_of(parts.ref('SeriesRefusal')),
                            description=(
                                'Since 1.7, in the 409 '
                                'reserve.series_does_not_fit of POST '
                                '/v1/series: the occurrences that do not '
                                'fit, and why.')),
    }, optional=('counter_offer', 'occurrences')),
    'CounterOffer': parts.obj({
        'flavor_id': parts.STR,
        'instance_count': parts.INT,
        'before': dict(_WINDOW_OR_NULL,
                       description='The latest window of the same shape '
                                   'that fits, starting before the asked '
                                   'start.'),
        'after': dict(_WINDOW_OR_NULL,
                      description='The earliest one starting after it.'),
        'latest_end': dict(parts.DATE_OR_NULL, description=(
            'PATCH of a later end only: the latest end the reservation '
            'can move to now (null: none later than its end).')),
        'max_instance_count': dict(parts.INT, description=(
            'The most instances that fit in the asked window.')),
        'free_slots': dict(parts.STR, description=(
            'The free-slots path of the flavor for this many instances.')),
    }, optional=('latest_end',),
        description='Since 1.6, in the 409 reserve.no_capacity of POST '
                    '/v1/reservations and of PATCH of a later end (since '
                    '1.11 in their 409 reserve.maintenance too): what fits '
                    'instead.'),
    'DeviceCounterOffer': parts.obj({
        'device_count': dict(parts.INT, description=(
            'As many devices as asked (as named, with device_ids).')),
        'device_ids': dict(parts.STR_LIST, type=['array', 'null'],
                           description='The devices named, if named.'),
        'model': parts.STR_OR_NULL,
        'host': dict(parts.STR_OR_NULL,
                     description='The host as the request named it.'),
        'numa_local': parts.BOOL,
        'mdev_type': parts.STR_OR_NULL,
        'before': dict(_OPEN_WINDOW_OR_NULL, description=(
            'The latest window of the same request and length that fits, '
            'starting before the asked start (never for an open-ended '
            'one).')),
        'after': dict(_OPEN_WINDOW_OR_NULL, description=(
            'The earliest one starting after it (end null: open-ended).')),
        'max_device_count': dict(parts.INT_OR_NULL, description=(
            'The most devices of the request that fit together in the '
            'asked window (null for a later end).')),
        'availability': dict(parts.STR, description=(
            'The /v1/devices/availability path that counts these devices '
            '(add start and end for a window).')),
        'latest_end': dict(parts.DATE_OR_NULL, description=(
            'PATCH of a later end only: the latest end the reservation '
            'can move to now (null: none later than its end).')),
    }, optional=('latest_end',),
        description='Since 1.11, in the 409 reserve.devices_do_not_fit and '
                    'reserve.units_unavailable of POST '
                    '/v1/device-reservations and of PATCH of a later end: '
                    'what fits instead, as the caller sees the devices.'),
    'ErrorBody': {
        'type': 'object',
        'properties': {'errors': {'type': 'array', 'minItems': 1,
                                  'items': parts.ref('Error')}},
        'required': ['errors'],
        'additionalProperties': False,
    },
    'Link': parts.obj({'rel': parts.STR,
                       'href': {'type': 'string', 'format': 'uri'}}),
    'Links': dict(parts.array_of(parts.ref('Link')),
                  description='A "next" link when the page is full: follow '
                              'it until there is none.'),
    'Version': parts.obj({
        'id': parts.STR, 'status': parts.STR, 'min_version': parts.STR,
        'max_version': parts.STR,
        'links': parts.array_of(parts.ref('Link'))}),
}
SCHEMAS = dict(GENERIC_SCHEMAS, **_gather('response_schemas'))

# Request bodies: the schemas the API validates with, unchanged.
REQUEST_BODIES = _gather('request_bodies')

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
            'content': {'application/json': {
                'schema': parts.ref('ErrorBody')}},
        }
    return responses


# -- paths -------------------------------------------------------------------

def _paths():
    versions = {
        '/': {
            'get': parts.operation(
                'listVersions', 'versions', 'The API versions',
                parts.obj({'versions': parts.array_of(
                    parts.ref('Version'))}),
                errors_=()),
        },
        '/v1': {
            'get': parts.operation(
                'showVersion', 'versions',
                'Version 1 and its microversions',
                parts.obj({'version': parts.ref('Version')}), errors_=()),
        },
        PATH: {
            'get': parts.operation('showOpenAPI', 'versions',
                                   'This description', parts.OBJECT,
                                   errors_=()),
        },
    }
    return dict(versions, **_gather('paths'))


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
    {'name': 'reports', 'description': 'What the cloud delivered'},
    {'name': 'devices', 'description': 'GPU devices of libvirt hosts'},
    {'name': 'device-reservations', 'description': 'Device reservations'},
    {'name': 'diagnoses', 'description': 'Each layer of a reservation read '
                                         'live, and the doctor (since 1.3)'},
    {'name': 'calendar', 'description': 'What a Gantt chart of a flavor or '
                                        'a host shows (since 1.5)'},
    {'name': 'offers', 'description': 'Windows that fit, ready to book '
                                      '(since 1.10)'},
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
        'microversion': parts.param(
            microversion.HEADER, where='header',
            description='"%s <version>" or "%s latest"; %s to %s' % (
                microversion.SERVICE_TYPE, microversion.SERVICE_TYPE,
                microversion.MIN_VERSION, microversion.MAX_VERSION))}
    paths = _paths()
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
