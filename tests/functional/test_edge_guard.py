"""reserve.api.edge and the noauth guard, in-process (webtest and the
middleware itself): the body bounded before anything reads it, no
``_method`` override, the socket's peer rather than the proxy headers."""
import io
import json
import socket

import pytest
import webtest

from reserve.api import edge
from reserve.api import exposure
from reserve.db import hosts as hosts_db
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import CONF
from tests.functional.api_fixtures import make_host

LIMIT = 1024 * 1024


class EndlessStream:
    """A request body of ``size`` bytes that counts what is read of it."""

    def __init__(self, size):
        self.size = size
        self.read_bytes = 0

    def read(self, wanted=-1):
        left = self.size - self.read_bytes
        wanted = left if wanted is None or wanted < 0 else min(wanted, left)
        self.read_bytes += wanted
        return b'x' * wanted


def _call(app, environ):
    answered = {}

    def start_response(status, headers, exc_info=None):
        answered['status'] = int(status.split()[0])
        answered['headers'] = dict(headers)

    body = b''.join(app(environ, start_response))
    return answered['status'], answered['headers'], body


def _environ(stream, **values):
    environ = {'REQUEST_METHOD': 'POST', 'PATH_INFO': '/v1/reservations',
               'QUERY_STRING': '', 'REMOTE_ADDR': '127.0.0.1',
               'CONTENT_TYPE': 'application/json', 'wsgi.input': stream}
    environ.update(values)
    return environ


def _reached():
    seen = []

    def app(environ, start_response):
        seen.append(environ['wsgi.input'].read())
        start_response('204 No Content', [])
        return []
    return app, seen


@pytest.mark.parametrize('framing', [
    {'HTTP_TRANSFER_ENCODING': 'chunked'},
    {'CONTENT_LENGTH': str(300 * 1024 * 1024)}])
def test_a_300_mib_body_is_413_after_at_most_the_limit(api, framing):
    stream = EndlessStream(300 * 1024 * 1024)
    inner, seen = _reached()
    status, headers, body = _call(edge.EdgeGuard(inner),
                                  _environ(stream, **framing))
    assert status == 413 and not seen
    assert stream.read_bytes <= LIMIT + 1
    assert headers['Connection'] == 'close'
    error = json.loads(body)['errors'][0]
    assert error['code'] == 'reserve.body_too_large'
    assert 'max_body_bytes' in error['detail']


def test_a_chunked_body_within_the_limit_reaches_the_app_whole(api):
    sent = b'{"count": 1}' * 1000
    inner, seen = _reached()
    environ = _environ(io.BytesIO(sent), HTTP_TRANSFER_ENCODING='chunked')
    status, _, _ = _call(edge.EdgeGuard(inner), environ)
    assert status == 204 and seen == [sent]
    assert environ['CONTENT_LENGTH'] == str(len(sent))
    assert 'HTTP_TRANSFER_ENCODING' not in environ


def test_a_body_of_exactly_the_limit_is_taken(api):
    inner, seen = _reached()
    status, _, _ = _call(edge.EdgeGuard(inner), _environ(
        io.BytesIO(b'x' * LIMIT), HTTP_TRANSFER_ENCODING='chunked'))
    assert status == 204 and len(seen[0]) == LIMIT


def test_the_whole_stack_answers_413_in_the_error_body(api):  # noqa: F811
    response = api.post('/v1/reservations', b'{}' + b' ' * (2 * LIMIT),
                        headers=dict(ADMIN, **{
                            'Content-Type': 'application/json'}),
                        expect_errors=True)
    assert_error(response, 413, 'reserve.body_too_large', 'max_body_bytes')


@pytest.mark.parametrize('query', ['_method=DELETE', 'x=1&_method=delete',
                                   '_method', '%5Fmethod=DELETE'])
def test_method_override_in_the_query_is_400(api, query):  # noqa: F811
    host = make_host('gpu-t4-01')
    response = api.post('/v1/hosts/gpu-t4-01?%s' % query, headers=ADMIN,
                        expect_errors=True)
    assert_error(response, 400, detail_has='_method')
    assert hosts_db.host_get(admin_context(), host.id).name == 'gpu-t4-01'


def test_method_override_in_a_form_body_is_400(api):  # noqa: F811
    host = make_host('gpu-t4-01')
    response = api.post('/v1/hosts/gpu-t4-01', '_method=DELETE',
                        headers=dict(ADMIN, **{
                            'Content-Type':
                                'application/x-www-form-urlencoded'}),
                        expect_errors=True)
    assert_error(response, 400, detail_has='_method')
    assert hosts_db.host_get(admin_context(), host.id).name == 'gpu-t4-01'


@pytest.fixture
def proxy_headers_parsed(api):  # noqa: F811
    CONF.set_override('enable_proxy_headers_parsing', True,
                      group='oslo_middleware')
    yield api
    CONF.clear_override('enable_proxy_headers_parsing',
                        group='oslo_middleware')


@pytest.mark.parametrize('header', [
    {'X-Forwarded-For': '127.0.0.1'}, {'Forwarded': 'for=127.0.0.1'},
    {'X-Forwarded-For': '::1'}])
def test_proxy_headers_make_no_remote_peer_local(proxy_headers_parsed,
                                                 header):
    response = proxy_headers_parsed.get(
        '/v1/reservations', headers=dict(ADMIN, **header),
        extra_environ={'REMOTE_ADDR': '192.0.2.7'}, expect_errors=True)
    assert_error(response, 403, detail_has='noauth_allow_remote')


def test_a_local_peer_behind_proxy_headers_is_still_local(
        proxy_headers_parsed):
    assert proxy_headers_parsed.get(
        '/v1/reservations', headers=dict(ADMIN, **{
            'X-Forwarded-For': '192.0.2.7'}),
        extra_environ={'REMOTE_ADDR': '127.0.0.1'}).status_int == 200


def test_an_unknown_peer_is_remote(api):  # noqa: F811
    response = api.get('/v1/reservations', headers=ADMIN,
                       extra_environ={'REMOTE_ADDR': ''},
                       expect_errors=True)
    assert_error(response, 403, detail_has='noauth_allow_remote')
    # No REMOTE_ADDR at all (a server that does not know the peer).
    response = webtest.TestApp(api.app).get(
        '/v1/reservations', headers=ADMIN, expect_errors=True)
    assert_error(response, 403, detail_has='noauth_allow_remote')


def test_listening_sockets_of_the_process_are_found():
    with socket.socket() as listener:
        listener.bind(('127.0.0.2', 0))
        listener.listen()
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as bound:
            bound.bind(('127.0.0.3', 0))
            found = exposure.listening_addresses()
    assert '127.0.0.2' in found and '127.0.0.3' not in found


def test_noauth_on_a_socket_beyond_loopback_is_refused(api):  # noqa: F811
    with pytest.raises(exposure.NoAuthExposed, match='0.0.0.0'):
        exposure.check_exposure(CONF, ['127.0.0.1', '0.0.0.0'])
    exposure.check_exposure(CONF, ['127.0.0.1', '::1'])
    CONF.set_override('noauth_allow_remote', True, group='api')
    try:
        exposure.check_exposure(CONF, ['0.0.0.0'])
    finally:
        CONF.clear_override('noauth_allow_remote', group='api')
