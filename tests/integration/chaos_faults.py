"""What a chaos run (tests/integration/chaos.py) does to the daemons'
world: a proxy that fails a share of the calls to nova and placement,
and restarts of the broker and the database."""
import collections
import http.server
import os
import random
import subprocess
import threading
import time
import urllib.parse

import requests
import sqlalchemy as sa

from tests.integration import cloud

# Hop-by-hop headers a proxy must not pass on.
_HOP = {'connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer',
        'upgrade', 'proxy-authorization', 'proxy-authenticate',
        'content-length', 'content-encoding'}


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # A client killed mid-call resets its connection: expected here.
        pass


class FaultProxy:
    """An HTTP reverse proxy in front of ``target`` failing ``rate`` of
    the calls: half answered 503 (a load balancer's page), half left
    hanging ``hang`` seconds and then dropped without an answer (a
    timeout for the client)."""

    def __init__(self, target, rate, hang, seed=0):
        self.target = target.rstrip('/')
        parsed = urllib.parse.urlsplit(self.target)
        self.base = '%s://%s' % (parsed.scheme, parsed.netloc)
        self.rate, self.hang = rate, hang
        self.random = random.Random(seed)
        self.counts = collections.Counter()
        self._lock = threading.Lock()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'

            def log_message(self, *args):
                pass

            def _any(self):
                proxy.handle(self)

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _any
            do_HEAD = _any

        self.server = _QuietServer(('127.0.0.1', 0), Handler)
        self.server.daemon_threads = True
        self.url = 'http://127.0.0.1:%d%s' % (self.server.server_port,
                                              parsed.path)
        self._thread = threading.Thread(target=self.server.serve_forever,
                                        daemon=True)

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def _fault(self):
        with self._lock:
            self.counts['calls'] += 1
            roll = self.random.random()
        if roll >= self.rate:
            return None
        return '5xx' if roll < self.rate / 2 else 'timeout'

    def handle(self, request):
        length = int(request.headers.get('Content-Length') or 0)
        body = request.rfile.read(length) if length else None
        fault = self._fault()
        if fault == '5xx':
            # As a load balancer in front of the API answers it.
            self._count('answered 503')
            return self._answer(
                request, 503, {'Content-Type': 'text/html'},
                b'<html><body><h1>503 Service Unavailable</h1>No server '
                b'is available to handle this request.</body></html>')
        if fault == 'timeout':
            self._count('timed out')
            time.sleep(self.hang)
            request.close_connection = True
            return
        own = 'http://127.0.0.1:%d' % self.server.server_port
        headers = {k: v for k, v in request.headers.items()
                   if k.lower() not in _HOP and k.lower() != 'host'}
        try:
            answer = requests.request(request.command,
                                      self.base + request.path,
                                      headers=headers, data=body,
                                      timeout=120, allow_redirects=False)
        except requests.RequestException:
            self._count('upstream failed')
            return self._answer(request, 502, {}, b'')
        # Links in the answers (version documents) point at the proxy.
        content = answer.content.replace(self.base.encode(), own.encode())
        self._answer(request, answer.status_code, answer.headers, content)

    def _count(self, what):
        with self._lock:
            self.counts[what] += 1

    @staticmethod
    def _answer(request, status, headers, content):
        request.send_response(status)
        for key, value in headers.items():
            if key.lower() not in _HOP:
                request.send_header(key, value)
        request.send_header('Content-Length', str(len(content)))
        request.end_headers()
        if request.command != 'HEAD':
            request.wfile.write(content)


def restart_broker():
    subprocess.run(['rabbitmqctl', '-q', 'stop_app'], check=True,
                   capture_output=True, timeout=120)
    subprocess.run(['rabbitmqctl', '-q', 'start_app'], check=True,
                   capture_output=True, timeout=120)


def restart_database(url):
    """Restart the MariaDB or PostgreSQL server ``url`` is on (this
    machine's, started as the CI machine starts it)."""
    if url.startswith('mysql'):
        subprocess.run(['mysqladmin', '-uroot', '-h127.0.0.1', 'shutdown'],
                       check=True, capture_output=True, timeout=120)
        cloud.wait_for('the database down', lambda: not os.path.exists(
            '/run/mysqld/mysqld.pid'), 120)
        # By its pid file: the loopback cloud runs a mariadbd of its own.
        subprocess.run(['start-stop-daemon', '--start', '--oknodo',
                        '--background', '--pidfile',
                        '/run/mysqld/mysqld.pid', '--exec',
                        '/usr/sbin/mariadbd'],
                       check=True, capture_output=True, timeout=60)
    else:
        version = subprocess.run(['ls', '/etc/postgresql'], check=True,
                                 capture_output=True, text=True).stdout
        subprocess.run(['pg_ctlcluster', '--skip-systemctl-redirect',
                        version.split()[0], 'main', 'restart'], check=True,
                       capture_output=True, timeout=120)
    engine = sa.create_engine(url)
    try:
        cloud.wait_for('the database back', lambda: _answers(engine), 120)
    finally:
        engine.dispose()


def _answers(engine):
    try:
        with engine.connect() as conn:
            conn.execute(sa.text('SELECT 1'))
        return True
    except sa.exc.SQLAlchemyError:
        return False
