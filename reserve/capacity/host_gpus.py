"""Where a host's GPUs are read from, for flavor bookings.

The capacity model reads only the database: what placement (or, with
[gpu] source = aggregates, the host's nova aggregates) reported last
(recorded on the host row by reserve.capacity.refresh), else the
devices libvirt discovered on the same machine, else the host's
capabilities. The maths is in gpus.py.
"""
from oslo_config import cfg
from oslo_log import log as logging

from reserve.capacity import aggregate_gpus
from reserve.capacity import gpus
from reserve.common import exception
from reserve.db import devices as devices_db
from reserve.devices import states as device_states
from reserve.virt import uris

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


def libvirt_devices(context, host, libvirt_hosts=None):
    """Devices discovered on the libvirt host enrolled for the same
    machine as nova host ``host`` (its URI names the host, as
    qemu+ssh://<host>/system does)."""
    names = {n for n in (host.name, host.service_name) if n}
    if libvirt_hosts is None:
        libvirt_hosts = devices_db.libvirt_hosts(context)
    ids = [h.id for h in libvirt_hosts if uris.host_name(h.uri) in names]
    if not ids:
        return []
    return [d.to_dict() for d in devices_db.device_list(
        context, host_ids=ids, states_in=[device_states.Device.PRESENT])]


def of_host(context, host, placement_gpus=None, libvirt_hosts=None):
    """(gpus, source) of a nova host: ``placement_gpus`` (read live) or
    the ones recorded on the row, else libvirt's devices, else the
    capabilities."""
    if placement_gpus is None:
        placement_gpus = host.gpus or {}
    if placement_gpus:
        # Recorded by the capacity refresh: from its nova aggregates
        # with [gpu] source = aggregates.
        return dict(placement_gpus), (
            aggregate_gpus.SOURCE if aggregate_gpus.enabled() else
            'placement')
    devices = gpus.from_devices(libvirt_devices(context, host,
                                                libvirt_hosts))
    if devices:
        return devices, 'libvirt'
    capabilities = {c.key: c.value for c in host.capabilities}
    aliases = {}
    if capabilities.get('gpu_type') and not aggregate_gpus.enabled():
        try:
            aliases = gpus.parse_aliases(CONF.pci.alias)
        except exception.Invalid as exc:
            LOG.error('Host %s: gpu_type read without aliases: %s',
                      host.name, exc)
    return gpus.host_gpus(
        {}, {}, gpus.from_capabilities(capabilities, aliases))
