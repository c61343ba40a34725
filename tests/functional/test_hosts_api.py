"""/v1/hosts through the whole WSGI stack, with a manager answering on
the fake message transport."""
import oslo_messaging as messaging
import pytest

from reserve.db import hosts as hosts_db
from reserve.manager import rpcapi as manager_rpcapi
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import fake_manager  # noqa: F401
from tests.functional.api_fixtures import make_host
from tests.functional.api_fixtures import make_lease
from tests.functional.api_fixtures import MEMBER_A

URL = '/v1/hosts'


def _hosts():
    return hosts_db.host_list(admin_context())


def test_enroll_host(api, fake_manager):
    response = api.post_json(URL, {
        'name': 'gpu1.example.org',
        'capabilities': {'gpu_model': 'a100', 'gpus': 8, 'nvlink': True,
                         'mem_gb': 80.5},
        'reservable': False}, headers=ADMIN)
    assert response.status_int == 201
    host = response.json['host']
    assert response.headers['Location'] == \
        'http://localhost/v1/hosts/%s' % host['id']
    assert host['name'] == 'gpu1.example.org'
    assert host['service_name'] == 'gpu1'
    assert host['kind'] == 'nova'
    assert host['provider_uuid']
    assert (host['vcpus'], host['memory_mb'], host['local_gb']) == \
        (64, 515072, 1800)
    assert host['reservable'] is False
    assert host['capabilities'] == {'gpu_model': 'a100', 'gpus': '8',
                                    'nvlink': 'true', 'mem_gb': '80.5'}
    assert set(host) == {'id', 'name', 'service_name', 'kind',
                         'provider_uuid', 'vcpus', 'memory_mb', 'local_gb',
                         'reservable', 'capabilities', 'created_at',
                         'updated_at', 'uri', 'topology_generation',
                         'refreshed_at', 'refresh_error', 'gpus',
                         'gpu_source'}
    assert host['uri'] is None  # a nova hypervisor, not a libvirt host
    [row] = _hosts()
    assert row.id == host['id']
    assert api.get(response.headers['Location'],
                   headers=ADMIN).json['host'] == host


def test_enroll_unknown_hypervisor_is_400_with_the_manager_message(
        api, fake_manager):
    response = api.post_json(URL, {'name': 'unknown-node'}, headers=ADMIN,
                             expect_errors=True)
    assert_error(response, 400, 'reserve.invalid',
                 'Nova knows no hypervisor named unknown-node')
    assert _hosts() == []


def test_enroll_twice_is_409(api, fake_manager):
    first = api.post_json(URL, {'name': 'gpu1'}, headers=ADMIN).json
    response = api.post_json(URL, {'name': 'gpu1'}, headers=ADMIN,
                             expect_errors=True)
    assert_error(response, 409, 'reserve.host_already_enrolled',
                 ['gpu1', first['host']['id']])
    assert len(_hosts()) == 1


def test_manager_not_answering_is_503(api, monkeypatch):
    def timeout(self, context, values):
        raise messaging.MessagingTimeout('no reply on reserve-manager')

    monkeypatch.setattr(manager_rpcapi.ManagerAPI, 'create_host', timeout)
    response = api.post_json(URL, {'name': 'gpu1'}, headers=ADMIN,
                             expect_errors=True)
    assert_error(response, 503, 'reserve.service_unavailable',
                 ['lease manager did not answer', 'reserve-manager'])
    assert _hosts() == []


@pytest.mark.parametrize('body,words', [
    ({}, ["missing required field 'name'"]),
    ({'name': ''}, ['name']),
    ({'name': 'gpu1', 'extra': 1}, ["unknown field 'extra'"]),
    ({'name': 'gpu1', 'reservable': 'yes'}, ['reservable', 'boolean']),
    ({'name': 'gpu1', 'capabilities': {'gpu': [1]}}, ['capabilities.gpu']),
    ({'name': 'gpu1', 'capabilities': {'gpu': None}}, ['capabilities.gpu']),
    ({'name': 'gpu1', 'capabilities': 'a100'}, ['capabilities']),
])
def test_enroll_invalid_is_400(api, fake_manager, body, words):
    response = api.post_json(URL, body, headers=ADMIN, expect_errors=True)
    assert_error(response, 400, 'reserve.invalid', words)
    assert _hosts() == []


def test_hosts_are_for_admins(api):
    host = make_host()
    path = '%s/%s' % (URL, host.id)
    for response in (
            api.get(URL, headers=MEMBER_A, expect_errors=True),
            api.get(path, headers=MEMBER_A, expect_errors=True),
            api.post_json(URL, {'name': 'gpu2'}, headers=MEMBER_A,
                          expect_errors=True),
            api.patch_json(path, {'reservable': False}, headers=MEMBER_A,
                           expect_errors=True),
            api.delete(path, headers=MEMBER_A, expect_errors=True)):
        assert_error(response, 403, 'reserve.forbidden', 'reserve:host:')
    [row] = _hosts()
    assert row.reservable is True


def test_list_and_show_by_id_or_name(api):
    hosts = [make_host('gpu%d.example.org' % i) for i in range(3)]
    # The API's order: oldest first, then by id.
    hosts.sort(key=lambda h: (h.created_at, h.id))
    listed = api.get(URL, headers=ADMIN).json
    assert [h['id'] for h in listed['hosts']] == [h.id for h in hosts]
    assert listed['links'] == []
    by_name = api.get(URL + '/gpu1.example.org', headers=ADMIN).json
    assert by_name['host']['id'] == \
        [h.id for h in hosts if h.name == 'gpu1.example.org'][0]
    assert by_name['host']['capabilities'] == {'gpu_model': 'a100'}
    page = api.get(URL + '?limit=2', headers=ADMIN).json
    assert [h['id'] for h in page['hosts']] == [h.id for h in hosts[:2]]
    rest = api.get(page['links'][0]['href'], headers=ADMIN).json
    assert [h['id'] for h in rest['hosts']] == [hosts[2].id]
    assert_error(api.get(URL + '/gpu9', headers=ADMIN, expect_errors=True),
                 404, 'reserve.not_found', 'gpu9')


def test_list_filter_reservable(api):
    make_host('gpu1')
    off = make_host('gpu2', reservable=False)
    listed = api.get(URL + '?reservable=false', headers=ADMIN).json
    assert [h['id'] for h in listed['hosts']] == [off.id]
    assert_error(api.get(URL + '?reservable=perhaps', headers=ADMIN,
                         expect_errors=True), 400, 'reserve.invalid',
                 'reservable')


def test_update_capabilities_and_reservable(api):
    host = make_host('gpu1.example.org')
    response = api.patch_json(URL + '/gpu1.example.org', {
        'capabilities': {'gpu_model': None, 'gpus': 4, 'rack': 'r12'},
        'reservable': False}, headers=ADMIN)
    assert response.status_int == 200
    body = response.json['host']
    assert body['capabilities'] == {'gpus': '4', 'rack': 'r12'}
    assert body['reservable'] is False
    row = hosts_db.host_get(admin_context(), host.id)
    assert {c.key: c.value for c in row.capabilities} == \
        {'gpus': '4', 'rack': 'r12'}
    assert row.reservable is False


@pytest.mark.parametrize('body,words', [
    ({}, ['at least one of']),
    ({'name': 'other'}, ["unknown field 'name'"]),
    ({'reservable': 1}, ['reservable']),
    ({'capabilities': {'gpus': {'n': 1}}}, ['capabilities.gpus']),
])
def test_update_invalid_is_400(api, body, words):
    host = make_host()
    response = api.patch_json('%s/%s' % (URL, host.id), body, headers=ADMIN,
                              expect_errors=True)
    assert_error(response, 400, 'reserve.invalid', words)
    row = hosts_db.host_get(admin_context(), host.id)
    assert {c.key: c.value for c in row.capabilities} == \
        {'gpu_model': 'a100'}


def test_delete_host(api):
    host = make_host()
    response = api.delete('%s/%s' % (URL, host.id), headers=ADMIN)
    assert response.status_int == 204
    assert _hosts() == []
    assert_error(api.delete('%s/%s' % (URL, host.id), headers=ADMIN,
                            expect_errors=True), 404)


def test_delete_refused_while_an_allocation_holds_the_host(api):
    host = make_host('gpu1')
    lease = make_lease(host=host)
    rsv_id = lease.reservations[0].id
    response = api.delete(URL + '/gpu1', headers=ADMIN, expect_errors=True)
    assert_error(response, 409, 'reserve.host_in_use', [host.id, rsv_id])
    assert [h.id for h in _hosts()] == [host.id]


@pytest.mark.parametrize('exc,status,code,words', [
    (messaging.RemoteError('HostAlreadyEnrolled',
                           'Host gpu1 is already enrolled as h-1.'),
     409, 'reserve.host_already_enrolled', ['gpu1', 'h-1']),
    (messaging.RemoteError('HypervisorNotFound',
                           'Nova knows no hypervisor named gpu1.'),
     400, 'reserve.invalid', ['no hypervisor named gpu1']),
    (messaging.RemoteError('KeyError', "'hypervisor_hostname'",
                           'Traceback (most recent call last): ...'),
     500, 'reserve.internal_error', ['KeyError']),
    (messaging.MessageDeliveryFailure('broker gone'),
     503, 'reserve.service_unavailable', ['message bus']),
])
def test_manager_errors_as_remote_errors(api, monkeypatch, exc, status,
                                         code, words):
    """A manager whose transport does not rebuild reserve's exceptions
    answers RemoteError; the client still gets the right status."""
    def fail(self, context, values):
        raise exc

    monkeypatch.setattr(manager_rpcapi.ManagerAPI, 'create_host', fail)
    response = api.post_json(URL, {'name': 'gpu1'}, headers=ADMIN,
                             expect_errors=True)
    assert_error(response, status, code, words)
    assert 'most recent call' not in response.text
