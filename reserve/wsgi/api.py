"""WSGI entry point of reserve-api.

    gunicorn reserve.wsgi.api:application
    uwsgi --module reserve.wsgi.api:application

The configuration is read from the file named by ``RESERVE_CONFIG_FILE``
(several may be given, separated by commas) or else from the standard
places (``~/.reserve/``, ``/etc/reserve/reserve.conf``...). The server's own
command line is never parsed: it belongs to gunicorn or uwsgi.

With ``[api] auth_strategy = noauth`` the application is not built when
the process listens beyond loopback (the sockets the WSGI server bound
before loading it) unless ``[api] noauth_allow_remote``; each request
from a peer beyond loopback gets 403 either way. etc/reserve/gunicorn.conf.py
sets gunicorn's limits on the request line and headers.
"""
import os
import threading

from oslo_config import cfg
from oslo_log import log as logging

from reserve.api import app as api_app
from reserve.api import exposure
from reserve.common import service

CONFIG_FILE_ENV = 'RESERVE_CONFIG_FILE'

LOG = logging.getLogger(__name__)

_LOCK = threading.Lock()
_APPLICATION = None


def config_files():
    """The configuration files to read.

    Without the environment variable: the standard oslo.config search for
    reserve.conf, named after reserve-api rather than after the WSGI
    server's program (gunicorn.conf is not ours).
    """
    value = os.environ.get(CONFIG_FILE_ENV, '').strip()
    if not value:
        return cfg.find_config_files(project='reserve', prog='reserve-api')
    return [path.strip() for path in value.split(',') if path.strip()]


def init_application():
    """Parse the configuration, set up logging, build the application.

    The message transport (reserve.common.rpc.init) is created on first
    use, by the first request that casts or calls, so that importing this
    module needs no message bus and GET requests never touch it.
    """
    global _APPLICATION
    with _LOCK:
        if _APPLICATION is None:
            # An explicit empty argv: sys.argv is the WSGI server's.
            service.prepare(argv=[], default_config_files=config_files())
            LOG.info('reserve-api WSGI application starting (auth '
                     'strategy %s)', service.CONF.api.auth_strategy)
            try:
                exposure.check_exposure(service.CONF,
                                        exposure.listening_addresses())
            except exposure.NoAuthExposed as exc:
                LOG.error('%s', exc)
                raise
            _APPLICATION = api_app.setup_app()
            service.freeze_start_up_objects()
        return _APPLICATION


# Built once per process when the WSGI server imports this module; the lock
# keeps concurrent first imports (threaded servers) from building it twice.
application = init_application()
