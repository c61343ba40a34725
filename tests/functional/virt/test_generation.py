"""The topology generation of fixture hosts, and hostdev XML on libvirt."""
import re
from xml.etree import ElementTree as ET

import pytest

from reserve.virt import hostdev
from reserve_fakes import libvirt_host
from tests.functional.virt import hosts


def _generation(name, tmp_path=None, edit=None):
    path = hosts.HOSTS / name
    if edit is not None:
        text = edit(path.read_text())
        assert text != path.read_text(), 'the edit changed nothing'
        path = tmp_path / name
        path.write_text(text)
    with hosts.open_host(name, path=path) as host:
        return host.topology_generation()


@pytest.mark.parametrize('name', ['a100-host.xml', 't4-host.xml',
                                  'rtx-workstation.xml'])
def test_stable_across_connections(name):
    first = _generation(name)
    assert _generation(name) == first
    assert re.fullmatch('[0-9a-f]{64}', first)


def test_hosts_differ():
    assert len({_generation(n) for n in ('a100-host.xml', 't4-host.xml',
                                         'rtx-workstation.xml')}) == 3


def _drop_device(name):
    return lambda text: re.sub(
        r'\s*<device>\s*<name>%s</name>.*?</device>' % name, '', text,
        count=1, flags=re.S)


def _drop_vf(text):
    text = _drop_device('pci_0000_31_00_7')(text)
    return text.replace("<address domain='0x0000' bus='0x31' slot='0x00' "
                        "function='0x7'/>\n", '', 1)


@pytest.mark.parametrize('name,edit', [
    ('a100-host.xml', _drop_device('pci_0000_b1_00_0')),
    ('a100-host.xml', _drop_vf),
    ('a100-host.xml', lambda t: t.replace(
        "<iommuGroup number='150'>", "<iommuGroup number='151'>")),
    ('a100-host.xml', lambda t: re.sub(
        r"(<name>pci_0000_ca_00_0</name>.*?)<numa node='1'/>",
        r"\1<numa node='0'/>", t, flags=re.S)),
    ('t4-host.xml', lambda t: t.replace(
        "<type id='nvidia-230'>", "<type id='nvidia-231'>", 1)),
    ('rtx-workstation.xml', lambda t: t.replace(
        '<class>0x040300</class>', '<class>0x030000</class>')),
], ids=['gpu-removed', 'vf-removed', 'iommu-group', 'numa-node',
        'mdev-type', 'function-becomes-gpu'])
def test_changes_with_the_gpu_layout(tmp_path, name, edit):
    assert _generation(name, tmp_path, edit) != _generation(name)


@pytest.mark.parametrize('name,edit', [
    ('t4-host.xml', lambda t: t.replace(
        '<availableInstances>16</availableInstances>',
        '<availableInstances>9</availableInstances>')),
    ('t4-host.xml', _drop_device(
        'mdev_4b20d080_1b54_4048_85b3_a6a62d165c01_0000_3b_00_0')),
    ('a100-host.xml', _drop_device('pci_0000_18_00_0')),
    ('a100-host.xml', lambda t: t.replace('GA100 [A100 SXM4 80GB]',
                                          'GA100 [A100 80GB]')),
], ids=['available-instances', 'mdev-instance', 'non-gpu-function',
        'product-name'])
def test_unchanged_by_what_moves_in_operation(tmp_path, name, edit):
    assert _generation(name, tmp_path, edit) == _generation(name)


def test_unchanged_by_creating_and_removing_mdevs():
    with hosts.open_host('t4-host.xml', libvirt_host.opener()) as host:
        before = host.topology_generation()
        created = host.create_mdev('0000:d8:00.0', 'nvidia-230')
        assert host.gpu('0000:d8:00.0').mdev_type(
            'nvidia-230').available_instances == 0
        assert host.topology_generation() == before
        host.remove_mdev(created.uuid)
        assert host.topology_generation() == before


def test_hostdev_xml_is_accepted_by_define_xml(t4_host):
    conn = hosts.libvirt_conn(t4_host)
    uuid = '4b20d080-1b54-4048-85b3-a6a62d165c01'
    xml = ("<domain type='test'><name>built</name><memory>1048576</memory>"
           "<os><type arch='x86_64'>hvm</type></os><devices>%s%s</devices>"
           "</domain>" % (hostdev.pci_hostdev_xml('0000:d8:00.0'),
                          hostdev.mdev_hostdev_xml(uuid)))
    conn.defineXML(xml)
    back = hosts.domain_xml(t4_host, 'built', inactive=True)
    assert hostdev.parse_hostdevs(back) == [
        hostdev.Hostdev('pci', '0000:d8:00.0'),
        hostdev.Hostdev('mdev', uuid)]
    pci, mdev = ET.fromstring(back).findall('devices/hostdev')
    assert pci.get('managed') == 'yes'
    assert pci.find('source/address').attrib == {
        'domain': '0x0000', 'bus': '0xd8', 'slot': '0x00', 'function': '0x0'}
    assert mdev.get('model') == 'vfio-pci'
    assert t4_host.attached('built') == [
        hostdev.Hostdev('mdev', uuid, live=None, config=True),
        hostdev.Hostdev('pci', '0000:d8:00.0', live=None, config=True)]
