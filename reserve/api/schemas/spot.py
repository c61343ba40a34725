"""Spot devices (since microversion 1.4): the bodies of release, reclaim,
the attach of a device on the spot market to a spot domain and its
detach by the spot user, and their part of the OpenAPI document."""
from reserve.api.schemas import device_reservations as reservation_schema
from reserve.api.schemas import parts

_SINCE = 'Since microversion 1.4.'
_device_ids = {'type': 'array', 'items': {'type': 'string', 'minLength': 1,
                                          'maxLength': 36},
               'minItems': 1, 'maxItems': 64, 'uniqueItems': True}

release = {
    'type': 'object',
    'properties': {'device_ids': _device_ids},
    'required': ['device_ids'],
    'additionalProperties': False,
}

reclaim = {
    'type': 'object',
    'properties': {'device_ids': _device_ids, 'dry_run': {'type': 'boolean'}},
    'additionalProperties': False,
}

spot_attach = {
    'type': 'object',
    'properties': {
        'domain': reservation_schema.attach['properties']['domain'],
        'tier': {'type': 'string', 'enum': ['spot']},
    },
    'required': ['domain', 'tier'],
    'additionalProperties': False,
}


spot_detach = {
    'type': 'object',
    'properties': {
        'domain': reservation_schema.attach['properties']['domain'],
    },
    'required': ['domain'],
    'additionalProperties': False,
}


def request_bodies():
    return {'DeviceRelease': release, 'DeviceReclaim': reclaim,
            'SpotDeviceAttach': spot_attach,
            'SpotDeviceDetach': spot_detach}


_TERMINATED = parts.obj({'device_id': parts.STR, 'domain': parts.STR,
                         'project_id': parts.STR})
_SKIPPED = parts.obj({'device_id': parts.STR, 'domain': parts.STR,
                      'reason': parts.STR})


def response_schemas():
    return {
        'DeviceReclaimAnswer': parts.obj({
            'device_ids': parts.STR_LIST,
            'dry_run': parts.BOOL,
            'would_terminate': parts.array_of(_TERMINATED),
            'would_skip': parts.array_of(_SKIPPED),
            'terminated': parts.array_of(_TERMINATED),
            'skipped': parts.array_of(_SKIPPED),
        }, optional=('would_terminate', 'would_skip', 'terminated',
                     'skipped'),
            description=_SINCE + ' The spot domains a reclaim terminates '
                                 '(or, dry run, would) and those it leaves '
                                 'alone, with why.'),
    }


def paths():
    drsv = parts.path_param('device_reservation_id',
                            'Device reservation ID')
    device = parts.path_param('device_id', 'GPU device ID')
    one = parts.one('device_reservation', 'DeviceReservation')
    tag = 'device-reservations'
    return {
        '/v1/device-reservations/{device_reservation_id}/release': {
            'post': parts.operation(
                'releaseDevices', tag,
                'Put devices on the spot market (its maker or managers, '
                'while it is active)', one, [drsv], body='DeviceRelease',
                errors_=(400, 403, 404, 409, 503), description=_SINCE),
        },
        '/v1/device-reservations/{device_reservation_id}/reclaim': {
            'post': parts.operation(
                'reclaimDevices', tag,
                'Take lent devices back from the spot domains (dry_run: '
                'only say what it would terminate)',
                parts.ref('DeviceReclaimAnswer'), [drsv],
                body='DeviceReclaim',
                errors_=(400, 403, 404, 409, 503), description=_SINCE),
        },
        '/v1/devices/{device_id}/attach': {
            'post': parts.operation(
                'attachSpotDevice', 'devices',
                'Attach a device on the spot market to a domain of the '
                "project's (a spot domain)",
                parts.one('device', 'Device'), [device],
                body='SpotDeviceAttach', errors_=(400, 403, 404, 409, 503),
                description=_SINCE),
        },
        '/v1/devices/{device_id}/detach': {
            'post': parts.operation(
                'detachSpotDevice', 'devices',
                "Give a spot device back: detach it from the project's "
                'spot domain (it is on the spot market again)',
                parts.one('device', 'Device'), [device],
                body='SpotDeviceDetach', errors_=(400, 403, 404, 409, 503),
                description=_SINCE + ' A device the caller does not see is '
                'a 404, one held by the spot domain of another project a '
                '403; a domain that does not hold it, or holds it as the '
                "lending reservation's own (not a spot attachment), a "
                '409.'),
        },
    }
