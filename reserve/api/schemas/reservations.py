"""Bodies of /v1/reservations.

Dates are checked as strings here and parsed afterwards (an ISO 8601 date
and time with a timezone), so that the message names the field.
"""

_date = {'type': 'string', 'minLength': 1, 'maxLength': 64}

create = {
    'type': 'object',
    'properties': {
        'flavor_id': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'start': _date,
        'end': _date,
        'instance_count': {'type': 'integer', 'minimum': 1},
    },
    'required': ['flavor_id', 'start', 'end'],
    'additionalProperties': False,
}

update = {
    'type': 'object',
    'properties': {
        'end': _date,
    },
    'required': ['end'],
    'additionalProperties': False,
}
