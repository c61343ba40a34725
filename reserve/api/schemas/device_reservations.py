"""Bodies of /v1/device-reservations.

Dates are checked as strings here and parsed afterwards (ISO 8601 with a
timezone); which of unit_ids and count is given, and what goes with it,
is checked by the controller, so that the message says it plainly.
"""

_date = {'type': 'string', 'minLength': 1, 'maxLength': 64}
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
        'end': {'type': ['string', 'null'], 'minLength': 1,
                'maxLength': 64},
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
        'end': {'type': ['string', 'null'], 'minLength': 1,
                'maxLength': 64},
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
