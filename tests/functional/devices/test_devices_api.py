"""Libvirt hosts on /v1/hosts and their GPUs on /v1/devices, through the
whole WSGI stack with the lease manager behind the fake transport."""
import re

import pytest

from reserve.db import api as db_api
from reserve.db import models
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import make_host
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.functional.api_fixtures import READER_A

HOST_FIELDS = {'id', 'name', 'service_name', 'kind', 'provider_uuid',
               'vcpus', 'memory_mb', 'local_gb', 'reservable',
               'capabilities', 'uri', 'topology_generation', 'refreshed_at',
               'refresh_error', 'created_at', 'updated_at', 'gpus',
               'gpu_source'}
DEVICE_FIELDS = {'id', 'host_id', 'host', 'pci_address', 'address',
                 'node_device', 'model', 'vendor_id', 'vendor_name',
                 'product_id', 'product_name', 'pci_class', 'numa_node',
                 'iommu_group', 'iommu_group_members', 'sriov', 'mdev_types',
                 'mdevs', 'in_use_by', 'driver', 'state', 'reservation_id',
                 'created_at', 'updated_at'}


def _count(table):
    with db_api.get_engine().connect() as conn:
        return len(conn.execute(table.select()).all())


# enrollment ------------------------------------------------------------

def test_enroll_a_libvirt_host(gpu_api):
    host = gpu_api.enroll('a100-host.xml', name='gpu-box-1')
    assert set(host) == HOST_FIELDS
    assert host['kind'] == 'libvirt'
    assert host['name'] == 'gpu-box-1'
    assert host['uri'].startswith('test:///')
    assert re.fullmatch('[0-9a-f]{64}', host['topology_generation'])
    assert host['refreshed_at'] and host['refresh_error'] is None
    shown = gpu_api.app.get('/v1/hosts/gpu-box-1', headers=ADMIN).json
    assert shown['host']['id'] == host['id']


@pytest.mark.parametrize('uri,code,detail', [
    ('test:///no/such/host.xml', 'reserve.libvirt_unreachable',
     'Cannot enroll test:///no/such/host.xml'),
    ('not a uri', 'reserve.invalid', "field 'uri'"),
    ('/etc/hosts', 'reserve.invalid', "field 'uri'"),
])
def test_enroll_bad_uri_is_400_and_writes_nothing(gpu_api, uri, code,
                                                  detail):
    response = gpu_api.app.post_json('/v1/hosts', {'name': 'x', 'uri': uri},
                                     headers=ADMIN, expect_errors=True)
    assert_error(response, 400, code, detail)
    assert _count(models.Host.__table__) == 0


def test_enroll_the_same_uri_twice_is_409(gpu_api):
    host = gpu_api.enroll('t4-host.xml')
    response = gpu_api.app.post_json('/v1/hosts', {
        'name': 'other', 'uri': host['uri']}, headers=ADMIN,
        expect_errors=True)
    assert_error(response, 409, 'reserve.host_already_enrolled',
                 host['name'])


def test_members_cannot_enroll_refresh_or_see_domains(gpu_api):
    host = gpu_api.enroll('t4-host.xml')
    for method, path in (('post', '/v1/hosts/%s/refresh' % host['id']),
                         ('get', '/v1/hosts/%s/domains' % host['id']),
                         ('get', '/v1/hosts/%s/domains/vgpu-vm-1' %
                          host['id'])):
        response = getattr(gpu_api.app, method)(path, headers=MEMBER_A,
                                                expect_errors=True)
        assert_error(response, 403, 'reserve.forbidden')


def test_refresh_reports_what_changed(gpu_api):
    host = gpu_api.enroll('a100-host.xml')
    gpu_api.topology_change(host, lambda text: re.sub(
        r'\s*<device>\s*<name>pci_0000_b1_00_0</name>.*?</device>', '',
        text, count=1, flags=re.S))
    answer = gpu_api.app.post('/v1/hosts/%s/refresh' % host['id'],
                              headers=ADMIN).json
    assert answer['refresh']['missing'] == ['0000:b1:00.0']
    assert answer['refresh']['devices'] == 7
    assert answer['host']['topology_generation'] != \
        host['topology_generation']
    [missing] = gpu_api.devices(host, state='missing')
    assert missing['pci_address'] == '0000:b1:00.0'


def test_refresh_of_a_nova_host_reads_its_capacity(gpu_api):
    # Without a placement provider there is nothing to read: unchanged.
    host = make_host('compute-1.example.org')
    response = gpu_api.app.post('/v1/hosts/%s/refresh' % host.id,
                                headers=ADMIN)
    assert response.json['refresh'] == {'capacity_changed': False}
    assert response.json['host']['name'] == 'compute-1.example.org'


def test_domains_and_their_xml(gpu_api):
    host = gpu_api.enroll('a100-host.xml')
    domains = gpu_api.app.get('/v1/hosts/%s/domains' % host['id'],
                              headers=ADMIN).json['domains']
    by_name = {d['name']: d for d in domains}
    assert sorted(by_name) == ['gpu-vm-1', 'gpu-vm-2', 'gpu-vm-3',
                               'transient-vm']
    assert by_name['gpu-vm-1']['hostdevs'] == [
        {'kind': 'pci', 'id': '0000:ca:00.0', 'live': True,
         'config': True}]
    assert by_name['gpu-vm-3']['running'] is False
    shown = gpu_api.domain(host, 'gpu-vm-1')
    assert "<name>gpu-vm-1</name>" in shown['xml']
    assert "bus='0xca'" in shown['xml'] or 'bus="0xca"' in shown['xml']
    response = gpu_api.app.get('/v1/hosts/%s/domains/nope' % host['id'],
                               headers=ADMIN, expect_errors=True)
    assert_error(response, 404, 'reserve.not_found', 'nope')


# devices ------------------------------------------------------------------

def test_list_and_show_devices(gpu_api):
    host = gpu_api.enroll('a100-host.xml')
    devices = gpu_api.devices(host, headers=READER_A)
    # Four A100s: the virtual functions are shown under their PF.
    assert len(devices) == 4
    first = devices[0]
    assert set(first) == DEVICE_FIELDS
    assert first['pci_address'] == '0000:17:00.0'
    assert first['address'] == {'domain': '0x0000', 'bus': '0x17',
                                'slot': '0x00', 'function': '0x0'}
    assert first['node_device'] == 'pci_0000_17_00_0'
    assert first['model'] == 'GA100 [A100 SXM4 80GB]'
    assert (first['numa_node'], first['iommu_group']) == (0, 22)
    assert first['state'] == 'available'
    pf = next(d for d in devices if d['pci_address'] == '0000:31:00.0')
    assert pf['sriov']['virtual_functions'][0] == '0000:31:00.4'
    assert pf['sriov']['max_virtual_functions'] == 16
    busy = next(d for d in devices if d['pci_address'] == '0000:ca:00.0')
    assert busy['state'] == 'in-use'
    # What holds it is the administrators' business.
    assert busy['in_use_by'] == []
    assert gpu_api.app.get('/v1/devices/%s' % busy['id'],
                           headers=ADMIN).json['device']['in_use_by'] == \
        ['domain gpu-vm-1']
    shown = gpu_api.app.get('/v1/devices/%s' % first['id'],
                            headers=MEMBER_B).json['device']
    assert shown['id'] == first['id']


def test_device_filters(gpu_api):
    a100 = gpu_api.enroll('a100-host.xml')
    t4 = gpu_api.enroll('t4-host.xml')
    app = gpu_api.app
    everything = app.get('/v1/devices', headers=ADMIN).json['devices']
    assert len(everything) == 6
    for model, count in (('A100 SXM4 80GB', 4), ('10de:1eb8', 2),
                         ('tesla t4', 2), ('GA100 [A100 SXM4 80GB]', 4),
                         ('A10', 0)):
        assert len(app.get('/v1/devices', {'model': model},
                           headers=ADMIN).json['devices']) == count, model
    assert len(gpu_api.devices(t4, state='in-use')) == 1
    assert len(gpu_api.devices(a100, state='available')) == 3
    assert len(gpu_api.devices(a100, state='available',
                               include_vfs='true')) == 7
    assert len(gpu_api.devices(a100, numa_node='1')) == 2
    assert app.get('/v1/devices', {'host': 'nowhere'},
                   headers=ADMIN).json['devices'] == []
    page = app.get('/v1/devices', {'limit': 3}, headers=ADMIN).json
    assert len(page['devices']) == 3 and page['links']
    nxt = app.get('/v1/devices', {'limit': 3,
                                  'marker': page['devices'][-1]['id']},
                  headers=ADMIN).json['devices']
    assert nxt[0]['id'] == everything[3]['id']


def test_virtual_functions_are_listed_under_their_physical_function(
        gpu_api):
    host = gpu_api.enroll('a100-host.xml')
    vfs = ['0000:31:00.4', '0000:31:00.5', '0000:31:00.6', '0000:31:00.7']
    listed = gpu_api.devices(host, headers=MEMBER_A)
    assert [d['pci_address'] for d in listed] == [
        '0000:17:00.0', '0000:31:00.0', '0000:b1:00.0', '0000:ca:00.0']
    pf = listed[1]
    assert pf['sriov']['physical_function'] is None
    assert pf['sriov']['virtual_functions'] == vfs
    assert gpu_api.devices(host, include_vfs='false') == gpu_api.devices(
        host)
    everything = gpu_api.devices(host, headers=MEMBER_A, include_vfs='true')
    assert [d['pci_address'] for d in everything] == [
        '0000:17:00.0', '0000:31:00.0'] + vfs + [
        '0000:b1:00.0', '0000:ca:00.0']
    vf = everything[2]
    assert vf['sriov'] == {'physical_function': '0000:31:00.0',
                           'virtual_functions': [],
                           'max_virtual_functions': None}
    assert (vf['state'], vf['reservation_id']) == ('available', None)
    # Shown by id, as any device.
    assert gpu_api.app.get('/v1/devices/%s' % vf['id'],
                           headers=MEMBER_A).json['device'] == vf
    # Filters apply to them as to the other rows.
    on_node_0 = gpu_api.devices(host, include_vfs='1', numa_node='0')
    assert [d['pci_address'] for d in on_node_0] == [
        '0000:17:00.0', '0000:31:00.0'] + vfs


def _listed(gpu_api, host, headers):
    return {d['pci_address']: (d['state'], d['reservation_id'])
            for d in gpu_api.devices(host, headers=headers,
                                     include_vfs='true')}


def test_functions_sharing_hardware_with_a_held_device_are_reserved(gpu_api):
    host = gpu_api.enroll('a100-host.xml')
    app = gpu_api.app
    pf = gpu_api.device(host, '0000:31:00.0')
    rsv = app.post_json('/v1/device-reservations', {'unit_ids': [pf]},
                        headers=MEMBER_A).json['device_reservation']
    gpu_api.tick()
    vfs = ['0000:31:00.4', '0000:31:00.5', '0000:31:00.6', '0000:31:00.7']
    # The audience sees which reservation holds them...
    mine = _listed(gpu_api, host, MEMBER_A)
    assert mine['0000:31:00.0'] == ('reserved', rsv['id'])
    assert {mine[vf] for vf in vfs} == {('reserved', rsv['id'])}
    assert mine['0000:17:00.0'] == ('available', None)
    # ...the others only that they are taken (the PF itself is hidden).
    theirs = _listed(gpu_api, host, MEMBER_B)
    assert '0000:31:00.0' not in theirs
    assert {theirs[vf] for vf in vfs} == {('reserved', None)}
    vf = gpu_api.device(host, '0000:31:00.4')
    shown = app.get('/v1/devices/%s' % vf, headers=MEMBER_B).json['device']
    assert (shown['state'], shown['reservation_id']) == ('reserved', None)
    assert [d['pci_address'] for d in gpu_api.devices(
        host, headers=MEMBER_B, state='available', include_vfs='true')] == [
        '0000:17:00.0', '0000:b1:00.0']
    # Released, they are available again.
    app.delete('/v1/device-reservations/%s' % rsv['id'], headers=MEMBER_A)
    gpu_api.tick()
    assert {s for s, _ in _listed(gpu_api, host, MEMBER_B).values()} == {
        'available', 'in-use'}


def test_a_held_virtual_function_makes_its_physical_function_reserved(
        gpu_api):
    host = gpu_api.enroll('a100-host.xml')
    vf = gpu_api.device(host, '0000:31:00.4')
    rsv = gpu_api.app.post_json('/v1/device-reservations', {
        'unit_ids': [vf]}, headers=MEMBER_A).json['device_reservation']
    gpu_api.tick()
    listed = _listed(gpu_api, host, MEMBER_A)
    assert listed['0000:31:00.4'] == ('reserved', rsv['id'])
    assert listed['0000:31:00.0'] == ('reserved', rsv['id'])
    # Its sibling virtual functions share no hardware with it.
    assert listed['0000:31:00.5'] == ('available', None)
    shown = gpu_api.app.get('/v1/devices/%s' % gpu_api.device(
        host, '0000:31:00.0'), headers=MEMBER_B).json['device']
    assert (shown['state'], shown['reservation_id']) == ('reserved', None)


@pytest.mark.parametrize('params,detail', [
    ({'state': 'busy'}, "query parameter 'state'"),
    ({'numa_node': '-1'}, "query parameter 'numa_node'"),
    ({'numa_node': 'zero'}, "query parameter 'numa_node'"),
    ({'include_vfs': 'maybe'}, "query parameter 'include_vfs'"),
    ({'colour': 'green'}, "unknown query parameter 'colour'"),
    ({'marker': 'nope'}, 'marker nope not found'),
])
def test_bad_device_queries_are_400(gpu_api, params, detail):
    gpu_api.enroll('t4-host.xml')
    response = gpu_api.app.get('/v1/devices', params, headers=ADMIN,
                               expect_errors=True)
    assert_error(response, 400, 'reserve.invalid', detail)


def test_unknown_device_is_404(gpu_api):
    response = gpu_api.app.get('/v1/devices/nope', headers=MEMBER_A,
                               expect_errors=True)
    assert_error(response, 404, 'reserve.not_found', 'Device nope')


def test_availability_counts_devices_that_go_together(gpu_api):
    gpu_api.enroll('a100-host.xml')
    gpu_api.enroll('t4-host.xml')
    answer = gpu_api.app.get('/v1/devices/availability',
                             headers=MEMBER_A).json
    assert (answer['start'], answer['end']) == (None, None)
    by_model = {a['model']: a for a in answer['availability']}
    # 17, 31 (whose VFs then cannot go with it) and b1; ca is in use.
    assert by_model['GA100 [A100 SXM4 80GB]']['free'] == 3
    assert len(by_model['GA100 [A100 SXM4 80GB]']['unit_ids']) == 7
    assert by_model['TU104GL [Tesla T4]']['free'] == 1
    numa = gpu_api.app.get('/v1/devices/availability', {
        'numa_local': 'true', 'model': 'A100 SXM4 80GB'},
        headers=MEMBER_A).json['availability']
    assert [(a['numa_node'], a['free']) for a in numa] == [(0, 2), (1, 1)]
    vgpu = gpu_api.app.get('/v1/devices/availability', {
        'mdev_type': 'nvidia-230'}, headers=MEMBER_A).json['availability']
    assert [a['free'] for a in vgpu] == [1]
    response = gpu_api.app.get('/v1/devices/availability',
                               {'start': '2030-01-01T00:00:00Z'},
                               headers=MEMBER_A, expect_errors=True)
    assert_error(response, 400, 'reserve.invalid', "go together")


def test_availability_writes_nothing(gpu_api):
    gpu_api.enroll('a100-host.xml')
    engine = db_api.get_engine()

    def dump():
        with engine.connect() as conn:
            return [sorted(map(repr, conn.execute(t.select()).all()))
                    for t in models.Base.metadata.sorted_tables]

    before = dump()
    gpu_api.app.get('/v1/devices/availability', {
        'start': '2030-01-01T00:00:00Z', 'end': '2030-01-02T00:00:00Z'},
        headers=MEMBER_A)
    assert dump() == before
    assert admin_context() is not None


def test_a_held_device_names_its_device_reservation_from_1_1(gpu_api):
    host = gpu_api.enroll('a100-host.xml')
    app = gpu_api.app
    device = gpu_api.device(host, '0000:17:00.0')
    rsv = app.post_json('/v1/device-reservations', {'unit_ids': [device]},
                        headers=MEMBER_A).json['device_reservation']
    url = '/v1/devices/%s' % device
    old = app.get(url, headers=MEMBER_A).json['device']
    assert old['reservation_id'] == rsv['id']
    assert 'device_reservation_id' not in old
    new = app.get(url, headers=dict(
        MEMBER_A, **{'OpenStack-API-Version': 'reserve 1.1'})).json['device']
    assert new == dict(old, device_reservation_id=rsv['id'])
