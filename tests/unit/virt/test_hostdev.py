"""PCI addresses, hostdev XML and domain XML edits."""
from xml.etree import ElementTree as ET

import pytest

from reserve.common import exception as common_exc
from reserve.virt import discovery
from reserve.virt import exception
from reserve.virt import hostdev

UUID = '4b20d080-1b54-4048-85b3-a6a62d165c01'


@pytest.mark.parametrize('text', ['0000:3b:00.0', '3b:00.0', '0000:3B:00.0',
                                  'pci_0000_3b_00_0', ' 0000:3b:00.0 '])
def test_pci_address_forms(text):
    address = hostdev.PciAddress.parse(text)
    assert address == hostdev.PciAddress(0, 0x3b, 0, 0)
    assert str(address) == '0000:3b:00.0'
    assert address.node_device_name == 'pci_0000_3b_00_0'


def test_pci_address_other_domain_and_function():
    address = hostdev.PciAddress.parse('0000:af:1f.7')
    assert str(address) == '0000:af:1f.7'
    assert hostdev.PciAddress.parse('0001:02:03.4').xml_attributes() == {
        'domain': '0x0001', 'bus': '0x02', 'slot': '0x03',
        'function': '0x4'}


@pytest.mark.parametrize('text', ['', '3b:00', '0000:3b:00.8', 'gpu0',
                                  'pci_0000_3b_00', '0000:3g:00.0', None])
def test_pci_address_invalid(text):
    with pytest.raises(exception.InvalidDevice) as err:
        hostdev.PciAddress.parse(text)
    assert isinstance(err.value, common_exc.Invalid)
    assert err.value.code == 400


def test_pci_address_from_xml_hex_and_decimal():
    hexa = ET.fromstring("<address domain='0x0000' bus='0x3b' slot='0x00' "
                         "function='0x1'/>")
    decimal = ET.fromstring("<address domain='0' bus='59' slot='0' "
                            "function='1'/>")
    assert (hostdev.PciAddress.from_xml(hexa) ==
            hostdev.PciAddress.from_xml(decimal) ==
            hostdev.PciAddress(0, 0x3b, 0, 1))


def _gpu(address='0000:3b:00.0'):
    return discovery.GPU(
        name='pci_' + address.replace(':', '_').replace('.', '_'),
        address=address, pci_class='0x030200', vendor_id='0x10de',
        product_id='0x1eb8', vendor_name='NVIDIA Corporation',
        product_name='TU104GL [Tesla T4]', iommu_group=50,
        iommu_group_members=(address,), numa_node=0, physical_function=None,
        virtual_functions=(), max_virtual_functions=None, mdev_types=(),
        driver='vfio-pci')


@pytest.mark.parametrize('device', [_gpu(), '0000:3b:00.0', 'pci_0000_3b_00_0',
                                    hostdev.PciAddress(0, 0x3b, 0, 0)])
def test_pci_hostdev_xml(device):
    element = ET.fromstring(hostdev.pci_hostdev_xml(device))
    assert element.tag == 'hostdev'
    assert element.attrib == {'mode': 'subsystem', 'type': 'pci',
                              'managed': 'yes'}
    address = element.find('source/address')
    assert address.attrib == {'domain': '0x0000', 'bus': '0x3b',
                              'slot': '0x00', 'function': '0x0'}
    assert hostdev.hostdev_key(element) == ('pci', '0000:3b:00.0')


def test_mdev_hostdev_xml():
    element = ET.fromstring(hostdev.mdev_hostdev_xml(UUID.upper()))
    assert element.attrib == {'mode': 'subsystem', 'type': 'mdev',
                              'model': 'vfio-pci'}
    assert element.find('source/address').attrib == {'uuid': UUID}
    assert hostdev.hostdev_key(element) == ('mdev', UUID)


def test_mdev_hostdev_xml_refuses_a_non_uuid():
    with pytest.raises(exception.InvalidDevice):
        hostdev.mdev_hostdev_xml('not-a-uuid')


DOMAIN = """<domain type='kvm'>
  <name>vm</name>
  <metadata>
    <nova:instance xmlns:nova="http://openstack.org/xmlns/libvirt/nova/1.1">
      <nova:name>vm</nova:name>
    </nova:instance>
  </metadata>
  <devices>
    <disk type='file' device='disk'><source file='/tmp/d.qcow2'/></disk>
    <hostdev mode='subsystem' type='pci' managed='yes'>
      <source><address domain='0' bus='175' slot='0' function='0'/></source>
    </hostdev>
    <hostdev mode='subsystem' type='mdev' managed='no' model='vfio-pci'>
      <source><address uuid='4B20D080-1B54-4048-85B3-A6A62D165C01'/></source>
    </hostdev>
    <hostdev mode='subsystem' type='usb' managed='yes'>
      <source><vendor id='0x1234'/><product id='0xbeef'/></source>
    </hostdev>
  </devices>
</domain>"""


def test_parse_hostdevs_keeps_pci_and_mdev():
    assert hostdev.parse_hostdevs(DOMAIN) == [
        hostdev.Hostdev('pci', '0000:af:00.0'),
        hostdev.Hostdev('mdev', UUID)]


def test_add_hostdev_appends_and_is_idempotent():
    added = hostdev.add_hostdev(DOMAIN, 'pci', '0000:3b:00.0')
    keys = [h.key for h in hostdev.parse_hostdevs(added)]
    assert keys == [('pci', '0000:af:00.0'), ('mdev', UUID),
                    ('pci', '0000:3b:00.0')]
    assert hostdev.add_hostdev(added, 'pci', '0000:3b:00.0') == added
    # What was there stays, namespaced metadata included.
    root = ET.fromstring(added)
    assert root.find('devices/disk/source').get('file') == '/tmp/d.qcow2'
    assert 'nova:instance' in added
    assert root.find('metadata/{http://openstack.org/xmlns/libvirt/nova/'
                     '1.1}instance') is not None


def test_add_hostdev_to_a_domain_without_devices():
    added = hostdev.add_hostdev("<domain><name>x</name></domain>", 'mdev',
                                UUID)
    assert hostdev.parse_hostdevs(added) == [hostdev.Hostdev('mdev', UUID)]


def test_remove_hostdev_matches_any_spelling_and_is_idempotent():
    removed = hostdev.remove_hostdev(DOMAIN, 'pci', '0000:af:00.0')
    assert hostdev.parse_hostdevs(removed) == [hostdev.Hostdev('mdev', UUID)]
    removed = hostdev.remove_hostdev(removed, 'mdev', UUID)
    assert hostdev.parse_hostdevs(removed) == []
    assert "type='usb'" in removed or 'type="usb"' in removed
    assert hostdev.remove_hostdev(removed, 'mdev', UUID) == removed


def test_hostdev_to_dict():
    assert hostdev.Hostdev('pci', '0000:3b:00.0', live=False,
                           config=True).to_dict() == {
        'kind': 'pci', 'id': '0000:3b:00.0', 'live': False, 'config': True}
