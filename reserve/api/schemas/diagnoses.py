"""The diagnosis of a reservation and the doctor (read only, since 1.3):
their part of the OpenAPI document."""
from reserve.api.schemas import parts
from reserve.diagnosis import findings

_SINCE = 'Since microversion 1.3.'


def response_schemas():
    problem = {
        'problem': dict(parts.STR, description='One sentence'),
        'symptom': parts.enum(findings.SYMPTOMS),
        'repair': dict(parts.enum(findings.REPAIRS), description=(
            'reserve: the service repairs it itself; operator: someone '
            'must')),
        'action': dict(parts.STR, description=(
            'What reserve will do, or what the operator should do')),
    }
    return {
        'DiagnosisProblem': parts.obj(problem),
        'DiagnosisMismatch': parts.obj(dict(
            problem, layer=parts.enum(findings.LAYERS))),
        'DiagnosisLayer': parts.obj({
            'layer': parts.enum(findings.LAYERS),
            'expected': dict(parts.OBJECT, description=(
                'What it should hold, from the database')),
            'found': dict(parts.OBJECT, description=(
                'What it holds, read live; {"error": ...} when it could '
                'not be read')),
            'ok': parts.BOOL,
            'problems': parts.array_of(parts.ref('DiagnosisProblem')),
        }),
        'Diagnosis': parts.obj({
            'reservation_id': parts.STR,
            'kind': parts.enum(findings.KINDS),
            'checked_at': parts.DATE,
            'layers': parts.array_of(parts.ref('DiagnosisLayer')),
            'mismatch': dict(
                {'oneOf': [parts.ref('DiagnosisMismatch'),
                           {'type': 'null'}]},
                description='The first problem of the first layer that '
                            'is not ok; null when they all agree'),
        }),
    }


def paths():
    one = parts.one('diagnosis', 'Diagnosis')
    # 404 also below 1.3; 503: the lease manager did not answer.
    errors_ = (400, 403, 404, 503)
    return {
        '/v1/reservations/{reservation_id}/diagnosis': {
            'get': parts.operation(
                'diagnoseReservation', 'diagnoses',
                'Diagnose a reservation', one,
                [parts.path_param('reservation_id', 'Reservation ID')],
                errors_=errors_, description=_SINCE),
        },
        '/v1/device-reservations/{device_reservation_id}/diagnosis': {
            'get': parts.operation(
                'diagnoseDeviceReservation', 'diagnoses',
                'Diagnose a device reservation', one,
                [parts.path_param('device_reservation_id',
                                  'Device reservation ID')],
                errors_=errors_, description=_SINCE),
        },
        '/v1/diagnoses': {
            'get': parts.operation(
                'listDiagnoses', 'diagnoses',
                'Diagnose every live reservation (the doctor; '
                'administrators)',
                parts.obj({
                    'checked': dict(parts.INT, description=(
                        'How many reservations were diagnosed')),
                    'reservations': dict(
                        parts.array_of(parts.ref('Diagnosis')),
                        description='Those with a mismatch')}),
                [parts.param('kind', schema=parts.enum(findings.KINDS))],
                errors_=(400, 403, 404, 503), description=_SINCE),
        },
    }
