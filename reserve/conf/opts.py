"""Entry points for oslo-config-generator."""
from oslo_config import cfg
from oslo_db import options as db_options
from oslo_log import log
import oslo_messaging

from reserve.conf import api
from reserve.conf import booking
from reserve.conf import clients
from reserve.conf import database
from reserve.conf import default
from reserve.conf import devices
from reserve.conf import email
from reserve.conf import fence
from reserve.conf import flavor_exporter
from reserve.conf import gpu
from reserve.conf import manager
from reserve.conf import metrics
from reserve.conf import notification
from reserve.conf import quota
from reserve.conf import spot
from reserve.conf import upgrade_levels
from reserve.conf import worker

_MODULES = (default, api, database, manager, worker, notification, clients,
            email, booking, quota, fence, devices, gpu, spot,
            flavor_exporter, metrics, upgrade_levels)


def list_opts():
    """Options of reserve itself, by group, for the sample config."""
    grouped = {}
    for module in _MODULES:
        for group, opts in module.list_opts().items():
            grouped.setdefault(group, []).extend(opts)
    return [(group, opts) for group, opts in grouped.items()]


def set_defaults(conf=None):
    """Defaults reserve changes in the libraries it uses."""
    conf = conf or cfg.CONF
    db_options.set_defaults(conf, connection=database.DEFAULT_CONNECTION)
    log.set_defaults(default_log_levels=log.get_default_log_levels() + [
        'stevedore=WARN', 'kombu=WARN', 'amqp=WARN', 'pecan=WARN'])
    oslo_messaging.set_transport_defaults('reserve')
