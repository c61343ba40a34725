"""The topology generation of a GPU host: a fingerprint of its GPU layout.

A device reservation records the generation it was written against; when
the host's generation moves, the reservation needs review (the GPU it
names may have been moved, removed or re-partitioned).

What counts as topology, per GPU function: its PCI address and class,
vendor and product ids, IOMMU group (and who shares it), NUMA node, its
SR-IOV role (PF address; VF addresses; VF capacity) and the mdev types it
offers (id, name, device API). A change in any of these, or a GPU added
or removed, is a new generation.

What does not, on purpose, because it moves in normal operation:

* ``available_instances`` and the mediated devices themselves: reserve
  creates and removes mdevs for its own leases, which must not put every
  reservation of the host under review;
* the bound host driver: libvirt rebinds a managed hostdev to vfio-pci
  while a guest holds it;
* vendor and product names: they come from the host's pci.ids database,
  which a package update rewrites without any hardware change.

The generation is the SHA-256 of a canonical JSON description (sorted
keys, GPUs sorted by address), as 64 hex digits; ``v1`` in the description
lets a future format change be told apart.
"""
import hashlib
import json

FORMAT = 'v1'


def describe(gpus):
    """The canonical description the generation is computed from."""
    return {
        'format': FORMAT,
        'gpus': [{
            'address': gpu.address,
            'class': gpu.pci_class,
            'vendor_id': gpu.vendor_id,
            'product_id': gpu.product_id,
            'iommu_group': gpu.iommu_group,
            'iommu_group_members': sorted(gpu.iommu_group_members),
            'numa_node': gpu.numa_node,
            'physical_function': gpu.physical_function,
            'virtual_functions': sorted(gpu.virtual_functions),
            'max_virtual_functions': gpu.max_virtual_functions,
            'mdev_types': sorted(
                [t.id, t.name, t.device_api] for t in gpu.mdev_types),
        } for gpu in sorted(gpus, key=lambda g: g.address)],
    }


def generation(gpus):
    """The host's topology generation for these GPUs (hex SHA-256)."""
    canonical = json.dumps(describe(gpus), sort_keys=True,
                           separators=(',', ':'))
    return hashlib.sha256(canonical.encode('utf-8')).hexdigest()
