"""Bodies of /v1/hosts."""

_capability_key = {'type': 'string', 'minLength': 1, 'maxLength': 255,
                   'pattern': r'^\S(.*\S)?$'}

_capability_value = {'type': ['string', 'number', 'boolean'],
                     'maxLength': 1024}

create = {
    'type': 'object',
    'properties': {
        'name': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        # A libvirt host (kind 'libvirt'): qemu+tls://, qemu+ssh://, or
        # test:///<definition>.xml. Without it, a nova hypervisor.
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

_date = {'type': 'string', 'minLength': 1, 'maxLength': 64}

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
