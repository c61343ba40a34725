"""Configuration options of reserve, registered on the global CONF."""
from oslo_config import cfg

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

CONF = cfg.CONF

default.register_opts(CONF)
api.register_opts(CONF)
database.register_opts(CONF)
manager.register_opts(CONF)
worker.register_opts(CONF)
notification.register_opts(CONF)
clients.register_opts(CONF)
booking.register_opts(CONF)
quota.register_opts(CONF)
upgrade_levels.register_opts(CONF)
email.register_opts(CONF)
# other projects' boots kept off reservable hosts
fence.register_opts(CONF)
# GPU devices on libvirt hosts
devices.register_opts(CONF)
# GPUs asked by flavors ([pci] alias, [gpu])
gpu.register_opts(CONF)
# spot flavors on idle fenced capacity
spot.register_opts(CONF)
# the de.NBI flavor exporter's URLs
flavor_exporter.register_opts(CONF)
# /metrics of reserve-api
metrics.register_opts(CONF)
