"""The representation of a GPU device (/v1/devices)."""
from reserve.api import microversion
from reserve.api.views import statuses
from reserve.common import timeutils
from reserve.devices import selection


def _hostdev_address(pci_address):
    """The <address> of a <hostdev> that passes this function through."""
    domain, bus, rest_ = pci_address.split(':')
    slot, function = rest_.split('.')
    return {'domain': '0x' + domain, 'bus': '0x' + bus, 'slot': '0x' + slot,
            'function': '0x' + function}


def model_of(device):
    return selection.model_name(device.product_name, device.vendor_id,
                                device.product_id)


def device_view(device, state, holder=None, sees_all=False):
    """The API representation of a GPU device; ``holder``: the reservation
    holding it now when the caller may see it."""
    view = {
        'id': device.id,
        'host_id': device.host_id,
        'host': device.host.name if device.host else None,
        'pci_address': device.pci_address,
        'address': _hostdev_address(device.pci_address),
        'node_device': device.name,
        'model': model_of(device),
        'vendor_id': device.vendor_id,
        'vendor_name': device.vendor_name,
        'product_id': device.product_id,
        'product_name': device.product_name,
        'pci_class': device.pci_class,
        'numa_node': device.numa_node,
        'iommu_group': device.iommu_group,
        'iommu_group_members': list(device.iommu_group_members or ()),
        'sriov': {
            'physical_function': device.physical_function,
            'virtual_functions': list(device.virtual_functions or ()),
            'max_virtual_functions': device.max_virtual_functions,
        },
        'mdev_types': list(device.mdev_types or ()),
        'mdevs': list(device.mdevs or ()) if sees_all else [],
        'in_use_by': list(device.in_use_by or ()) if sees_all else [],
        'driver': device.driver,
        'state': statuses.DEVICE.show(state),
        'created_at': timeutils.isoformat(device.created_at),
        'updated_at': timeutils.isoformat(device.updated_at),
    }
    held_by = holder.id if holder is not None else None
    # 1.1 named the holder better beside reservation_id; 1.2 drops that.
    if microversion.serves(microversion.GLOSSARY_NAMES):
        view['device_reservation_id'] = held_by
    if not microversion.serves(microversion.ONE_NAME):
        view['reservation_id'] = held_by
    return view
