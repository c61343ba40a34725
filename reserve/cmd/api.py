"""reserve-api: the API on its built-in server (cheroot).

A threaded server with a real listen backlog ([api] server_threads,
listen_backlog); production may as well serve
reserve.wsgi.api:application with gunicorn, uwsgi or mod_wsgi (see
etc/systemd/reserve-api.service). With auth_strategy noauth it listens
only on loopback unless [api] noauth_allow_remote says otherwise.
"""
import time

from cheroot import wsgi
from oslo_config import cfg
from oslo_log import log as logging

from reserve.api import app
from reserve.api import auth
from reserve.common import service

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


class NoAuthExposed(Exception):
    """noauth on an address other than loopback, not allowed."""


class _AccessLog:
    """One line per request, as the development server always logged."""

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        started = time.monotonic()
        answered = {}

        def logging_start_response(status, headers, exc_info=None):
            answered['status'] = status.split(' ', 1)[0]
            return start_response(status, headers, exc_info)

        try:
            return self.application(environ, logging_start_response)
        finally:
            LOG.info('%s "%s %s" %s %.0f ms', environ.get('REMOTE_ADDR'),
                     environ.get('REQUEST_METHOD'),
                     environ.get('PATH_INFO'), answered.get('status', '-'),
                     (time.monotonic() - started) * 1000)


def check_exposure(conf=CONF):
    if (conf.api.auth_strategy == 'noauth' and
            not conf.api.noauth_allow_remote and
            not auth.is_loopback(conf.api.host_ip)):
        raise NoAuthExposed(
            'refusing to listen on %s with [api] auth_strategy = noauth: '
            'any caller could act as an administrator. Listen on '
            '127.0.0.1, use keystone, or set [api] noauth_allow_remote = '
            'true.' % conf.api.host_ip)


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
