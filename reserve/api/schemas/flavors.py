"""Bodies of /v1/flavors and /v1/flavors/{id}/projects.

Dates are checked as strings here and parsed afterwards (ISO 8601 with a
timezone), so that the message names the field.
"""

_name = {'type': 'string', 'minLength': 1, 'maxLength': 255,
         'pattern': r'^\S(.*\S)?$'}
_date_or_null = {'type': ['string', 'null'], 'minLength': 1,
                 'maxLength': 64}
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
