"""/v1/reports and a reservation's delivery (read only: no bodies): their
part of the OpenAPI document."""
from reserve.api.schemas import parts

NUMBER_OR_NULL = {'type': ['number', 'null']}
NUMBER = {'type': 'number'}


def _sums():
    return {
        'reservations': parts.INT,
        'usable': dict(parts.INT, description='Of those, the ones whose '
                       'lease became ACTIVE'),
        'seconds_to_usable': parts.obj({'mean': NUMBER_OR_NULL,
                                        'max': parts.INT_OR_NULL}),
        'hosts_replaced': parts.INT, 'repairs': parts.INT,
        'missing_instance_minutes': NUMBER,
        'stuck_servers': dict(parts.INT, description='Servers nova has not '
                              'deleted at their end yet'),
    }


def response_schemas():
    return {
        'Delivery': parts.obj({
            'usable_at': dict(parts.DATE_OR_NULL, description=(
                'When its lease became ACTIVE')),
            'seconds_to_usable': dict(parts.INT_OR_NULL, description=(
                'From its start to usable_at')),
            'hosts_replaced': dict(parts.INT, description=(
                'Failed hosts another took over')),
            'repairs': dict(parts.INT, description=(
                'Drift of its cloud objects put right')),
            'missing_instances': dict(parts.INT, description=(
                'Instances it lacks now')),
            'missing_instance_minutes': dict(NUMBER, description=(
                'Each instance missing for a minute counts once')),
            'stuck_servers': dict(parts.STR_LIST, description=(
                'Servers nova has not deleted at its end yet')),
        }, description='Since 1.3: what a reservation got.'),
        'DeliveryReport': parts.obj({
            'start': parts.DATE, 'end': parts.DATE,
            'groups': parts.array_of(parts.obj(dict(
                _sums(), kind=parts.enum(('reservation',
                                          'device_reservation')),
                flavor_id=dict(parts.STR_OR_NULL, description=(
                    'The catalogue flavor; null for device '
                    'reservations'))))),
            'total': parts.obj(_sums()),
        }, description='The reservations whose window starts in '
                       '[start, end), summed per flavor.'),
    }


def paths():
    return {
        '/v1/reports/delivery': {
            'get': parts.operation(
                'showDeliveryReport', 'reports',
                'Since 1.3: what the reservations of a period got (the '
                'last 30 days unless told)',
                parts.obj({'delivery_report': parts.ref('DeliveryReport')}),
                [parts.START, parts.END], errors_=(400, 403, 404)),
        },
    }
