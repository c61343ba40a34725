"""Discovery on the fixture hosts gives back what their files describe."""
from xml.etree import ElementTree as ET

import pytest

from reserve.virt import discovery
from reserve.virt import hostdev
from tests.functional.virt import hosts

A100 = ('0x10de', '0x20b2', 'NVIDIA Corporation', 'GA100 [A100 SXM4 80GB]')


def test_a100_host_gpus(a100_host):
    gpus = a100_host.gpus()
    assert [(g.address, g.name, g.numa_node, g.iommu_group) for g in gpus] == [
        ('0000:17:00.0', 'pci_0000_17_00_0', 0, 22),
        ('0000:31:00.0', 'pci_0000_31_00_0', 0, 40),
        ('0000:31:00.4', 'pci_0000_31_00_4', 0, 41),
        ('0000:31:00.5', 'pci_0000_31_00_5', 0, 42),
        ('0000:31:00.6', 'pci_0000_31_00_6', 0, 43),
        ('0000:31:00.7', 'pci_0000_31_00_7', 0, 44),
        ('0000:b1:00.0', 'pci_0000_b1_00_0', 1, 150),
        ('0000:ca:00.0', 'pci_0000_ca_00_0', 1, 170),
    ]
    for gpu in gpus:
        assert (gpu.vendor_id, gpu.product_id, gpu.vendor_name,
                gpu.product_name) == A100
        assert gpu.pci_class == '0x030200'
        assert gpu.iommu_group_members == (gpu.address,)
        assert gpu.mdev_types == ()
        assert gpu.driver is None      # the test driver drops <driver>
    # The ConnectX-6 (class 0x020700) is not a GPU.
    assert '0000:18:00.0' not in [g.address for g in gpus]
    assert a100_host.gpu('0000:18:00.0').pci_class == '0x020700'


def test_a100_host_sriov_relations(a100_host):
    by_address = {g.address: g for g in a100_host.gpus()}
    pf = by_address['0000:31:00.0']
    assert pf.virtual_functions == ('0000:31:00.4', '0000:31:00.5',
                                    '0000:31:00.6', '0000:31:00.7')
    assert pf.max_virtual_functions == 16
    assert pf.physical_function is None
    for vf in pf.virtual_functions:
        assert by_address[vf].physical_function == '0000:31:00.0'
        assert by_address[vf].virtual_functions == ()
    assert by_address['0000:17:00.0'].virtual_functions == ()
    assert by_address['0000:17:00.0'].physical_function is None


def test_t4_host_mdev_types_and_mdevs(t4_host):
    gpus = t4_host.gpus()
    assert [(g.address, g.numa_node, g.iommu_group, g.product_name)
            for g in gpus] == [
        ('0000:3b:00.0', 0, 50, 'TU104GL [Tesla T4]'),
        ('0000:d8:00.0', 1, 160, 'TU104GL [Tesla T4]')]
    assert gpus[0].mdev_types == (
        discovery.MdevType('nvidia-222', 'GRID T4-1B', 15, 'vfio-pci'),
        discovery.MdevType('nvidia-230', 'GRID T4-16Q', 0, 'vfio-pci'))
    assert gpus[1].mdev_types == (
        discovery.MdevType('nvidia-222', 'GRID T4-1B', 16, 'vfio-pci'),
        discovery.MdevType('nvidia-230', 'GRID T4-16Q', 1, 'vfio-pci'))
    assert t4_host.mdevs() == [discovery.Mdev(
        name='mdev_4b20d080_1b54_4048_85b3_a6a62d165c01_0000_3b_00_0',
        uuid='4b20d080-1b54-4048-85b3-a6a62d165c01', type_id='nvidia-222',
        parent='pci_0000_3b_00_0', parent_address='0000:3b:00.0',
        iommu_group=200)]


def test_workstation_vga_gpu_shares_its_group_with_audio(rtx_host):
    [gpu] = rtx_host.gpus()
    assert (gpu.address, gpu.pci_class, gpu.product_id) == (
        '0000:01:00.0', '0x030000', '0x2230')
    assert gpu.numa_node is None
    assert gpu.iommu_group == 12
    assert gpu.iommu_group_members == ('0000:01:00.0', '0000:01:00.1')
    assert rtx_host.gpu('pci_0000_01_00_1').is_gpu is False


@pytest.mark.parametrize('name', ['a100-host.xml', 't4-host.xml',
                                  'rtx-workstation.xml'])
def test_every_display_function_of_the_file_is_found(name):
    """Cross-check against the file itself, read without libvirt."""
    expected = {}
    for device in ET.parse(hosts.HOSTS / name).getroot().iter('device'):
        cap = device.find("capability[@type='pci']")
        if cap is None or int(cap.findtext('class'), 16) >> 16 != 0x03:
            continue
        group = cap.find('iommuGroup')
        numa = cap.find('numa')
        expected[device.findtext('name')] = {
            'vendor_id': cap.find('vendor').get('id'),
            'product_id': cap.find('product').get('id'),
            'iommu_group': int(group.get('number')),
            'numa_node': int(numa.get('node')) if numa is not None else None,
            'mdev_types': sorted(
                (t.get('id'), t.findtext('name'),
                 int(t.findtext('availableInstances')))
                for t in cap.iter('type')),
        }
    with hosts.open_host(name) as host:
        found = {g.name: {
            'vendor_id': g.vendor_id, 'product_id': g.product_id,
            'iommu_group': g.iommu_group, 'numa_node': g.numa_node,
            'mdev_types': [(t.id, t.name, t.available_instances)
                           for t in g.mdev_types]} for g in host.gpus()}
    assert found == expected


def test_domains(a100_host):
    assert [(d.name, d.running, d.persistent) for d in a100_host.domains()
            ] == [('gpu-vm-1', True, True), ('gpu-vm-2', True, True),
                  ('gpu-vm-3', False, True), ('transient-vm', True, False)]
    assert a100_host.attached('gpu-vm-1') == [
        hostdev.Hostdev('pci', '0000:ca:00.0', live=True, config=True)]
    assert a100_host.attached('gpu-vm-3') == []
