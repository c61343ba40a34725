"""GPUs and mediated devices, read from libvirt's node device XML.

A GPU is a PCI function of base class 0x03 (display controller: 0x0300
VGA, 0x0302 3D controller such as the data-centre cards, 0x0380 other).
Everything is read from the ``<capability type='pci'>`` element libvirt
fills from sysfs: ids and names (names come from the host's pci.ids),
``<iommuGroup>``, ``<numa node=>`` (absent on one-node hosts),
``<capability type='phys_function'|'virt_functions'>`` for SR-IOV and
``<capability type='mdev_types'>`` for the vGPU types the host driver
offers on that function.
"""
import dataclasses

from reserve.virt import hostdev

DISPLAY_CLASS = 0x03


@dataclasses.dataclass(frozen=True)
class MdevType:
    id: str                    # 'nvidia-222'
    name: str                  # 'GRID T4-1B' (None when the driver has none)
    available_instances: int
    device_api: str            # 'vfio-pci'


@dataclasses.dataclass(frozen=True)
class GPU:
    """One PCI function as libvirt describes it (``gpus()`` keeps those of
    display class; the same shape serves any function)."""
    name: str                  # node device name, 'pci_0000_3b_00_0'
    address: str               # '0000:3b:00.0'
    pci_class: str             # '0x030200'
    vendor_id: str             # '0x10de'
    product_id: str            # '0x1eb8'
    vendor_name: str
    product_name: str
    iommu_group: int           # None without an IOMMU
    iommu_group_members: tuple  # addresses sharing the group, itself too
    numa_node: int             # None on one-node hosts
    physical_function: str     # the PF's address for an SR-IOV VF
    virtual_functions: tuple   # the VFs' addresses for an SR-IOV PF
    max_virtual_functions: int  # sriov_totalvfs; None unless SR-IOV
    mdev_types: tuple          # MdevType, sorted by id
    driver: str                # host driver bound ('nvidia', 'vfio-pci')

    @property
    def is_gpu(self):
        return is_display_class(self.pci_class)

    def mdev_type(self, type_id):
        for mdev_type in self.mdev_types:
            if mdev_type.id == type_id:
                return mdev_type
        return None

    def to_dict(self):
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class Mdev:
    name: str                  # 'mdev_<uuid>_0000_3b_00_0'
    uuid: str
    type_id: str
    parent: str                # the parent's node device name
    parent_address: str        # '0000:3b:00.0'
    iommu_group: int

    def to_dict(self):
        return dataclasses.asdict(self)


def is_display_class(pci_class):
    return pci_class is not None and int(pci_class, 16) >> 16 == DISPLAY_CLASS


def parse_pci_device(xml):
    """A GPU from the XML of a PCI node device."""
    root = hostdev.parse_xml(xml)
    cap = root.find("capability[@type='pci']")
    if cap is None:
        raise ValueError('%s is not a PCI device' % root.findtext('name'))
    address = hostdev.PciAddress(
        *(hostdev.xml_number(cap.findtext(part, '0'))
          for part in ('domain', 'bus', 'slot', 'function')))
    vendor = cap.find('vendor')
    product = cap.find('product')
    group = cap.find('iommuGroup')
    numa = cap.find('numa')
    numa_node = int(numa.get('node')) if numa is not None else None
    pf = cap.find("capability[@type='phys_function']/address")
    vfs_cap = cap.find("capability[@type='virt_functions']")
    vfs = [hostdev.PciAddress.from_xml(a)
           for a in (vfs_cap.findall('address') if vfs_cap is not None
                     else ())]
    max_vfs = vfs_cap.get('maxCount') if vfs_cap is not None else None
    pci_class = cap.findtext('class')
    return GPU(
        name=root.findtext('name'),
        address=str(address),
        pci_class=_hex_id(pci_class, 6) if pci_class else None,
        vendor_id=_hex_id(vendor.get('id'), 4),
        product_id=_hex_id(product.get('id'), 4),
        vendor_name=(vendor.text or '').strip() or None,
        product_name=(product.text or '').strip() or None,
        iommu_group=int(group.get('number')) if group is not None else None,
        iommu_group_members=tuple(sorted(
            str(hostdev.PciAddress.from_xml(a))
            for a in group.findall('address'))) if group is not None else (),
        numa_node=numa_node if numa_node is None or numa_node >= 0 else None,
        physical_function=(str(hostdev.PciAddress.from_xml(pf))
                           if pf is not None else None),
        virtual_functions=tuple(str(a) for a in sorted(vfs)),
        max_virtual_functions=int(max_vfs) if max_vfs else None,
        mdev_types=tuple(sorted(
            (_mdev_type(t) for t in
             cap.findall("capability[@type='mdev_types']/type")),
            key=lambda t: t.id)),
        driver=root.findtext('driver/name'),
    )


def _mdev_type(element):
    return MdevType(
        id=element.get('id'),
        name=element.findtext('name'),
        available_instances=int(element.findtext('availableInstances', '0')),
        device_api=element.findtext('deviceAPI'))


def parse_mdev(xml):
    """An Mdev from the XML of a mediated node device. Its parent's
    address is ``<parent_addr>`` when libvirt gives it, else read from
    the parent's node device name."""
    root = hostdev.parse_xml(xml)
    cap = root.find("capability[@type='mdev']")
    if cap is None:
        raise ValueError('%s is not a mediated device' %
                         root.findtext('name'))
    parent = root.findtext('parent')
    parent_address = cap.findtext('parent_addr')
    if not parent_address and parent and parent.startswith('pci_'):
        parent_address = str(hostdev.PciAddress.parse(parent))
    group = cap.find('iommuGroup')
    type_element = cap.find('type')
    return Mdev(
        name=root.findtext('name'),
        uuid=hostdev.normalize_uuid(cap.findtext('uuid')),
        type_id=type_element.get('id') if type_element is not None else None,
        parent=parent,
        parent_address=parent_address,
        iommu_group=int(group.get('number')) if group is not None else None,
    )


def _hex_id(text, digits):
    """'0x10DE' / '10de' -> '0x10de' (zero-padded to ``digits``)."""
    return '0x%0*x' % (digits, int(text, 16))
