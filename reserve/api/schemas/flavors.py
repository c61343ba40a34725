"""/v1/flavors and below: the bodies the API validates, and its part of
the OpenAPI document.

Dates are checked as strings here and parsed afterwards (ISO 8601 with a
timezone), so that the message names the field.
"""
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
    'properties': dict(_properties, projects={
        'type': 'array', 'items': _project_id, 'uniqueItems': True,
        'maxItems': 1000}),
    'required': ['name', 'nova_flavor_id', 'slots'],
    'additionalProperties': False,
}

update = {
    'type': 'object',
    'properties': _properties,
    'minProperties': 1,
    'additionalProperties': False,
}

grant = {
    'type': 'object',
    'properties': {'project_id': _project_id},
    'required': ['project_id'],
    'additionalProperties': False,
}


# -- the OpenAPI document ----------------------------------------------------

def request_bodies():
    return {'FlavorCreate': create, 'FlavorUpdate': update,
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
        }, optional=('projects', 'gpu_slots'),
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
                                                     "the hosts' GPUs"),
                'available': parts.INT})),
        }),
    }


def paths():
    flavor = parts.path_param('flavor_ref', 'Catalogue flavor ID or name')
    project = parts.path_param('project_id', 'Project ID')
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
                one, body='FlavorCreate', status=201,
                errors_=(400, 403, 409)),
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
                [flavor], body='FlavorUpdate',
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
                errors_=(400, 403, 404)),
        },
    }
