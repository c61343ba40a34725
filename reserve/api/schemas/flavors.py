"""/v1/flavors and below: the bodies the API validates, and its part of
the OpenAPI document.

Dates are checked as strings here and parsed afterwards (ISO 8601 with a
timezone), so that the message names the field.

Microversion 1.4 (``microversion.SPOT``) adds ``spot`` to the bodies
that write an entry: a spot flavor, which needs no ``slots`` (it is never
booked). Before it the field is refused as any unknown field is.
"""
import copy

from reserve.api import microversion
from reserve.api.schemas import parts

_name = {'type': 'string', 'minLength': 1, 'maxLength': 255,
         'pattern': r'^\S(.*\S)?$'}
_date_or_null = {'type': ['string', 'null'], 'minLength': 1,
                 'maxLength': 64, 'format': 'date-time'}
_label = {'type': ['string', 'null'], 'maxLength': 255}
_project_id = {'type': 'string', 'minLength': 1, 'maxLength': 64,
               'pattern': r'^\S+$'}

_properties = {
    'name': _name,
    'nova_flavor_id': {'type': 'string', 'minLength': 1, 'maxLength': 255,
                       'pattern': r'^\S(.*\S)?$'},
    'description': {'type': ['string', 'null'], 'maxLength': 1024},
    'slots': {'type': 'integer', 'minimum': 0, 'maximum': 100000},
    'max_length_hours': {'type': ['integer', 'null'], 'minimum': 1,
                         'maximum': 87600},
    'active': {'type': 'boolean'},
    'is_public': {'type': 'boolean'},
    'start': _date_or_null,
    'end': _date_or_null,
    'category': _label,
    'availability_zone': _label,
}

create = {
    'type': 'object',
    'properties': dict(_properties, spot={'type': 'boolean'}, projects={
        'type': 'array', 'items': _project_id, 'uniqueItems': True,
        'maxItems': 1000}),
    'required': ['name', 'nova_flavor_id'],
    # slots, unless it is a spot flavor (whose slots default to 0).
    'if': {'properties': {'spot': {'const': True}}, 'required': ['spot']},
    'then': {},
    'else': {'required': ['slots']},
    'additionalProperties': False,
}

update = {
    'type': 'object',
    'properties': dict(_properties, spot={'type': 'boolean'}),
    'minProperties': 1,
    'additionalProperties': False,
}


def _before_spot(schema):
    """``schema`` as microversions before 1.4 read it: no spot, and
    slots required on creation."""
    old = copy.deepcopy(schema)
    del old['properties']['spot']
    for key in ('if', 'then', 'else'):
        old.pop(key, None)
    if 'required' in old:
        old['required'] = old['required'] + ['slots']
    return old


create_before_spot = _before_spot(create)
update_before_spot = _before_spot(update)


def _served(schema, before):
    """The schema of a body at the request's microversion (for
    method.expose, which reads it when the body is read)."""
    def schema_of_request():
        return schema if microversion.serves(microversion.SPOT) else before
    return schema_of_request


served_create = _served(create, create_before_spot)
served_update = _served(update, update_before_spot)

grant = {
    'type': 'object',
    'properties': {'project_id': _project_id},
    'required': ['project_id'],
    'additionalProperties': False,
}


# -- the OpenAPI document ----------------------------------------------------

def request_bodies():
    return {'FlavorCreate': create, 'FlavorCreateBefore1.4':
            create_before_spot, 'FlavorUpdate': update,
            'FlavorUpdateBefore1.4': update_before_spot,
            'GrantCreate': grant}


def response_schemas():
    return {
        'Flavor': parts.obj({
            'id': parts.STR, 'name': parts.STR, 'nova_flavor_id': parts.STR,
            'description': parts.STR_OR_NULL, 'slots': parts.INT,
            'max_length_hours': parts.INT_OR_NULL, 'active': parts.BOOL,
            'is_public': parts.BOOL,
            'start': parts.DATE_OR_NULL, 'end': parts.DATE_OR_NULL,
            'category': parts.STR_OR_NULL,
            'availability_zone': parts.STR_OR_NULL,
            'projects': dict(parts.STR_LIST,
                             description='Administrators only'),
            'gpus': dict(parts.GPU_COUNTS,
                         description='What one instance of the nova flavor '
                                     'asks for'),
            'gpu_slots': dict(parts.INT_OR_NULL,
                              description="Instances the enrolled hosts' "
                                          'GPUs hold at once (show, create '
                                          'and update only)'),
            'created_at': parts.DATE, 'updated_at': parts.DATE,
            'spot': dict(parts.BOOL, description=(
                'Since 1.4: a spot flavor, never booked; the projects '
                'that opt in boot its nova flavor on idle reserved '
                'GPUs')),
            'opted_in': dict(parts.BOOL, description=(
                "Since 1.4, spot flavors: whether the caller's project "
                'opted in')),
            'spot_project_ids': dict(parts.STR_LIST, description=(
                'Since 1.4, spot flavors: the projects that opted in '
                '(administrators only)')),
        }, optional=('projects', 'gpu_slots', 'spot', 'opted_in',
                     'spot_project_ids'),
            description='A reservable flavor of the catalogue.'),
        'Grant': parts.obj({'project_id': parts.STR}),
        'FreeSlots': parts.obj({
            'flavor_id': parts.STR, 'instance_count': parts.INT,
            'start': parts.DATE, 'end': parts.DATE,
            'max_length_hours': parts.INT_OR_NULL,
            'free_slots': parts.array_of(parts.obj({'start': parts.DATE,
                                                    'end': parts.DATE})),
        }),
        'FlavorAvailability': parts.obj({
            'start': parts.DATE_OR_NULL, 'end': parts.DATE_OR_NULL,
            'availability': parts.array_of(parts.obj({
                'flavor_id': parts.STR, 'name': parts.STR,
                'nova_flavor_id': parts.STR,
                'category': parts.STR_OR_NULL,
                'availability_zone': parts.STR_OR_NULL,
                'active': parts.BOOL,
                'slots': dict(parts.INT,
                              description="The catalogue's slots"),
                'gpus': parts.GPU_COUNTS,
                'total': dict(parts.INT, description="The slots, capped by "
                                                     "the hosts' GPUs (0 "
                                                     'for a spot flavor)'),
                'available': dict(parts.INT, description=(
                    'Free throughout the window, or now (0 for a spot '
                    'flavor)')),
                'spot': dict(parts.BOOL, description='Since 1.4'),
                'spot_available': dict(parts.INT, description=(
                    'Since 1.4, spot flavors: instances the GPUs lent '
                    'now still hold'))},
                optional=('spot', 'spot_available'))),
        }),
    }


OPT_IN = ('The project (the caller\'s unless project_id names another) '
          'opts in to a spot flavor it may see, or out of it; either '
          'twice is no error. The manager then gives the project access '
          'to the nova flavor, or takes it away. 404 for an entry the '
          'caller cannot see, 409 for one that is not a spot flavor or '
          'not active (opting in). Below 1.4 the route does not exist.')


def paths():
    flavor = parts.path_param('flavor_ref', 'Catalogue flavor ID or name')
    project = parts.path_param('project_id', 'Project ID')
    opt_in_project = parts.param(
        'project_id', description='Another project than the caller\'s '
                                  '(administrators)')
    one = parts.one('flavor', 'Flavor')
    return {
        '/v1/flavors': {
            'get': parts.operation(
                'listFlavors', 'flavors', 'List the flavors you may book',
                parts.collection('flavors', 'Flavor'),
                [parts.param('category'), parts.param('availability_zone'),
                 parts.param('is_public', schema=parts.BOOL),
                 parts.param('active', schema=parts.BOOL), parts.LIMIT,
                 parts.MARKER]),
            'post': parts.operation(
                'createFlavor', 'flavors', 'Add a flavor to the catalogue',
                one, body=('FlavorCreate', 'FlavorCreateBefore1.4'),
                status=201, errors_=(400, 403, 409)),
        },
        '/v1/flavors/availability': {
            'get': parts.operation(
                'flavorAvailability', 'flavors',
                'How many of each flavor are free now, or at least over a '
                'window', parts.ref('FlavorAvailability'),
                [parts.START, parts.END, parts.param('category'),
                 parts.param('availability_zone')]),
        },
        '/v1/flavors/{flavor_ref}': {
            'get': parts.operation(
                'showFlavor', 'flavors', 'Show a flavor', one, [flavor],
                errors_=(400, 403, 404)),
            'patch': parts.operation(
                'updateFlavor', 'flavors', 'Change a flavor', one,
                [flavor], body=('FlavorUpdate', 'FlavorUpdateBefore1.4'),
                errors_=(400, 403, 404, 409)),
            'delete': parts.operation(
                'deleteFlavor', 'flavors',
                'Remove a flavor no reservation references', None,
                [flavor], status=204, errors_=(403, 404, 409)),
        },
        '/v1/flavors/{flavor_ref}/projects': {
            'get': parts.operation(
                'listFlavorGrants', 'flavors',
                'Projects granted a private flavor',
                parts.obj({'projects': parts.array_of(parts.ref('Grant'))}),
                [flavor], errors_=(400, 403, 404)),
            'post': parts.operation(
                'grantFlavor', 'flavors',
                'Grant a private flavor to a project',
                parts.obj({'project': parts.ref('Grant')}), [flavor],
                body='GrantCreate', status=201,
                errors_=(400, 403, 404, 409)),
        },
        '/v1/flavors/{flavor_ref}/projects/{project_id}': {
            'delete': parts.operation(
                'revokeFlavor', 'flavors', "Revoke a project's grant",
                None, [flavor, project], status=204,
                errors_=(403, 404)),
        },
        '/v1/flavors/{flavor_ref}/free-slots': {
            'get': parts.operation(
                'flavorFreeSlots', 'flavors',
                'When a booking of the flavor fits', parts.ref('FreeSlots'),
                [flavor, parts.START, parts.END,
                 parts.param('instance_count',
                             schema={'type': 'integer', 'minimum': 1})],
                errors_=(400, 403, 404, 409)),
        },
        '/v1/flavors/{flavor_ref}/opt-in': {
            'post': parts.operation(
                'optInSpotFlavor', 'flavors',
                'Opt in to a spot flavor (since 1.4)', None,
                [flavor, opt_in_project], status=204,
                errors_=(400, 403, 404, 409), description=OPT_IN),
            'delete': parts.operation(
                'optOutSpotFlavor', 'flavors',
                'Opt out of a spot flavor (since 1.4)', None,
                [flavor, opt_in_project], status=204,
                errors_=(400, 403, 404, 409), description=OPT_IN),
        },
    }
