"""libvirt URIs over HTTP: an enrollment never runs a program on the
manager host, never redirects its connection, never shows a local
file."""
import pytest

from tests.functional.api_fixtures import CONF
from tests.functional.hostile.http import assert_http_error
from tests.fixtures.programs import script  # noqa: F401


def _enroll(http, uri, who='admin'):
    return http.post(who, '/v1/hosts', json={'name': 'evil', 'uri': uri})


def _no_hosts(http):
    assert http.get('admin', '/v1/hosts').json()['hosts'] == []


@pytest.mark.parametrize('form', [
    'qemu+ext:///system?command={}',
    'qemu+ssh://gpu-01/system?command={}',
    'qemu+ssh://gpu-01/system?comm%61nd={}',
    'qemu+ssh://gpu-01/system?netcat={}',
    'qemu+tls://gpu-01/system?no_tty=1;proxy={}',
    'qemu+unix:///system?socket={}',
])
def test_a_uri_that_runs_or_redirects_is_refused(served, script, form):
    http = served
    path, marker = script
    response = _enroll(http, form.format(path))
    detail = assert_http_error(response, 400, (
        'This libvirt URI is not allowed',
        'Allowed: qemu+tls://[user@]host[:port]/system',
        '[devices]libvirt_uri_schemes'))
    assert response.json()['errors'][0]['code'] == \
        'reserve.libvirt_uri_not_allowed'
    assert str(path) not in detail
    assert not marker.exists()
    _no_hosts(http)


def test_a_local_file_is_not_shown(http, gpu_api, tmp_path):
    detail = assert_http_error(_enroll(http, 'test:///etc/passwd'), 400,
                               'an absolute path ending in .xml')
    assert 'root:' not in detail
    secret = tmp_path / 'notes.xml'
    secret.write_text('db_password = hunter2\nsecond line\n')
    response = _enroll(http, 'test://%s' % secret)
    assert_http_error(response, 400, 'its answer or definition could not '
                                     'be parsed')
    assert 'hunter2' not in response.text
    assert 'second line' not in response.text
    _no_hosts(http)


def test_members_are_refused_before_any_uri_is_looked_at(served, script):
    http = served
    path, marker = script
    for who in ('member_a', 'reader_all', 'service'):
        response = _enroll(http, 'qemu+ext:///system?command=%s' % path,
                           who=who)
        assert_http_error(response, 403)
    assert not marker.exists()
    _no_hosts(http)


def test_a_host_enrolled_before_the_rules_changed_is_not_reached(
        http, gpu_api):
    host = gpu_api.enroll('t4-host.xml', name='gpu-t4-01')
    # The operator turns the test driver off: the manager refuses to
    # reach the host, and says why.
    CONF.set_override('fake_test_driver', False, group='devices')
    response = http.post('admin', '/v1/hosts/%s/refresh' % host['id'])
    assert_http_error(response, 400, 'fake_test_driver is off')
    shown = http.get('admin', '/v1/hosts/%s' % host['id']).json()['host']
    assert 'fake_test_driver is off' in shown['refresh_error']
    domains = http.get('admin', '/v1/hosts/%s/domains' % host['id'])
    assert_http_error(domains, 400, 'This libvirt URI is not allowed')
