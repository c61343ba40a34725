"""The slots a catalogue flavor really has: its GPUs cap them.

An administrator gives a catalogue flavor ``slots``; when its nova flavor
asks for GPUs, no more instances can run at once than the enrolled hosts'
GPUs hold, so the calendar (admission, free-slots, availability) offers
min(slots, that). Both numbers come from the database: the flavor's GPU
demand is read from nova when the entry is written, the hosts' GPUs when
they are enrolled and selected (plugins.host_gpus), so a calendar request
never waits on nova or placement.

The cap counts each flavor against all the hosts' GPUs; flavors sharing
GPUs are kept apart by host selection, which counts every reservation.
"""
from oslo_config import cfg
from oslo_log import log as logging

from reserve.common import nova
from reserve.db import api as db_api
from reserve.db import devices as devices_db
from reserve.plugins import gpus
from reserve.plugins import host_gpus

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


def read_demand(nova_flavor_id, nova_client=None):
    """The GPUs one instance of nova flavor ``nova_flavor_id`` asks for,
    or None when nova cannot tell now (the cap is then left off until the
    entry is written again)."""
    client = nova_client or nova.NovaClient()
    try:
        flavor = client.get_flavor(nova_flavor_id)
        if flavor is None:
            LOG.warning('Nova has no flavor %s: its GPUs are unknown',
                        nova_flavor_id)
            return None
        return gpus.configured_demand(client.flavor_extra_specs(flavor),
                                      CONF)
    except Exception as exc:  # best effort: the entry is written anyway
        LOG.warning('Cannot read the GPUs of nova flavor %s: %s',
                    nova_flavor_id, exc)
        return None


def _nova_hosts(context):
    return [h for h in db_api.host_list(context, reservable=True)
            if h.kind == 'nova']


def _gpus_of_hosts(context):
    """The GPUs of each reservable nova host, read once for a request."""
    libvirt_hosts = devices_db.libvirt_hosts(context)
    return [host_gpus.of_host(context, host, libvirt_hosts=libvirt_hosts)[0]
            for host in _nova_hosts(context)]


def _hold(gpus_of_hosts, demand):
    return sum(gpus.fit(found, {}, demand) or 0 for found in gpus_of_hosts)


def hosts_hold(context, demand):
    """How many instances needing ``demand`` the reservable nova hosts'
    GPUs hold at once."""
    return _hold(_gpus_of_hosts(context), demand)


def slots_of(context, flavors):
    """{flavor id: slots the calendar offers} for ``flavors``."""
    result, gpus_of_hosts = {}, None
    for flavor in flavors:
        if not flavor.gpus:
            result[flavor.id] = flavor.slots
            continue
        if gpus_of_hosts is None:
            gpus_of_hosts = _gpus_of_hosts(context)
        result[flavor.id] = min(flavor.slots,
                                _hold(gpus_of_hosts, flavor.gpus))
    return result


def slots(context, flavor):
    """The slots the calendar offers for ``flavor``."""
    return slots_of(context, [flavor])[flavor.id]


def view(context, flavor):
    """The GPU fields of a flavor's API view."""
    if flavor.gpus is None:
        return {'gpus': None, 'gpu_slots': None}
    if not flavor.gpus:
        return {'gpus': {}, 'gpu_slots': None}
    return {'gpus': dict(flavor.gpus),
            'gpu_slots': hosts_hold(context, flavor.gpus)}
