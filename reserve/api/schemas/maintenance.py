"""Bodies of /v1/maintenance-windows.

A window closes the flavors it lists (by id or name), or every flavor
with all_flavors; force creates it even over live reservations.
"""

_date = {'type': 'string', 'minLength': 1, 'maxLength': 64}

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
