"""reserve-all-in-one: the four daemons in one process.

For development and the quick start: SQLite in a state directory, the
in-memory message bus (kombu+memory:////), no authentication, and two
libvirt test:/// GPU hosts from etc/reserve/gpu-hosts (gpu-a100-01 and
gpu-t4-01, completed with mdev creation and hot-plug), enrolled at
start-up, so that GPU devices can be reserved and attached with no cloud.
Their state lives in this process: GET /v1/hosts/{id}/domains/{name}
shows a domain's XML. Any option can still be set in a config file
(--config-file).
"""
import os
import threading

from oslo_config import cfg
from oslo_log import log as logging

from reserve.cmd import api as api_cmd
from reserve.common import context as reserve_context
from reserve.common import secrets
from reserve.common import service
from reserve.db import migration
from reserve.devices import embedded
from reserve.manager import service as manager_service
from reserve.notification import service as notification_service
from reserve.worker import service as worker_service

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

cli_opts = [
    cfg.StrOpt('state-dir', default=os.path.join(os.getcwd(), 'state'),
               sample_default='./state',
               help='Where the all-in-one keeps its SQLite database.'),
]

# GPU hosts of etc/reserve/gpu-hosts the all-in-one enrolls by default.
EMBEDDED_GPU_HOSTS = {'gpu-a100-01': 'a100-host.xml',
                      'gpu-t4-01': 't4-host.xml'}


def set_embedded_defaults(state_dir):
    os.makedirs(state_dir, exist_ok=True)
    CONF.set_default('transport_url', 'kombu+memory:////')
    CONF.set_default('connection', 'sqlite:///%s' %
                     os.path.join(state_dir, 'reserve.sqlite'),
                     group='database')
    CONF.set_default('auth_strategy', 'noauth', group='api')
    # No keystone to read addresses from: the log driver shows the mails
    # a user would get.
    CONF.set_default('address_without_keystone', '%(user_id)s@localhost',
                     group='email')
    CONF.set_default('fake_test_driver', True, group='devices')
    CONF.set_default('embedded_gpu_hosts', EMBEDDED_GPU_HOSTS,
                     group='devices')


class _ApiThread:
    def __init__(self):
        self._server = None
        self._thread = None

    def start(self):
        self._server = api_cmd.make_server()
        self._thread = threading.Thread(target=self._server.serve,
                                        name='reserve-api', daemon=True)
        self._thread.start()

    def stop(self):
        self._server.stop()


def _cloud_line():
    if CONF.nova.auth_type:
        return ('Nova and placement: [nova] and [placement] of the config '
                'file (auth_type %s); enroll their hypervisors with '
                'POST /v1/hosts.' % CONF.nova.auth_type)
    return ('Nova and placement: not configured, so flavor bookings will '
            'end in ERROR (tools/quickstart.sh brings a loopback cloud).')


def banner(gpu_hosts):
    """What the all-in-one prints once it serves; the database URL with
    its password masked (the banner ends up in terminals and logs)."""
    url = 'http://%s:%d' % (CONF.api.host_ip, CONF.api.port)
    return ('reserve is running: API at %s/ (auth: %s), database %s.\n'
            'GPU hosts (libvirt test driver): %s; see %s/v1/devices.\n'
            '%s\n'
            'Point the CLI at it with:\n'
            '  export OS_RESERVE_URL=%s OS_AUTH_TYPE=none\n'
            'Stop with Ctrl-C.' % (url, CONF.api.auth_strategy,
                                   secrets.masked_url(
                                       CONF.database.connection),
                                   ', '.join(gpu_hosts) or 'none', url,
                                   _cloud_line(), url))


def main():
    CONF.register_cli_opts(cli_opts)
    service.prepare()
    set_embedded_defaults(os.path.abspath(CONF.state_dir))
    try:
        api_cmd.check_exposure()
    except api_cmd.NoAuthExposed as exc:
        LOG.error('%s', exc)
        raise SystemExit(2)
    migration.upgrade()
    gpu_hosts = embedded.enroll_hosts(reserve_context.get_admin_context())
    api = _ApiThread()
    services = [manager_service.ManagerService(),
                worker_service.WorkerService(),
                notification_service.NotificationService(), api]
    text = banner(gpu_hosts)
    service.freeze_start_up_objects()
    service.run_in_threads(services,
                           on_started=lambda: print(text, flush=True))
