"""The built-in server of reserve-api and the all-in-one: a threaded
server with a real listen backlog, and noauth kept on loopback."""
import concurrent.futures
import datetime
import socket
import threading

import pytest
import requests

from reserve.api import auth
from reserve.common import timeutils
from reserve.cmd import api as api_cmd
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import casts  # noqa: F401
from tests.functional.api_fixtures import CONF
from tests.functional.api_fixtures import iso
from tests.functional.api_fixtures import make_flavor


def _free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


@pytest.fixture
def server(api):  # noqa: F811
    CONF.set_override('port', _free_port(), group='api')
    built = api_cmd.make_server()
    thread = threading.Thread(target=built.serve, daemon=True)
    thread.start()
    yield 'http://127.0.0.1:%d' % CONF.api.port
    built.stop()
    CONF.clear_override('port', group='api')


def test_sixty_clients_at_once_all_get_an_answer(server):
    def get(_):
        return requests.get(server + '/v1', timeout=30).status_code

    with concurrent.futures.ThreadPoolExecutor(60) as pool:
        answers = list(pool.map(get, range(60)))
    assert answers == [200] * 60


def test_thirty_clients_booking_and_cancelling_on_sqlite_get_no_5xx(
        server, casts):  # noqa: F811
    """The embedded default under ordinary use: thirty clients each
    booking and cancelling in a loop against the built-in server on
    SQLite (WAL, busy timeout, one capacity lock) get answers, never a
    500 ("database is locked")."""
    flavor = make_flavor('loop.small', slots=10 ** 4)
    headers = {'X-User-Id': 'alice', 'X-Project-Id': 'project-loop',
               'X-Roles': 'member,reader'}
    CONF.set_override('reservations', -1, group='quota')
    CONF.set_override('instance_hours', -1, group='quota')

    def loop(client):
        answers = []
        with requests.Session() as session:
            for i in range(8):
                start = timeutils.utcnow() + datetime.timedelta(
                    hours=24 + client * 10 + i)
                made = session.post(server + '/v1/reservations', json={
                    'flavor_id': flavor.id, 'start': iso(start),
                    'end': iso(start + datetime.timedelta(hours=1))},
                    headers=headers, timeout=60)
                answers.append(made.status_code)
                if made.status_code == 201:
                    answers.append(session.delete(
                        server + '/v1/reservations/%s' %
                        made.json()['reservation']['id'],
                        headers=headers, timeout=60).status_code)
        return answers

    try:
        with concurrent.futures.ThreadPoolExecutor(30) as pool:
            answers = [a for found in pool.map(loop, range(30))
                       for a in found]
    finally:
        CONF.clear_override('reservations', group='quota')
        CONF.clear_override('instance_hours', group='quota')
    assert sorted(set(answers)) == [201, 204], answers
    assert answers.count(201) == 240


def test_noauth_answers_only_loopback_callers(api):  # noqa: F811
    response = api.get('/v1/reservations',
                       extra_environ={'REMOTE_ADDR': '192.0.2.7'},
                       expect_errors=True)
    assert_error(response, 403, detail_has='noauth_allow_remote')
    assert api.get('/v1/reservations', extra_environ={
        'REMOTE_ADDR': '127.0.0.1'}).status_int == 200
    assert api.get('/v1/reservations', extra_environ={
        'REMOTE_ADDR': '::1'}).status_int == 200


def test_noauth_does_not_listen_beyond_loopback(api):  # noqa: F811
    CONF.set_override('host_ip', '0.0.0.0', group='api')
    try:
        with pytest.raises(api_cmd.NoAuthExposed,
                           match='noauth_allow_remote'):
            api_cmd.make_server()
        CONF.set_override('noauth_allow_remote', True, group='api')
        api_cmd.check_exposure()  # allowed explicitly
    finally:
        CONF.clear_override('host_ip', group='api')
        CONF.clear_override('noauth_allow_remote', group='api')


@pytest.mark.parametrize('address,loopback', [
    ('127.0.0.1', True), ('127.8.9.1', True), ('::1', True),
    ('localhost', True), ('', False), (None, False), ('0.0.0.0', False),
    ('192.0.2.7', False), ('::', False), ('example.org', False)])
def test_loopback_addresses(address, loopback):
    assert auth.is_loopback(address) is loopback
