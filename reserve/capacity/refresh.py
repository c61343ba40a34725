"""A nova host's capacity record, read from placement outside any lock.

What the capacity model counts on a host is recorded on its row, so no
decision ever waits on placement:

* what can be allocated of VCPU, MEMORY_MB and DISK_GB on its compute
  node provider ((total - reserved) x allocation_ratio) and of the GPU
  classes anywhere in its provider tree;
* what consumers other than reserve's reserved servers use of it
  (foreign_usage): instances that were on the host before it was
  enrolled, or that landed there while it was not fenced. A reserved
  server is a consumer that also holds a CUSTOM_RESERVATION_* class:
  its usage is already counted by the allocations; a spot server
  (reserve.spot) holds the spot class and borrows what they count.

With [gpu] source = aggregates the GPUs are not placement's but the
metadata of the host's nova aggregates (reserve.capacity.aggregate_gpus,
the de.NBI flavor exporter's convention).

The record is read at enrollment, by the manager every
[manager]capacity_refresh_interval seconds, and on demand (POST
/v1/hosts/{id}/refresh); it is written only when it changed.
"""
from oslo_config import cfg
from oslo_log import log as logging

from reserve.capacity import aggregate_gpus
from reserve.capacity import gpus
from reserve.common import exception
from reserve.common import nova as nova_api
from reserve.common import placement as placement_api
from reserve.common import timeutils
from reserve.db import hosts as hosts_db

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

_ROOT_CLASSES = {'VCPU': 'vcpus', 'MEMORY_MB': 'memory_mb',
                 'DISK_GB': 'disk_gb'}


def _usable(inventory):
    return max(0, int((inventory['total'] - inventory.get('reserved', 0)) *
                      inventory.get('allocation_ratio', 1.0)))


def read(placement, provider_uuid, aggregate_host_gpus=None):
    """The capacity record of the host whose compute node provider is
    ``provider_uuid``: {vcpus, memory_mb, local_gb, gpus,
    foreign_usage}. CloudError when placement does not answer.
    ``aggregate_host_gpus``: the host's GPUs from its aggregates, which
    stand for placement's with [gpu] source = aggregates."""
    classes = gpus.configured_classes(CONF)
    tree = placement.get_tree(provider_uuid)
    inventories = {p['uuid']: placement.get_inventories(p['uuid'])
                   for p in tree}
    allocations = {p['uuid']: placement.get_provider_allocations(p['uuid'])
                   for p in tree}
    root = inventories.get(provider_uuid, {})
    record = {column: _usable(root[rc]) if rc in root else 0
              for rc, column in _ROOT_CLASSES.items()}
    record['local_gb'] = record.pop('disk_gb')
    if aggregate_gpus.enabled():
        record['gpus'] = dict(aggregate_host_gpus or {})
    else:
        record['gpus'] = gpus.from_inventories(list(inventories.values()),
                                               classes)
    # Who is reserve's: a consumer holding a reservation class anywhere,
    # or the spot class (a spot server borrows what the allocations
    # count; it goes when they need it).
    reserved = {consumer for found in allocations.values()
                for consumer, resources in found.items()
                if any(rc.startswith(placement_api.RESERVATION_CLASS_PREFIX)
                       or rc == CONF.spot.resource_class
                       for rc in resources)}
    foreign = {'vcpus': 0, 'memory_mb': 0, 'disk_gb': 0, 'gpus': {}}
    for uuid, found in allocations.items():
        for consumer, resources in found.items():
            if consumer in reserved:
                continue
            for rc, amount in resources.items():
                if uuid == provider_uuid and rc in _ROOT_CLASSES:
                    foreign[_ROOT_CLASSES[rc]] += amount
                elif gpus.is_gpu_class(rc, classes):
                    foreign['gpus'][rc] = foreign['gpus'].get(rc, 0) + amount
    record['foreign_usage'] = foreign
    return record


def gpus_by_host(nova=None):
    """{host: GPUs} from the nova aggregates with [gpu] source =
    aggregates (CloudError when nova does not answer), else None."""
    if not aggregate_gpus.enabled():
        return None
    nova = nova or nova_api.NovaClient()
    return aggregate_gpus.by_host(nova.list_aggregates())


def refresh(context, host, placement, nova=None, by_host=None):
    """Read ``host``'s record and write it if it changed; returns True if
    it did. Placement (or, with [gpu] source = aggregates, nova) failing
    leaves the last record (logged). ``by_host``: gpus_by_host(), when
    the caller has it."""
    if host.kind != 'nova' or not host.provider_uuid:
        return False
    try:
        if by_host is None:
            by_host = gpus_by_host(nova)
        record = read(placement, host.provider_uuid,
                      aggregate_gpus.of_host(by_host or {},
                                             host.service_name, host.name))
    except exception.CloudError as exc:
        LOG.warning('Capacity of host %s not read, the last record stands:'
                    ' %s', host.name, exc)
        return False
    current = {key: getattr(host, key) for key in record}
    if current == record:
        return False
    record['capacity_read_at'] = timeutils.utcnow()
    hosts_db.host_update(context, host.id, record)
    if current['foreign_usage'] != record['foreign_usage']:
        LOG.info('Host %s: other consumers use %s', host.name,
                 record['foreign_usage'])
    return True


def refresh_all(context, placement, nova=None):
    """Refresh every enrolled nova host; returns how many changed. With
    [gpu] source = aggregates the aggregates are listed once for all."""
    try:
        by_host = gpus_by_host(nova)
    except exception.CloudError as exc:
        LOG.warning('Aggregates not read, the last capacity records '
                    'stand: %s', exc)
        return 0
    changed = 0
    for host in hosts_db.host_list(context):
        changed += refresh(context, host, placement, by_host=by_host)
    return changed
