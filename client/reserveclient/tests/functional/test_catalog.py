"""The endpoint from the service catalog, with password authentication.

A minimal identity service (version document and token issue, in this
process) hands ``openstack`` a token whose catalog lists the ``reserve``
service; the reserve all-in-one (noauth) ignores the token. The
interfaces and regions point at different URLs, so that the one used
shows which entry was picked.
"""
import http.server
import json
import threading

from keystoneauth1 import fixture
import pytest

pytestmark = pytest.mark.functional

UNREACHABLE = 'http://127.0.0.1:9'


class _Keystone(http.server.BaseHTTPRequestHandler):

    def log_message(self, *args):
        pass

    def _send(self, status, body, headers=()):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        url = self.server.url
        if self.path.rstrip('/') in ('', '/v3'):
            self._send(200, {'version': {
                'id': 'v3.14', 'status': 'stable',
                'updated': '2020-01-01T00:00:00Z',
                'links': [{'rel': 'self', 'href': url + '/v3/'}],
                'media-types': [{
                    'base': 'application/json',
                    'type': 'application/vnd.openstack.identity-v3+json'}]}})
        else:
            self._send(404, {'error': {'message': 'not here'}})

    def do_POST(self):
        length = int(self.headers.get('Content-Length') or 0)
        self.rfile.read(length)
        if self.path.rstrip('/') != '/v3/auth/tokens':
            self._send(404, {'error': {'message': 'not here'}})
            return
        token = fixture.V3Token(
            user_id='fn-user', user_name='fn', user_domain_id='default',
            project_id='fn-project', project_name='fn',
            project_domain_id='default')
        token.add_role(name='admin')
        identity = token.add_service('identity')
        identity.add_standard_endpoints(
            public=self.server.url + '/v3', region='RegionOne')
        reserve = token.add_service('reserve')
        reserve.add_standard_endpoints(
            public=self.server.reserve_url,
            internal=self.server.reserve_url + '/v1/',
            admin=UNREACHABLE, region='RegionOne')
        reserve.add_standard_endpoints(
            public=UNREACHABLE + '/two', region='RegionTwo')
        self._send(201, token, [('X-Subject-Token', 'fn-token')])


@pytest.fixture(scope='module')
def keystone(server):
    httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Keystone)
    httpd.url = 'http://127.0.0.1:%d' % httpd.server_address[1]
    httpd.reserve_url = server.url
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd.url
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def password_env(keystone):
    return {'OS_AUTH_TYPE': 'password', 'OS_AUTH_URL': keystone + '/v3',
            'OS_USERNAME': 'fn', 'OS_PASSWORD': 'secret',
            'OS_PROJECT_NAME': 'fn', 'OS_USER_DOMAIN_ID': 'default',
            'OS_PROJECT_DOMAIN_ID': 'default', 'OS_IDENTITY_API_VERSION': '3',
            'OS_RESERVE_URL': ''}


def test_public_endpoint_of_the_catalog(cli, password_env):
    assert cli.run('reserve', 'reservation', 'list',
                   env=password_env).returncode == 0


def test_interface_and_region_choose_the_entry(cli, password_env):
    # internal: the same API, registered with a trailing /v1.
    assert cli.run('--os-interface', 'internal', 'reserve', 'reservation',
                   'list', env=password_env).returncode == 0
    err = cli.fails('--os-interface', 'admin', 'reserve', 'reservation',
                    'list', env=password_env)
    assert 'Unable to reach the reserve API at %s' % UNREACHABLE in err
    err = cli.fails('--os-region-name', 'RegionTwo', 'reserve',
                    'reservation', 'list', env=password_env)
    assert 'Unable to reach the reserve API at %s/two' % UNREACHABLE in err
    err = cli.fails('--os-region-name', 'RegionThree', 'reserve',
                    'reservation', 'list', env=password_env)
    assert 'No endpoint for the reserve API' in err
    assert "region 'RegionThree'" in err


def test_override_beats_the_catalog(server, cli, password_env):
    env = dict(password_env, OS_RESERVE_URL=server.url)
    assert cli.run('--os-region-name', 'RegionTwo', 'reserve',
                   'reservation', 'list', env=env).returncode == 0
