"""GPUs and mdevs read from node device XML as a real host writes it."""
import pytest

from reserve.virt import discovery

# As libvirt answers on a host (driver, and parent_addr for mdevs, are
# read from sysfs; the test driver drops them).
T4 = """<device>
  <name>pci_0000_3b_00_0</name>
  <path>/sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0</path>
  <parent>pci_0000_3a_00_0</parent>
  <driver>
    <name>nvidia</name>
  </driver>
  <capability type='pci'>
    <class>0x030200</class>
    <domain>0</domain>
    <bus>59</bus>
    <slot>0</slot>
    <function>0</function>
    <product id='0x1eb8'>TU104GL [Tesla T4]</product>
    <vendor id='0x10de'>NVIDIA Corporation</vendor>
    <capability type='mdev_types'>
      <type id='nvidia-230'>
        <name>GRID T4-16Q</name>
        <deviceAPI>vfio-pci</deviceAPI>
        <availableInstances>1</availableInstances>
      </type>
      <type id='nvidia-222'>
        <name>GRID T4-1B</name>
        <deviceAPI>vfio-pci</deviceAPI>
        <availableInstances>16</availableInstances>
      </type>
    </capability>
    <iommuGroup number='50'>
      <address domain='0x0000' bus='0x3b' slot='0x00' function='0x0'/>
    </iommuGroup>
    <numa node='0'/>
    <pci-express>
      <link validity='cap' port='0' speed='8' width='16'/>
    </pci-express>
  </capability>
</device>"""

VF = """<device>
  <name>pci_0000_31_00_5</name>
  <parent>pci_0000_31_00_0</parent>
  <driver><name>vfio-pci</name></driver>
  <capability type='pci'>
    <class>0x030200</class>
    <domain>0</domain><bus>49</bus><slot>0</slot><function>5</function>
    <product id='0x20B2'>GA100 [A100 SXM4 80GB]</product>
    <vendor id='0x10DE'>NVIDIA Corporation</vendor>
    <capability type='phys_function'>
      <address domain='0x0000' bus='0x31' slot='0x00' function='0x0'/>
    </capability>
    <iommuGroup number='42'>
      <address domain='0x0000' bus='0x31' slot='0x00' function='0x5'/>
    </iommuGroup>
    <numa node='1'/>
  </capability>
</device>"""

PF = """<device>
  <name>pci_0000_31_00_0</name>
  <parent>computer</parent>
  <capability type='pci'>
    <class>0x030200</class>
    <domain>0</domain><bus>49</bus><slot>0</slot><function>0</function>
    <product id='0x20b2'/>
    <vendor id='0x10de'/>
    <capability type='virt_functions' maxCount='16'>
      <address domain='0x0000' bus='0x31' slot='0x00' function='0x5'/>
      <address domain='0x0000' bus='0x31' slot='0x00' function='0x4'/>
    </capability>
    <iommuGroup number='40'>
      <address domain='0x0000' bus='0x31' slot='0x00' function='0x0'/>
    </iommuGroup>
  </capability>
</device>"""

AUDIO = """<device>
  <name>pci_0000_01_00_1</name>
  <parent>computer</parent>
  <capability type='pci'>
    <class>0x040300</class>
    <domain>0</domain><bus>1</bus><slot>0</slot><function>1</function>
    <product id='0x1aef'>GA102 High Definition Audio Controller</product>
    <vendor id='0x10de'>NVIDIA Corporation</vendor>
    <iommuGroup number='12'>
      <address domain='0x0000' bus='0x01' slot='0x00' function='0x1'/>
      <address domain='0x0000' bus='0x01' slot='0x00' function='0x0'/>
    </iommuGroup>
  </capability>
</device>"""

MDEV = """<device>
  <name>mdev_4b20d080_1b54_4048_85b3_a6a62d165c01_0000_3b_00_0</name>
  <path>/sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/4b20d080-1b54-4048-85b3-a6a62d165c01</path>
  <parent>pci_0000_3b_00_0</parent>
  <driver><name>vfio_mdev</name></driver>
  <capability type='mdev'>
    <type id='nvidia-222'/>
    <uuid>4b20d080-1b54-4048-85b3-a6a62d165c01</uuid>
    <parent_addr>0000:3b:00.0</parent_addr>
    <iommuGroup number='200'/>
  </capability>
</device>"""


def test_mdev_capable_gpu():
    gpu = discovery.parse_pci_device(T4)
    assert gpu == discovery.GPU(
        name='pci_0000_3b_00_0', address='0000:3b:00.0',
        pci_class='0x030200', vendor_id='0x10de', product_id='0x1eb8',
        vendor_name='NVIDIA Corporation', product_name='TU104GL [Tesla T4]',
        iommu_group=50, iommu_group_members=('0000:3b:00.0',), numa_node=0,
        physical_function=None, virtual_functions=(),
        max_virtual_functions=None,
        mdev_types=(
            discovery.MdevType('nvidia-222', 'GRID T4-1B', 16, 'vfio-pci'),
            discovery.MdevType('nvidia-230', 'GRID T4-16Q', 1, 'vfio-pci')),
        driver='nvidia')
    assert gpu.is_gpu
    assert gpu.mdev_type('nvidia-230').available_instances == 1
    assert gpu.mdev_type('nvidia-999') is None
    assert gpu.to_dict()['mdev_types'][0] == {
        'id': 'nvidia-222', 'name': 'GRID T4-1B', 'available_instances': 16,
        'device_api': 'vfio-pci'}


def test_sriov_virtual_function():
    vf = discovery.parse_pci_device(VF)
    assert (vf.address, vf.vendor_id, vf.product_id) == (
        '0000:31:00.5', '0x10de', '0x20b2')
    assert vf.physical_function == '0000:31:00.0'
    assert vf.virtual_functions == ()
    assert (vf.iommu_group, vf.numa_node, vf.driver) == (42, 1, 'vfio-pci')


def test_sriov_physical_function_without_names_or_numa():
    pf = discovery.parse_pci_device(PF)
    assert pf.virtual_functions == ('0000:31:00.4', '0000:31:00.5')
    assert pf.max_virtual_functions == 16
    assert pf.physical_function is None
    assert pf.numa_node is None
    assert (pf.vendor_name, pf.product_name, pf.driver) == (None, None, None)


def test_function_of_another_class_is_not_a_gpu():
    audio = discovery.parse_pci_device(AUDIO)
    assert not audio.is_gpu
    assert audio.iommu_group_members == ('0000:01:00.0', '0000:01:00.1')


@pytest.mark.parametrize('pci_class,gpu', [
    ('0x030000', True), ('0x030200', True), ('0x038000', True),
    ('0x040300', False), ('0x020700', False), ('0x120000', False),
    (None, False)])
def test_display_class(pci_class, gpu):
    assert discovery.is_display_class(pci_class) is gpu


def test_negative_numa_node_means_unknown():
    gpu = discovery.parse_pci_device(T4.replace("node='0'", "node='-1'"))
    assert gpu.numa_node is None


def test_mdev():
    assert discovery.parse_mdev(MDEV) == discovery.Mdev(
        name='mdev_4b20d080_1b54_4048_85b3_a6a62d165c01_0000_3b_00_0',
        uuid='4b20d080-1b54-4048-85b3-a6a62d165c01', type_id='nvidia-222',
        parent='pci_0000_3b_00_0', parent_address='0000:3b:00.0',
        iommu_group=200)


def test_mdev_parent_address_from_the_parent_name():
    mdev = discovery.parse_mdev(
        MDEV.replace('<parent_addr>0000:3b:00.0</parent_addr>', ''))
    assert mdev.parent_address == '0000:3b:00.0'


def test_wrong_kind_of_node_device():
    with pytest.raises(ValueError):
        discovery.parse_pci_device(MDEV)
    with pytest.raises(ValueError):
        discovery.parse_mdev(T4)
