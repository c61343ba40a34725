import socket

from oslo_config import cfg
import oslo_messaging
from oslo_messaging import transport as messaging_transport

default_opts = [
    cfg.StrOpt('host',
               default=socket.gethostname(),
               sample_default='<hostname>',
               help='Name of this node, used as the RPC server name and in '
                    'the events a manager takes to run. Every daemon '
                    'of one kind (every reserve-manager, say) needs its own '
                    'host name.'),
    cfg.IntOpt('heartbeat_interval', default=5, min=1,
               help='Seconds between two heartbeats of a daemon in the '
                    'database (table services).'),
    cfg.IntOpt('service_down_time', default=15, min=2,
               help='Seconds without a heartbeat after which a daemon is '
                    'taken for dead: the events a reserve-manager was '
                    'running are then taken over by another one (or by '
                    'itself restarted). Keep it several heartbeat '
                    'intervals long.'),
]


def register_opts(conf):
    conf.register_opts(default_opts)
    # transport_url and friends, so they can be set before any transport
    # exists (the all-in-one's embedded default, tests). These must be
    # oslo.messaging's own Opt objects (as its ConfFixture does), or its
    # later registration would clash.
    conf.register_opts(messaging_transport._transport_opts)
    oslo_messaging.set_transport_defaults('reserve')


def list_opts():
    return {'DEFAULT': default_opts}
