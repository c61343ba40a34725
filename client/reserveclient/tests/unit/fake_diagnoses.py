"""The diagnosis routes of the API double (since microversion 1.3):
``/v1/reservations/{id}/diagnosis``,
``/v1/device-reservations/{id}/diagnosis`` and ``/v1/diagnoses``. Below
1.3 they are 404, as the API answers unknown routes."""
import copy

from reserveclient.tests.unit import fake_rest

ITEMS = {'reservations': 'reservation',
         'device-reservations': 'device_reservation'}


def is_diagnosis(parts):
    return parts[1:2] == ['diagnoses'] or (
        len(parts) == 4 and parts[1] in ITEMS and parts[3] == 'diagnosis')


def answer(api, method, path, parts):
    request = api.requests[-1]
    if api.version() < (1, 3):
        raise fake_rest.ApiError(404, 'The resource %s could not be found.'
                                 % path)
    if method != 'GET':
        raise fake_rest.ApiError(405, 'Method %s is not allowed.' % method,
                                 'reserve.method_not_allowed')
    if parts[1] == 'diagnoses':
        kind = request.params.get('kind')
        found = [d for d in api.diagnoses.values()
                 if d['mismatch'] and kind in (None, d['kind'])]
        return fake_rest.FakeResponse(200, {
            'checked': len(api.diagnoses), 'reservations': found})
    diagnosis = api.diagnoses.get(parts[2])
    if diagnosis is None or diagnosis['kind'] != ITEMS[parts[1]]:
        raise fake_rest.ApiError(404, 'Reservation %s could not be found.'
                                 % parts[2])
    return fake_rest.FakeResponse(200, {'diagnosis': copy.deepcopy(diagnosis)})
