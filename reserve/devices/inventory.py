"""What a libvirt host has, read through its connection, as device rows.

``discover`` reads everything in one go (GPUs, mediated devices, which
domain holds what, the topology generation); ``device_rows`` turns it
into the columns of each GPU's row. A GPU is in use when something that
reserve did not attach holds it, or hardware it shares (its IOMMU group,
its SR-IOV physical or virtual functions), or when it carries mediated
devices reserve did not create: such a device cannot be reserved.
"""
import dataclasses

from reserve.common import timeutils
from reserve.db import device_reservations as device_reservations_db
from reserve.db import devices as devices_db
from reserve.devices import states


@dataclasses.dataclass(frozen=True)
class Discovery:
    generation: str
    gpus: tuple
    mdevs: tuple
    # {(kind, id): {domain names}} over every domain, running or defined
    holders: dict


def discover(conn):
    """Everything reserve needs to know of the host behind ``conn``."""
    holders = {}
    for domain in conn.domains():
        for hostdev in conn.attached(domain.name):
            holders.setdefault(hostdev.key, set()).add(domain.name)
    return Discovery(generation=conn.topology_generation(),
                     gpus=tuple(conn.gpus()), mdevs=tuple(conn.mdevs()),
                     holders=holders)


def _ours(attachments):
    """{(kind, id): {domains}} of what reserve attached, and its mdevs."""
    held, mdevs = {}, set()
    for attachment in attachments:
        if attachment.kind == states.Attachment.MDEV:
            key = (states.Attachment.MDEV, attachment.mdev_uuid)
            mdevs.add(attachment.mdev_uuid)
        else:
            key = (states.Attachment.PCI, attachment.device.pci_address)
        held.setdefault(key, set()).add(attachment.domain)
    return held, mdevs


def _foreign(discovery, ours, key):
    return sorted(discovery.holders.get(key, set()) - ours.get(key, set()))


def _in_use_by(gpu, discovery, ours, our_mdevs):
    found = ['domain %s' % d for d in
             _foreign(discovery, ours, (states.Attachment.PCI, gpu.address))]
    related = [a for a in gpu.iommu_group_members if a != gpu.address]
    related += [gpu.physical_function] if gpu.physical_function else []
    related += list(gpu.virtual_functions)
    for address in related:
        found += ['domain %s (through %s)' % (d, address) for d in
                  _foreign(discovery, ours, (states.Attachment.PCI, address))]
    for mdev in discovery.mdevs:
        if mdev.parent_address == gpu.address and mdev.uuid not in our_mdevs:
            found.append('mdev %s' % mdev.uuid)
    return found


def device_rows(discovery, attachments):
    """{pci_address: Device columns} of the discovered GPUs, given the
    attachments reserve made on the host (state ATTACHED)."""
    ours, our_mdevs = _ours(attachments)
    rows = {}
    for gpu in discovery.gpus:
        rows[gpu.address] = {
            'name': gpu.name,
            'pci_address': gpu.address,
            'pci_class': gpu.pci_class,
            'vendor_id': gpu.vendor_id,
            'product_id': gpu.product_id,
            'vendor_name': gpu.vendor_name,
            'product_name': gpu.product_name,
            'numa_node': gpu.numa_node,
            'iommu_group': gpu.iommu_group,
            'iommu_group_members': list(gpu.iommu_group_members),
            'physical_function': gpu.physical_function,
            'virtual_functions': list(gpu.virtual_functions),
            'max_virtual_functions': gpu.max_virtual_functions,
            'mdev_types': [{'id': t.id, 'name': t.name,
                            'available_instances': t.available_instances,
                            'device_api': t.device_api}
                           for t in gpu.mdev_types],
            'mdevs': [{'uuid': m.uuid, 'type_id': m.type_id}
                      for m in discovery.mdevs
                      if m.parent_address == gpu.address],
            'in_use_by': _in_use_by(gpu, discovery, ours, our_mdevs),
            'driver': gpu.driver,
            'state': states.Device.PRESENT,
        }
    return rows


def sync(context, host, conn):
    """Discover the host and write what was found: its device rows and
    its topology generation. Returns what changed, as a dict."""
    found = discover(conn)
    attached = device_reservations_db.attachments_of_host(
        context, host.id, list(states.Attachment.MAY_BE_ATTACHED))
    rows = device_rows(found, attached)
    added, missing = devices_db.devices_sync(context, host.id, rows)
    devices_db.host_record_refresh(context, host.id, {
        'topology_generation': found.generation,
        'refreshed_at': timeutils.utcnow(), 'refresh_error': None})
    return {'devices': len(rows), 'added': added, 'missing': missing,
            'previous_generation': host.topology_generation,
            'topology_generation': found.generation}
