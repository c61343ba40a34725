"""Microversion 1.2: what a device reservation holds is a device, in
every field, body and quota resource; the earlier versions keep their
names, and each version refuses the other's.

Every answer here is also checked against the OpenAPI description."""
import pytest

from tests.functional import openapi_check
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.devices.reservations import A100
from tests.functional.devices.reservations import URL

HEADER = 'OpenStack-API-Version'
OLD = ('unit_ids', 'units', 'count', 'unit_id', 'unit_reservations',
       'unit_hours')


def _at(version, headers=MEMBER_A):
    return dict(headers, **{HEADER: 'reserve %s' % version})


@pytest.fixture
def checked(gpu_api):
    gpu_api.app = openapi_check.CheckedApp(gpu_api.app)
    return gpu_api


def _keys(value):
    """Every key of a JSON document, at any depth."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def _create(gpu_api, body, version, **kwargs):
    return gpu_api.app.post_json(URL, body, headers=_at(version), **kwargs)


def test_a_reservation_names_its_devices_from_1_2(checked, a100):
    first = checked.device(a100, '0000:17:00.0')
    made = _create(checked, {'device_ids': [first],
                             'domains': ['gpu-vm-2']}, '1.2')
    assert made.status_int == 201
    assert made.headers[HEADER] == 'reserve 1.2'
    rsv = made.json['device_reservation']
    assert rsv['device_ids'] == [first]
    assert [d['id'] for d in rsv['devices']] == [first]
    assert rsv['request'] == {'device_ids': [first]}
    assert [(a['domain'], a['device_id']) for a in rsv['attachments']] == [
        ('gpu-vm-2', first)]
    assert not _keys(rsv) & set(OLD)
    # The same reservation, as 1.0 and 1.1 show it: the old names only.
    for version in ('1.0', '1.1'):
        old = checked.app.get('%s/%s' % (URL, rsv['id']),
                              headers=_at(version)).json[
            'device_reservation']
        assert old['unit_ids'] == [first]
        assert [d['id'] for d in old['units']] == [first]
        assert old['request'] == {'unit_ids': [first]}
        assert [a['unit_id'] for a in old['attachments']] == [first]
        assert not _keys(old) & {'device_ids', 'devices', 'device_count'}
        assert 'device_id' not in old['attachments'][0]
    listed = checked.app.get(URL, headers=_at('1.2')).json[
        'device_reservations']
    assert [r['device_ids'] for r in listed] == [[first]]
    assert not _keys(listed) & set(OLD)


def test_a_count_is_a_device_count_from_1_2(checked, a100):
    rsv = _create(checked, {'device_count': 2, 'model': A100,
                            'numa_local': True}, '1.2').json[
        'device_reservation']
    assert rsv['request'] == {'device_count': 2, 'model': A100,
                              'numa_local': True}
    assert len(rsv['device_ids']) == 2
    old = checked.app.get('%s/%s' % (URL, rsv['id']),
                          headers=_at('1.1')).json['device_reservation']
    assert old['request'] == {'count': 2, 'model': A100,
                              'numa_local': True}


@pytest.mark.parametrize('version,body,field', [
    ('1.2', {'unit_ids': ['x']}, 'unit_ids'),
    ('1.2', {'count': 1, 'model': A100}, 'count'),
    ('1.1', {'device_ids': ['x']}, 'device_ids'),
    ('1.0', {'device_count': 1, 'model': A100}, 'device_count'),
])
def test_each_version_refuses_the_other_names(checked, a100, version, body,
                                              field):
    for dry_run in ('', '?dry_run=true'):
        response = checked.app.post_json(URL + dry_run, body,
                                         headers=_at(version),
                                         expect_errors=True)
        assert_error(response, 400, 'reserve.invalid', [field])


def test_the_error_names_the_fields_of_the_version(checked, a100):
    for version, names in (('1.2', ("'device_ids'", "'device_count'")),
                           ('1.0', ("'unit_ids'", "'count'"))):
        response = _create(checked, {'model': A100}, version,
                           expect_errors=True)
        assert_error(response, 400, 'reserve.invalid', list(names))


def test_a_dry_run_names_the_devices_from_1_2(checked, a100):
    body = {'model': A100, 'domains': ['gpu-vm-2']}
    new = checked.app.post_json(URL + '?dry_run=true',
                                dict(body, device_count=1),
                                headers=_at('1.2')).json['dry_run']
    assert new['fits'] and len(new['device_ids']) == 1
    assert [d['id'] for d in new['devices']] == new['device_ids']
    assert [a['device_id'] for a in new['attachments']] == new['device_ids']
    assert not _keys(new) & set(OLD)
    old = checked.app.post_json(URL + '?dry_run=true', dict(body, count=1),
                                headers=_at('1.0')).json['dry_run']
    assert old['unit_ids'] == new['device_ids']
    assert [a['unit_id'] for a in old['attachments']] == old['unit_ids']
    assert not _keys(old) & {'device_ids', 'devices', 'device_id'}


def test_attach_takes_device_ids_from_1_2(checked, a100):
    rsv = _create(checked, {'device_count': 2, 'model': A100},
                  '1.2').json['device_reservation']
    first, second = rsv['device_ids']
    attach = '%s/%s/attach' % (URL, rsv['id'])
    assert_error(checked.app.post_json(
        attach, {'domain': 'gpu-vm-2', 'unit_ids': [first]},
        headers=_at('1.2'), expect_errors=True), 400, 'reserve.invalid',
        ['unit_ids'])
    assert_error(checked.app.post_json(
        attach, {'domain': 'gpu-vm-2', 'device_ids': [first]},
        headers=_at('1.1'), expect_errors=True), 400, 'reserve.invalid',
        ['device_ids'])
    shown = checked.app.post_json(
        attach, {'domain': 'gpu-vm-2', 'device_ids': [first]},
        headers=_at('1.2')).json['device_reservation']
    assert [a['device_id'] for a in shown['attachments']] == [first]
    shown = checked.app.post_json(
        attach, {'domain': 'gpu-vm-3', 'unit_ids': [second]},
        headers=_at('1.0')).json['device_reservation']
    assert sorted((a['domain'], a['unit_id'])
                  for a in shown['attachments']) == [
        ('gpu-vm-2', first), ('gpu-vm-3', second)]


def test_a_device_names_its_holder_device_reservation_id_alone(checked,
                                                               a100):
    first = checked.device(a100, '0000:17:00.0')
    rsv = _create(checked, {'device_ids': [first]}, '1.2').json[
        'device_reservation']
    checked.tick()
    url = '/v1/devices/%s' % first
    held = {version: checked.app.get(url, headers=_at(version)).json[
        'device'] for version in ('1.0', '1.1', '1.2')}
    assert held['1.0']['reservation_id'] == rsv['id']
    assert 'device_reservation_id' not in held['1.0']
    assert held['1.1']['reservation_id'] == rsv['id']
    assert held['1.1']['device_reservation_id'] == rsv['id']
    assert held['1.2']['device_reservation_id'] == rsv['id']
    assert 'reservation_id' not in held['1.2']
    listed = checked.app.get('/v1/devices', {'host': a100['id']},
                             headers=_at('1.2', ADMIN)).json['devices']
    assert all('reservation_id' not in d for d in listed)
    assert {d['device_reservation_id'] for d in listed} == {rsv['id'],
                                                            None}


def test_availability_names_device_ids_from_1_2(checked, a100):
    new = checked.app.get('/v1/devices/availability',
                          headers=_at('1.2')).json['availability']
    old = checked.app.get('/v1/devices/availability',
                          headers=_at('1.1')).json['availability']
    assert [g['device_ids'] for g in new] == [g['unit_ids'] for g in old]
    assert all('unit_ids' not in g for g in new)
    assert all('device_ids' not in g for g in old)


def test_limits_name_the_device_quotas_from_1_2(checked, a100):
    new = checked.app.get('/v1/limits', headers=_at('1.2')).json[
        'limits']['resources']
    assert set(new) == {'reservations', 'instance_hours',
                        'device_reservations', 'device_hours'}
    for version in ('1.0', '1.1'):
        old = checked.app.get('/v1/limits', headers=_at(version)).json[
            'limits']['resources']
        assert set(old) == {'reservations', 'instance_hours',
                            'unit_reservations', 'unit_hours'}
        assert old['unit_hours'] == new['device_hours']
