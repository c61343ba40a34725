"""/v1/hosts/{id}/domain-owners: the records administrators keep for the
domains of libvirt hosts not run by nova."""
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import make_host


def test_record_show_change_and_forget_an_owner(gpu_api):
    host = gpu_api.enroll('a100-host.xml', name='gpu-box-1', owner=None)
    app = gpu_api.app
    url = '/v1/hosts/gpu-box-1/domain-owners'
    assert app.get(url, headers=ADMIN).json == {'domain_owners': []}
    created = app.post_json(url, {'domain': 'gpu-vm-2',
                                  'project_id': 'project-a'},
                            headers=ADMIN)
    assert created.status_int == 201
    assert created.headers['Location'].endswith(
        '/v1/hosts/%s/domain-owners/gpu-vm-2' % host['id'])
    record = created.json['domain_owner']
    assert (record['host_id'], record['domain'], record['project_id']) == (
        host['id'], 'gpu-vm-2', 'project-a')
    # A domain the host does not have yet may be recorded too.
    app.post_json(url, {'domain': 'later-vm', 'project_id': 'project-b'},
                  headers=ADMIN)
    assert_error(app.post_json(url, {'domain': 'gpu-vm-2',
                                     'project_id': 'project-b'},
                               headers=ADMIN, expect_errors=True),
                 409, 'reserve.conflict', 'project-a')
    changed = app.patch_json(url + '/gpu-vm-2', {'project_id': 'project-b'},
                             headers=ADMIN).json['domain_owner']
    assert changed['project_id'] == 'project-b'
    assert app.get(url + '/gpu-vm-2', headers=ADMIN).json[
        'domain_owner']['project_id'] == 'project-b'
    owners = {d['name']: d['owner'] for d in app.get(
        '/v1/hosts/gpu-box-1/domains', headers=ADMIN).json['domains']}
    assert owners['gpu-vm-2'] == 'project-b' and owners['gpu-vm-1'] is None
    assert 'later-vm' not in owners
    assert app.delete(url + '/gpu-vm-2', headers=ADMIN).status_int == 204
    assert_error(app.get(url + '/gpu-vm-2', headers=ADMIN,
                         expect_errors=True), 404, 'reserve.not_found')
    assert_error(app.delete(url + '/gpu-vm-2', headers=ADMIN,
                            expect_errors=True), 404)
    assert [r['domain'] for r in app.get(url, headers=ADMIN).json[
        'domain_owners']] == ['later-vm']


def test_bad_records_are_4xx(gpu_api):
    gpu_api.enroll('a100-host.xml', name='gpu-box-1', owner=None)
    nova = make_host('compute-1.example.org')
    app = gpu_api.app
    url = '/v1/hosts/gpu-box-1/domain-owners'
    for body in ({}, {'domain': 'gpu-vm-2'}, {'project_id': 'p'},
                 {'domain': '', 'project_id': 'p'},
                 {'domain': 'gpu-vm-2', 'project_id': 'a b'},
                 {'domain': 'gpu-vm-2', 'project_id': 'p', 'x': 1}):
        assert_error(app.post_json(url, body, headers=ADMIN,
                                   expect_errors=True), 400)
    assert_error(app.patch_json(url + '/gpu-vm-2', {'project_id': 'p'},
                                headers=ADMIN, expect_errors=True), 404)
    assert_error(app.post_json(
        '/v1/hosts/%s/domain-owners' % nova.name,
        {'domain': 'vm', 'project_id': 'p'}, headers=ADMIN,
        expect_errors=True), 400, 'reserve.host_not_libvirt')
    assert_error(app.get('/v1/hosts/nowhere/domain-owners', headers=ADMIN,
                         expect_errors=True), 404)
    assert_error(app.delete(url, headers=ADMIN, expect_errors=True), 405)
