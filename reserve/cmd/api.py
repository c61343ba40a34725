"""reserve-api: the API on a development server.

Production serves reserve.wsgi.api:application with a real WSGI server
(uwsgi, gunicorn or mod_wsgi); see etc/systemd/reserve-api.service.
"""
import socketserver
from wsgiref import simple_server

from oslo_config import cfg
from oslo_log import log as logging

from reserve.api import app
from reserve.common import service

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


class ThreadingWSGIServer(socketserver.ThreadingMixIn,
                          simple_server.WSGIServer):
    daemon_threads = True


class _QuietHandler(simple_server.WSGIRequestHandler):
    def log_message(self, fmt, *args):
        LOG.info('%s %s', self.address_string(), fmt % args)


def make_server(application=None):
    application = application or app.setup_app()
    return simple_server.make_server(CONF.api.host_ip, CONF.api.port,
                                     application,
                                     server_class=ThreadingWSGIServer,
                                     handler_class=_QuietHandler)


def main():
    service.prepare()
    server = make_server()
    LOG.info('reserve-api listening on http://%s:%d/', CONF.api.host_ip,
             CONF.api.port)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
