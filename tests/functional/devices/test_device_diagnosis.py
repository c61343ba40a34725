"""GET /v1/device-reservations/{id}/diagnosis through the real lease
manager on a libvirt test:/// host: the host and the domains' XML read
live, drift made by hand on the host, and who may ask."""
from reserve.devices import hosts
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.functional.api_fixtures import READER_A

URL = '/v1/device-reservations'
V13 = {'OpenStack-API-Version': 'reserve 1.3'}
PCI = '0000:17:00.0'


def _reserve(gpu_api, a100):
    rsv = gpu_api.app.post_json(URL, {
        'unit_ids': [gpu_api.device(a100, PCI)], 'domains': ['gpu-vm-2']},
        headers=MEMBER_A).json['device_reservation']
    gpu_api.tick()
    return rsv['id']


def _diagnose(gpu_api, rsv_id, headers=MEMBER_A, **kwargs):
    return gpu_api.app.get('%s/%s/diagnosis' % (URL, rsv_id),
                           headers=dict(headers, **V13), **kwargs)


def _layer(diagnosis, name):
    return next(layer for layer in diagnosis['layers']
                if layer['layer'] == name)


def test_an_active_device_reservation_whose_layers_agree(gpu_api, a100):
    rsv_id = _reserve(gpu_api, a100)
    diagnosis = _diagnose(gpu_api, rsv_id, READER_A).json['diagnosis']
    assert diagnosis['kind'] == 'device_reservation'
    assert diagnosis['mismatch'] is None, diagnosis['mismatch']
    assert [layer['layer'] for layer in diagnosis['layers']] == [
        'booking', 'lease', 'events', 'host', 'domains']
    assert _layer(diagnosis, 'domains')['found']['hostdevs'] == [
        {'kind': 'pci', 'id': PCI, 'domain': 'gpu-vm-2'}]
    assert _layer(diagnosis, 'host')['found']['reachable'] is True


def test_a_hostdev_gone_from_the_domain_xml_is_drift(gpu_api, a100):
    rsv_id = _reserve(gpu_api, a100)
    hosts.connect(a100['uri']).detach('gpu-vm-2', PCI)
    mismatch = _diagnose(gpu_api, rsv_id).json['diagnosis']['mismatch']
    assert (mismatch['layer'], mismatch['symptom'], mismatch['repair']) == (
        'domains', 'drift', 'reserve')
    assert 'missing from the XML of domain gpu-vm-2' in mismatch['problem']
    # The rediscovery the action names puts it back.
    gpu_api.app.post('/v1/hosts/%s/refresh' % a100['id'], headers=ADMIN)
    assert _diagnose(gpu_api, rsv_id).json['diagnosis']['mismatch'] is None


def test_a_changed_gpu_topology_is_a_host_problem(gpu_api, a100):
    rsv_id = _reserve(gpu_api, a100)
    gpu_api.topology_change(a100, lambda text: text.replace(
        "<iommuGroup number='150'>", "<iommuGroup number='151'>", 1))
    mismatch = _diagnose(gpu_api, rsv_id).json['diagnosis']['mismatch']
    assert (mismatch['layer'], mismatch['symptom'], mismatch['repair']) == (
        'host', 'host_failed', 'reserve')
    # Once rediscovered, the reservation waits for an administrator.
    gpu_api.app.post('/v1/hosts/%s/refresh' % a100['id'], headers=ADMIN)
    mismatch = _diagnose(gpu_api, rsv_id).json['diagnosis']['mismatch']
    assert (mismatch['layer'], mismatch['symptom'], mismatch['repair']) == (
        'booking', 'status_reason', 'operator')
    assert 'affirm' in mismatch['action']


def test_another_project_gets_the_404_of_get(gpu_api, a100):
    rsv_id = _reserve(gpu_api, a100)
    shown = gpu_api.app.get('%s/%s' % (URL, rsv_id), headers=MEMBER_B,
                            expect_errors=True)
    diagnosed = _diagnose(gpu_api, rsv_id, MEMBER_B, expect_errors=True)
    assert assert_error(diagnosed, 404)['code'] == \
        assert_error(shown, 404)['code']
    assert_error(_diagnose(gpu_api, 'nope', expect_errors=True), 404)
    # Administrators see every project's.
    assert _diagnose(gpu_api, rsv_id, ADMIN).json['diagnosis'][
        'reservation_id'] == rsv_id


def test_the_doctor_lists_the_device_reservation_with_a_mismatch(gpu_api,
                                                                 a100):
    rsv_id = _reserve(gpu_api, a100)
    doctor = gpu_api.app.get('/v1/diagnoses', {'kind': 'device_reservation'},
                             headers=dict(ADMIN, **V13)).json
    assert doctor == {'checked': 1, 'reservations': []}
    hosts.connect(a100['uri']).detach('gpu-vm-2', PCI)
    doctor = gpu_api.app.get('/v1/diagnoses', headers=dict(ADMIN, **V13)).json
    assert [d['reservation_id'] for d in doctor['reservations']] == [rsv_id]
    assert doctor['reservations'][0]['mismatch']['layer'] == 'domains'
