"""Limits before anything reads, on both servers (the built-in one and
gunicorn): a body is read at most [api]max_body_bytes + 1 bytes before
the answer, chunked or not and without a token; a huge header is
refused; ``_method`` turns no POST into a DELETE; proxy headers make no
remote caller local for the noauth guard."""
import threading
import time
import urllib.parse

from cheroot import wsgi
import pytest

from reserve.api import app as api_app
from reserve.cmd import api as api_cmd
from reserve.db import hosts as hosts_db
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import CONF
from tests.functional.api_fixtures import make_host
from tests.functional.hostile.http import assert_http_error
from tests.functional.hostile.http import free_port
from tests.functional.hostile.http import Http
from tests.functional.hostile import wsgi_server
from tests.functional.hostile.wsgi_server import send_until_answered
from tests.functional.hostile.wsgi_server import status_of

MIB = 1024 * 1024
HUGE = 300 * MIB
PIECE = 64 * 1024


@pytest.fixture(params=['builtin', 'gunicorn'])
def server(request):
    """The API over HTTP on each server."""
    return request.getfixturevalue(
        'http' if request.param == 'builtin' else 'gunicorn_http')


def _address(server):
    parsed = urllib.parse.urlsplit(server.url)
    return parsed.hostname, parsed.port


def _chunks(total):
    chunk = b'%x\r\n%s\r\n' % (PIECE, b'x' * PIECE)
    for _ in range(total // PIECE):
        yield chunk


def test_a_300_mib_chunked_body_without_token_is_refused_early(server):
    head = (b'POST /v1/reservations HTTP/1.1\r\nHost: reserve\r\n'
            b'Content-Type: application/json\r\n'
            b'Transfer-Encoding: chunked\r\n\r\n')
    started = time.monotonic()
    sent, answer = send_until_answered(_address(server), head,
                                       _chunks(HUGE), give_up_after=64 * MIB)
    took = time.monotonic() - started
    # Answered while the client was still sending: the server read about
    # max_body_bytes (1 MiB), plus what the sockets' buffers hold.
    assert status_of(answer) == 413, answer[:500]
    assert sent < 32 * MIB, sent
    assert took < 20, took
    assert b'max_body_bytes' in answer
    # And the server goes on answering.
    assert server.get('member_a', '/v1/reservations').status_code == 200


def test_a_300_mib_declared_body_is_refused_before_it_is_sent(server):
    head = (b'POST /v1/reservations HTTP/1.1\r\nHost: reserve\r\n'
            b'Content-Type: application/json\r\n'
            b'Content-Length: %d\r\n\r\n' % HUGE)
    sent, answer = send_until_answered(
        _address(server), head, (b'x' * PIECE for _ in range(HUGE // PIECE)),
        give_up_after=64 * MIB)
    assert status_of(answer) == 413, answer[:500]
    assert sent < 32 * MIB, sent


def test_a_huge_header_is_refused(server):
    head = (b'GET /v1/reservations HTTP/1.1\r\nHost: reserve\r\n'
            b'X-Padding: ')
    sent, answer = send_until_answered(
        _address(server), head, (b'a' * PIECE for _ in range(HUGE // PIECE)),
        give_up_after=64 * MIB)
    assert status_of(answer) in (400, 413, 431), answer[:500]
    assert sent < 32 * MIB, sent
    assert server.get('member_a', '/v1/reservations').status_code == 200


@pytest.mark.parametrize('query', ['_method=DELETE', 'a=1&_method=delete'])
def test_method_override_deletes_nothing(server, query):
    host = make_host('gpu-t4-01')
    response = server.post('admin', '/v1/hosts/gpu-t4-01?' + query)
    assert_http_error(response, 400, '_method')
    form = server.post('admin', '/v1/hosts/gpu-t4-01', data='_method=DELETE',
                       headers={'Content-Type':
                                'application/x-www-form-urlencoded'})
    assert_http_error(form, 400, '_method')
    assert hosts_db.host_get(admin_context(), host.id).name == 'gpu-t4-01'


# A caller beyond loopback: this machine's own address beyond loopback,
# the server bound there as a port forward or a container's NAT would
# expose it.
OUTSIDE = wsgi_server.outside_address()
needs_outside = pytest.mark.skipif(OUTSIDE is None,
                                   reason='no address beyond loopback')
SPOOFS = [{'X-Forwarded-For': '127.0.0.1'}, {'Forwarded': 'for=127.0.0.1'}]


@pytest.fixture
def proxy_headers_parsed(api):  # noqa: F811
    CONF.set_override('enable_proxy_headers_parsing', True,
                      group='oslo_middleware')
    yield
    CONF.clear_override('enable_proxy_headers_parsing',
                        group='oslo_middleware')


@needs_outside
@pytest.mark.parametrize('spoof', SPOOFS)
def test_builtin_server_proxy_headers_make_no_caller_local(
        api, proxy_headers_parsed, spoof):  # noqa: F811
    # Bound beyond loopback despite noauth (make_server would refuse).
    port = free_port()
    server = wsgi.Server((OUTSIDE, port),
                         api_cmd._AccessLog(api_app.setup_app()),
                         numthreads=2)
    server.prepare()
    threading.Thread(target=server.serve, daemon=True).start()
    try:
        client = Http('http://%s:%d' % (OUTSIDE, port))
        response = client.get('admin', '/v1/reservations', headers=spoof)
        assert_http_error(response, 403, 'noauth_allow_remote')
    finally:
        server.stop()


@needs_outside
def test_gunicorn_does_not_serve_noauth_beyond_loopback(api, tmp_path):
    proc, log, _ = wsgi_server.start_gunicorn(
        tmp_path, '%s:%d' % (OUTSIDE, free_port()))
    try:
        proc.wait(60)
    finally:
        wsgi_server.stop(proc)
    assert proc.returncode != 0
    assert 'noauth_allow_remote' in log.read_text()


@needs_outside
def test_gunicorn_proxy_headers_make_no_caller_local(api, tmp_path):
    # Loaded before gunicorn binds (--preload), the application cannot
    # see where it will listen: the per-request guard still holds.
    port = free_port()
    proc, log, _ = wsgi_server.start_gunicorn(
        tmp_path, '%s:%d' % (OUTSIDE, port),
        extra_conf='[oslo_middleware]\nenable_proxy_headers_parsing = true\n',
        extra_args=['--preload'])
    client = Http('http://%s:%d' % (OUTSIDE, port))
    try:
        wsgi_server.wait_until_up(proc, client.url, log)
        for spoof in SPOOFS:
            response = client.get('admin', '/v1/reservations',
                                  headers=spoof)
            assert_http_error(response, 403, 'noauth_allow_remote')
    finally:
        client.session.close()
        wsgi_server.stop(proc)


def test_an_endless_chunk_size_line_is_refused_early(server):
    head = (b'POST /v1/reservations HTTP/1.1\r\nHost: reserve\r\n'
            b'Content-Type: application/json\r\n'
            b'Transfer-Encoding: chunked\r\n\r\n')
    sent, answer = send_until_answered(
        _address(server), head, (b'f' * PIECE for _ in range(HUGE // PIECE)),
        give_up_after=64 * MIB)
    assert status_of(answer) in (400, 413), answer[:500]
    assert sent < 32 * MIB, sent


def test_a_chunked_body_within_the_limit_is_read_whole(server):
    body = b'{"flavor_id": "no-such-flavor", "padding": "%s"}' % (
        b'p' * (512 * 1024))

    def pieces():
        for start in range(0, len(body), 1000):
            yield body[start:start + 1000]

    response = server.post('member_a', '/v1/reservations', data=pieces(),
                           headers={'Content-Type': 'application/json'})
    # Read and decoded: refused for what it says, not for its size.
    assert response.status_code == 400, response.text
    assert 'max_body_bytes' not in response.text
