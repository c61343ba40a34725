"""reserve-api: the API on its built-in server (cheroot).

A threaded server with a real listen backlog ([api] server_threads,
listen_backlog); production may as well serve
reserve.wsgi.api:application with gunicorn, uwsgi or mod_wsgi (see
etc/systemd/reserve-api.service). With auth_strategy noauth it listens
only on loopback unless [api] noauth_allow_remote says otherwise.
"""
import time

from cheroot import server as cheroot_server
from cheroot import wsgi
from oslo_config import cfg
from oslo_log import log as logging

from reserve.api import app
from reserve.api import exposure
from reserve.common import service

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


NoAuthExposed = exposure.NoAuthExposed

# The server's own body limit is a backstop just above [api]max_body_bytes
# (which reserve.api.edge enforces with the API's error body): the extra
# room is for the framing of a chunked body, which the server counts too.
_CHUNK_FRAMING = 64 * 1024


def printable(text):
    """``text`` fit for one log line: control characters (newlines, ANSI
    escapes) and non-ASCII characters as Python escapes; quotes and
    backslashes escaped, so nothing the caller sent reads as our own."""
    text = text if isinstance(text, str) else str(text)
    return text.translate(_CONTROL_ESCAPES).encode(
        'ascii', 'backslashreplace').decode('ascii')


_CONTROL_ESCAPES = {code: '\\x%02x' % code
                    for code in list(range(32)) + [127]}
_CONTROL_ESCAPES[ord('"')] = '\\"'
_CONTROL_ESCAPES[ord('\\')] = '\\\\'


class _Request(cheroot_server.HTTPRequest):
    """cheroot's request, its chunked body read through a size check:
    cheroot reads the size line of a chunk whole, however long, before it
    compares anything with its limit."""

    def respond(self):
        if not self.chunked_read:
            return super().respond()
        raw = self.conn.rfile
        self.conn.rfile = cheroot_server.SizeCheckWrapper(
            raw, self.server.max_request_body_size)
        try:
            return super().respond()
        finally:
            self.conn.rfile = raw


class _Connection(cheroot_server.HTTPConnection):
    RequestHandlerClass = _Request


class _AccessLog:
    """One line per request, as the development server always logged;
    what the caller chose (the method, the path) is escaped."""

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        started = time.monotonic()
        answered = {}
        # The socket's peer, before X-Forwarded-For may rewrite it.
        peer = environ.get('REMOTE_ADDR') or '-'

        def logging_start_response(status, headers, exc_info=None):
            answered['status'] = status.split(' ', 1)[0]
            return start_response(status, headers, exc_info)

        try:
            return self.application(environ, logging_start_response)
        finally:
            LOG.info('%s "%s %s" %s %.0f ms', printable(peer),
                     printable(environ.get('REQUEST_METHOD', '')),
                     printable(environ.get('PATH_INFO', '')),
                     answered.get('status', '-'),
                     (time.monotonic() - started) * 1000)


def check_exposure(conf=CONF):
    """NoAuthExposed if noauth would listen beyond loopback."""
    exposure.check_exposure(conf, [conf.api.host_ip])


def make_server(application=None):
    """The built-in server, bound but not yet serving (serve() serves
    until stop())."""
    check_exposure()
    application = application or app.setup_app()
    server = wsgi.Server((CONF.api.host_ip, CONF.api.port),
                         _AccessLog(application),
                         numthreads=CONF.api.server_threads,
                         request_queue_size=CONF.api.listen_backlog,
                         server_name='reserve-api')
    # cheroot's own limits (0, unlimited, by default).
    server.max_request_body_size = CONF.api.max_body_bytes + _CHUNK_FRAMING
    server.max_request_header_size = CONF.api.max_header_bytes
    server.ConnectionClass = _Connection
    server.prepare()
    return server


def main():
    service.prepare()
    try:
        server = make_server()
    except NoAuthExposed as exc:
        LOG.error('%s', exc)
        raise SystemExit(2)
    service.freeze_start_up_objects()
    LOG.info('reserve-api listening on http://%s:%d/', CONF.api.host_ip,
             CONF.api.port)
    try:
        server.serve()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
