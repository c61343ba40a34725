"""openstack reserve reservation diagnose, device reservation diagnose
and doctor against the API double: microversion 1.3 for these calls
only, the layers as a table with the mismatch after it, the whole
diagnosis in json."""
import pytest

from reserveclient import exceptions as rc_exceptions
from reserveclient.osc.v1 import diagnoses
from reserveclient.osc.v1 import reservations
from reserveclient.v1 import diagnoses as diagnosis_calls

HEADER = 'OpenStack-API-Version'


def _diagnosis(api, rid, kind='reservation', broken=True):
    problem = {'problem': 'host gpu1 is not in the aggregate',
               'symptom': 'drift', 'repair': 'reserve',
               'action': 'the periodic capacity task makes it again'}
    layers = [
        {'layer': 'booking', 'expected': {'status': ['ACTIVE']},
         'found': {'status': 'ACTIVE'}, 'ok': True, 'problems': []},
        {'layer': 'aggregate', 'expected': {'hosts': ['gpu1']},
         'found': {'hosts': []}, 'ok': not broken,
         'problems': [problem] if broken else []}]
    api.diagnoses[rid] = {
        'reservation_id': rid, 'kind': kind,
        'checked_at': '2030-01-01T00:00:00Z', 'layers': layers,
        'mismatch': dict(problem, layer='aggregate') if broken else None}
    return api.diagnoses[rid]


def test_reservation_diagnose_table(runner, api):
    _diagnosis(api, 'rsv-1')
    out = runner.output(diagnoses.DiagnoseReservation, ['rsv-1'])
    assert 'aggregate' in out
    assert 'drift (reserve): host gpu1 is not in the aggregate' in out
    assert '{"hosts": ["gpu1"]}' in out
    assert out.rstrip().endswith(
        'Repair (reserve): the periodic capacity task makes it again')
    assert 'First mismatch: aggregate layer, drift' in out
    request = api.requests[-1]
    assert request.url == '/v1/reservations/rsv-1/diagnosis'
    assert request.headers[HEADER] == 'reserve 1.3'


def test_reservation_diagnose_json_is_the_whole_diagnosis(runner, api):
    expected = _diagnosis(api, 'rsv-1')
    assert runner.json(diagnoses.DiagnoseReservation, ['rsv-1']) == expected


def test_a_diagnosis_without_mismatch_says_so(runner, api):
    _diagnosis(api, 'rsv-2', broken=False)
    out = runner.output(diagnoses.DiagnoseReservation, ['rsv-2'])
    assert 'No mismatch' in out


def test_device_reservation_diagnose(runner, api):
    expected = _diagnosis(api, 'dr-1', kind='device_reservation')
    assert runner.json(diagnoses.DiagnoseDeviceReservation,
                       ['dr-1']) == expected
    assert api.requests[-1].url == \
        '/v1/device-reservations/dr-1/diagnosis'
    # Not a booking's id.
    with pytest.raises(rc_exceptions.NotFound):
        runner.take(diagnoses.DiagnoseReservation, ['dr-1'])


def test_doctor_rows_and_json(runner, api):
    _diagnosis(api, 'rsv-1')
    _diagnosis(api, 'rsv-2', broken=False)
    _diagnosis(api, 'dr-1', kind='device_reservation')
    out = runner.output(diagnoses.Doctor, [])
    assert 'Checked 3 reservations.' in out
    rows = runner.json(diagnoses.Doctor, [])
    assert [(r['ID'], r['Kind'], r['Layer'], r['Symptom']) for r in rows] \
        == [('rsv-1', 'reservation', 'aggregate', 'drift'),
            ('dr-1', 'device_reservation', 'aggregate', 'drift')]
    assert rows[0]['Action'] == 'the periodic capacity task makes it again'
    assert [r['ID'] for r in runner.json(
        diagnoses.Doctor, ['--kind', 'device_reservation'])] == ['dr-1']
    assert api.requests[-1].params == {'kind': 'device_reservation'}
    assert api.requests[-1].headers[HEADER] == 'reserve 1.3'


def test_the_other_commands_speak_the_version_negotiated(runner, api):
    api.max_version = '1.3'
    _diagnosis(api, 'rsv-1')
    runner.take(diagnoses.DiagnoseReservation, ['rsv-1'])
    runner.take(reservations.ListReservation, [])
    assert api.requests[-1].headers[HEADER] == 'reserve 1.3'
    runner.pin('1.0')
    runner.take(diagnoses.DiagnoseReservation, ['rsv-1'])
    assert api.requests[-1].headers[HEADER] == 'reserve 1.3'
    runner.take(reservations.ListReservation, [])
    assert api.requests[-1].headers[HEADER] == 'reserve 1.0'


def test_a_server_before_1_3_answers_404(runner, api, monkeypatch):
    _diagnosis(api, 'rsv-1')
    monkeypatch.setattr(diagnosis_calls, 'VERSION', '1.2')
    with pytest.raises(rc_exceptions.NotFound):
        runner.take(diagnoses.DiagnoseReservation, ['rsv-1'])
