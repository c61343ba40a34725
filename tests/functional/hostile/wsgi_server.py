"""reserve-api under gunicorn, as production serves it, for the suites
that must hold on both servers.

``gunicorn_http`` runs ``gunicorn reserve.wsgi.api:application`` with the
shipped etc/reserve/gunicorn.conf.py as a subprocess on a free loopback
port: noauth, a SQLite file of the test's (its schema made here), the
in-memory message bus. The test process points its own database access
at the same file, so rows written with the db modules are the served
ones. Also: ``send_until_answered``, a raw-socket client that stops
sending as soon as the server answers.
"""
import os
import select
import socket
import subprocess
import sys
import textwrap
import time

import pytest
import requests

from reserve.db import api as db_api
from reserve.db import models
from tests.fixtures import database
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import CONF
from tests.functional.hostile.http import free_port
from tests.functional.hostile.http import Http

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
GUNICORN_CONF = os.path.join(REPO, 'etc', 'reserve', 'gunicorn.conf.py')


def _gunicorn():
    return os.path.join(os.path.dirname(sys.executable), 'gunicorn')


def start_gunicorn(tmp_path, bind, extra_conf='', extra_args=()):
    """A gunicorn process serving reserve-api on ``bind``, its log and
    its database URL."""
    database = 'sqlite:///%s' % (tmp_path / 'gunicorn.sqlite')
    conf = tmp_path / 'reserve.conf'
    conf.write_text(textwrap.dedent('''
        [DEFAULT]
        transport_url = kombu+memory:////
        [api]
        auth_strategy = noauth
        [database]
        connection = %s
    ''' % database) + extra_conf)
    log = open(tmp_path / 'gunicorn.log', 'w')
    env = dict(os.environ, RESERVE_CONFIG_FILE=str(conf),
               PYTHONPATH=os.pathsep.join(
                   [REPO] + os.environ.get('PYTHONPATH', '').split(
                       os.pathsep)))
    proc = subprocess.Popen(
        [_gunicorn(), '--config', GUNICORN_CONF, '--bind', bind,
         '--workers', '1', '--threads', '4', '--timeout', '30'] +
        list(extra_args) + ['reserve.wsgi.api:application'],
        stdout=log, stderr=subprocess.STDOUT, env=env, cwd=str(tmp_path),
        start_new_session=True)
    log.close()
    return proc, tmp_path / 'gunicorn.log', database


def stop(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def wait_until_up(proc, url, log):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError('gunicorn exited: %s' % log.read_text())
        try:
            # Any answer: a caller beyond loopback gets 403 with noauth.
            requests.get(url + '/', timeout=10)
            return
        except requests.RequestException:
            pass
        time.sleep(0.2)
    raise AssertionError('gunicorn did not answer: %s' % log.read_text())


@pytest.fixture
def gunicorn_http(api, tmp_path):  # noqa: F811 (the api fixture)
    """reserve-api under gunicorn on a free loopback port (an Http client
    of it, with ``.log`` the server's output). The ``api`` fixture has
    parsed the test's configuration; its database is then this one's."""
    port = free_port()
    proc, log, url = start_gunicorn(tmp_path, '127.0.0.1:%d' % port)
    # The schema, and the test's own database access, on the same file.
    CONF.set_override('connection', url, group='database')
    database.reset_engine()
    models.Base.metadata.create_all(db_api.get_engine())
    client = Http('http://127.0.0.1:%d' % port)
    client.log = log
    try:
        wait_until_up(proc, client.url, log)
        yield client
    finally:
        client.session.close()
        stop(proc)
        database.reset_engine()
        CONF.clear_override('connection', group='database')


def outside_address():
    """An address of this machine beyond loopback, or None."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(('192.0.2.1', 9))  # no packet is sent
        except OSError:
            return None
        address = probe.getsockname()[0]
    return None if address.startswith('127.') else address


def send_until_answered(address, head, pieces, give_up_after):
    """Send ``head`` then ``pieces`` on a raw socket, stopping as soon as
    the server answers. Returns (bytes of pieces sent, the answer)."""
    sent = 0
    answer = b''
    with socket.create_connection(address, timeout=30) as sock:
        sock.sendall(head)
        for piece in pieces:
            readable, _, _ = select.select([sock], [], [], 0)
            if readable or sent > give_up_after:
                break
            try:
                sock.sendall(piece)
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += len(piece)
        sock.settimeout(30)
        try:
            while True:
                data = sock.recv(65536)
                if not data:
                    break
                answer += data
                if b'\r\n\r\n' in answer and _complete(answer):
                    break
        except (ConnectionResetError, socket.timeout):
            pass
    return sent, answer


def _complete(answer):
    head, _, body = answer.partition(b'\r\n\r\n')
    for line in head.split(b'\r\n'):
        name, _, value = line.partition(b':')
        if name.strip().lower() == b'content-length':
            return len(body) >= int(value)
    return False


def status_of(answer):
    return int(answer.split(b' ', 2)[1]) if answer else None
