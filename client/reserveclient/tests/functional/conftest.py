"""The real ``openstack`` command against a real ``reserve-all-in-one``.

One server per test session, on a free loopback port, with its own state
directory; it runs without authentication, so the CLI runs with
``OS_AUTH_TYPE=none`` and ``OS_RESERVE_URL`` pointing at it. Nova is not
there: bookings of a flavor go to ERROR once the worker tries to build
their lease, which is fine for testing the CLI.

Set RESERVE_FUNCTIONAL_URL to run against a server already running
(noauth) instead of starting one.
"""
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

STARTUP_TIMEOUT = 90
# Live reservations a project may hold on the test server.
QUOTA_RESERVATIONS = 100


def _executable(name):
    """The console script next to this interpreter, else on PATH."""
    local = os.path.join(os.path.dirname(sys.executable), name)
    if os.access(local, os.X_OK):
        return local
    return shutil.which(name)


OPENSTACK = _executable('openstack')
ALL_IN_ONE = _executable('reserve-all-in-one')


def _free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def _answers(url):
    try:
        with urllib.request.urlopen(url + '/', timeout=2) as response:
            return response.status == 200
    except (OSError, urllib.error.URLError):
        return False


class Server:
    """A reserve API to point the CLI at."""

    def __init__(self, url, state_dir=None):
        self.url = url
        self.state_dir = state_dir

    def request(self, method, path, body=None, project='noauth-project',
                roles='admin,member,reader'):
        """A direct HTTP call (noauth headers pick the caller)."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.url + path, data=data, method=method,
            headers={'Content-Type': 'application/json',
                     'X-Project-Id': project, 'X-User-Id': 'functional',
                     'X-Roles': roles})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                text = response.read().decode()
                return response.status, json.loads(text) if text else None
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read().decode() or 'null')

    def has(self, collection):
        """Whether the server has /v1/<collection>."""
        status, _ = self.request('GET', '/v1/%s?limit=1' % collection)
        return status != 404

    def sql(self, statement, *args):
        """Change the server's SQLite database behind its back.

        Without nova a booking cannot stay live (its lease fails at once)
        and a host cannot be enrolled; tests use this to put rows in the
        states the commands under test need.
        """
        if self.state_dir is None:
            pytest.skip('needs the state directory of the server')
        path = os.path.join(self.state_dir, 'reserve.sqlite')
        with sqlite3.connect(path, timeout=30) as conn:
            conn.execute(statement, args)


@pytest.fixture(scope='session')
def server(tmp_path_factory):
    url = os.environ.get('RESERVE_FUNCTIONAL_URL')
    if url:
        yield Server(url.rstrip('/'))
        return
    if not ALL_IN_ONE:
        pytest.skip('reserve-all-in-one is not installed')
    work = tmp_path_factory.mktemp('reserve-aio')
    port = _free_port()
    config = work / 'reserve.conf'
    # A small page size, so that following pages is tested; a reconciler
    # that keeps away from the rows the tests write.
    config.write_text('[api]\nport = %d\nmax_limit = 2\n\n'
                      '[worker]\nreconcile_interval = 3600\n\n'
                      '[quota]\nreservations = %d\ninstance_hours = -1\n'
                      % (port, QUOTA_RESERVATIONS))
    state = work / 'state'
    log = open(work / 'all-in-one.log', 'w')
    process = subprocess.Popen(
        [ALL_IN_ONE, '--config-file', str(config), '--state-dir',
         str(state)], stdout=log, stderr=subprocess.STDOUT,
        cwd=str(work))
    url = 'http://127.0.0.1:%d' % port
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while not _answers(url):
            if process.poll() is not None or time.monotonic() > deadline:
                log.flush()
                raise RuntimeError(
                    'reserve-all-in-one did not start:\n%s' %
                    (work / 'all-in-one.log').read_text()[-4000:])
            time.sleep(0.2)
        yield Server(url, str(state))
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


class CLI:
    """Runs ``openstack`` as a user would, against ``server``."""

    def __init__(self, server):
        self.server = server
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith('OS_')}
        self.env.update(OS_AUTH_TYPE='none', OS_RESERVE_URL=server.url)

    def run(self, *args, check=True, env=None):
        result = subprocess.run(
            [OPENSTACK] + [str(a) for a in args], capture_output=True,
            text=True, env=dict(self.env, **(env or {})), timeout=120)
        if check and result.returncode != 0:
            raise AssertionError(
                'openstack %s failed (%d):\n%s%s' % (
                    ' '.join(map(str, args)), result.returncode,
                    result.stdout, result.stderr))
        return result

    def __call__(self, *args, **kwargs):
        return self.run(*args, **kwargs).stdout

    def json(self, *args, **kwargs):
        return json.loads(self.run(*args, '-f', 'json', **kwargs).stdout)

    def fails(self, *args, env=None):
        result = self.run(*args, check=False, env=env)
        assert result.returncode != 0, result.stdout
        return result.stderr


@pytest.fixture(scope='session')
def cli(server):
    if not OPENSTACK:
        pytest.skip('python-openstackclient is not installed')
    return CLI(server)
