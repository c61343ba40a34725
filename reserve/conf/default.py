import socket

from oslo_config import cfg
import oslo_messaging
from oslo_messaging import transport as messaging_transport

default_opts = [
    cfg.StrOpt('host',
               default=socket.gethostname(),
               sample_default='<hostname>',
               help='Name of this node, used as the RPC server name and in '
                    'the claims the manager puts on events.'),
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
