"""A host's GPUs from the metadata of its nova aggregates ([gpu] source =
aggregates): the convention of the de.NBI flavor exporter.

GPU hypervisors are grouped in aggregates by the type and number of their
GPUs, each aggregate saying gpu='True', gpu_count='<n>' and
gpu_type='<alias>'; a flavor asks pci_passthrough:alias='<alias>:<n>'. A
host's GPUs are then {'alias:<gpu_type>': gpu_count} (gpus.from_capabilities
reads the same three keys), and the flavor's demand is counted against
the same key (gpus.configured_demand). Pure functions, no I/O: the
capacity refresh lists the aggregates and records the result on the host
row, so no decision waits on nova.
"""
from oslo_config import cfg

from reserve.capacity import gpus

CONF = cfg.CONF

SOURCE = 'aggregates'


def enabled(conf=None):
    return (conf or CONF).gpu.source == SOURCE


def by_host(aggregates):
    """{host: GPUs} of every host of a GPU aggregate. A host in two
    aggregates of the same gpu_type has those GPUs once (the larger
    count); GPUs of different types add up."""
    found = {}
    for aggregate in aggregates:
        declared = gpus.from_capabilities(
            getattr(aggregate, 'metadata', None) or {})
        if not declared:
            continue
        for host in getattr(aggregate, 'hosts', None) or ():
            mine = found.setdefault(host, {})
            for key, count in declared.items():
                mine[key] = max(mine.get(key, 0), count)
    return found


def of_host(found, service_name, name=None):
    """The GPUs ``found`` (by_host) gives the host of compute service
    ``service_name`` (what aggregates name), or else of hypervisor
    ``name``."""
    for name in (service_name, name):
        if name and name in found:
            return dict(found[name])
    return {}
