"""/v1/offers (read only: no bodies): its part of the OpenAPI document."""
from reserve.api.schemas import parts

_LENGTH = ('an ISO 8601 duration (PT4H, P1DT2H, P2W) or a number of hours '
           '(4, 1.5)')


def response_schemas():
    return {
        'Offer': parts.obj({
            'id': dict(parts.STR, description='Book it as is: POST '
                       '/v1/reservations {"offer_id": id}'),
            'flavor_id': dict(parts.STR, description='The catalogue flavor'),
            'flavor_name': parts.STR,
            'instance_count': parts.INT,
            'start': parts.DATE, 'end': parts.DATE,
            'hosts': dict(parts.INT, description='How many hosts admission '
                          'would place the instances on now'),
            'expires_at': dict(parts.DATE, description='When it lapses '
                               '([booking] offer_hold_seconds after the '
                               'search); it holds no capacity until then'),
        }, description='Since 1.10: a window that a booking of the asked '
                       'shape would be admitted in now'),
    }


def paths():
    return {
        '/v1/offers': {
            'get': parts.operation(
                'searchOffers', 'offers',
                'Since 1.10: windows of a flavor for count instances and a '
                'duration, starting within a range, sorted by start (or by '
                'how few hosts hold them), each bookable as is for a few '
                'minutes',
                parts.obj({'offers': parts.array_of(parts.ref('Offer'))}),
                [parts.param('flavor', required=True,
                             description='A catalogue flavor (id or name)'),
                 parts.param('duration', required=True,
                             description='How long: ' + _LENGTH),
                 parts.param('count', schema={'type': 'integer',
                                              'minimum': 1,
                                              'maximum': 1000},
                             description='Instances (1 unless told)'),
                 parts.param('earliest_start',
                             description='ISO 8601 date and time with a '
                                         'timezone (now unless told)'),
                 parts.param('latest_start',
                             description='ISO 8601 date and time with a '
                                         'timezone, or how long after '
                                         'earliest_start: ' + _LENGTH +
                                         ' (14 days unless told)'),
                 parts.param('any_flavor_with',
                             schema=parts.enum(('gpu_model',)),
                             description='Also the flavors whose '
                                         'instances ask for the same GPUs'),
                 parts.param('sort', schema=parts.enum(('start', 'hosts')),
                             description='start (the default), or hosts: '
                                         'the fewest hosts first'),
                 parts.param('limit', schema={'type': 'integer',
                                              'minimum': 1, 'maximum': 50},
                             description='At most this many offers (10 '
                                         'unless told, at most 50)')],
                errors_=(400, 403, 404, 413)),
        },
    }
