"""reserve_fakes.libvirt_host answers as a real host does, errors included.

Each case is the libvirt call reserve makes, on the FakeConnect directly,
checked for libvirt's error code, error domain and message.
"""
import libvirt
import pytest

from reserve.virt import host_definitions
from reserve.virt import hostdev
from reserve.virt import mdev as mdev_xml
from reserve_fakes import libvirt_host
from tests.functional.virt import hosts

EXISTING = '4b20d080-1b54-4048-85b3-a6a62d165c01'
NEW = '0c6f3a52-7c1e-4f7e-9d5c-2b8e3a1f0d11'


@pytest.fixture
def t4():
    conn = libvirt_host.opener()(
        host_definitions.host_uri(hosts.HOSTS / 't4-host.xml'))
    yield conn
    conn.close()


@pytest.fixture
def a100():
    conn = libvirt_host.opener()(
        host_definitions.host_uri(hosts.HOSTS / 'a100-host.xml'))
    yield conn
    conn.close()


def test_host_definitions_are_found():
    path = host_definitions.host_definition('t4-host.xml')
    assert path == str(hosts.HOSTS / 't4-host.xml')
    assert host_definitions.host_uri(path) == 'test://' + path
    with pytest.raises(FileNotFoundError, match='nope.xml not found'):
        host_definitions.host_definition('nope.xml')


def _raises(call, code, domain, message):
    with pytest.raises(libvirt.libvirtError) as err:
        call()
    assert (err.value.get_error_code(), err.value.get_error_domain(),
            str(err.value)) == (code, domain, message)
    assert err.value.get_error_message() == message


def _create(conn, parent, type_id, uuid):
    return conn.nodeDeviceCreateXML(
        mdev_xml.mdev_device_xml(parent, type_id, uuid), 0)


def _mdevctl(detail):
    return (libvirt.VIR_ERR_INTERNAL_ERROR, libvirt.VIR_FROM_NODEDEV,
            'internal error: Unable to start mediated device: Error: ' +
            detail)


# mdev creation (node device driver + mdevctl) --------------------------------

def test_create_lists_the_new_node_device(t4):
    dev = _create(t4, 'pci_0000_d8_00_0', 'nvidia-230', NEW)
    name = 'mdev_%s_0000_d8_00_0' % NEW.replace('-', '_')
    assert dev.name() == name
    assert dev.parent() == 'pci_0000_d8_00_0'
    assert dev.listCaps() == ['mdev']
    assert name in [d.name() for d in t4.listAllDevices(
        libvirt.VIR_CONNECT_LIST_NODE_DEVICES_CAP_MDEV)]
    assert name in [d.name() for d in t4.listAllDevices(0)]
    assert name not in [d.name() for d in t4.listAllDevices(
        libvirt.VIR_CONNECT_LIST_NODE_DEVICES_CAP_PCI_DEV)]
    xml = t4.nodeDeviceLookupByName(name).XMLDesc(0)
    assert "<uuid>%s</uuid>" % NEW in xml
    assert "<parent_addr>0000:d8:00.0</parent_addr>" in xml
    assert ("<availableInstances>0</availableInstances>" in
            t4.nodeDeviceLookupByName('pci_0000_d8_00_0').XMLDesc(0))


def test_create_without_uuid_makes_one(t4):
    dev = t4.nodeDeviceCreateXML(
        "<device><parent>pci_0000_d8_00_0</parent><capability type='mdev'>"
        "<type id='nvidia-222'/></capability></device>", 0)
    assert dev.name().startswith('mdev_') and dev.name().endswith(
        '_0000_d8_00_0')


def test_no_available_instances(t4):
    _raises(lambda: _create(t4, 'pci_0000_3b_00_0', 'nvidia-230', NEW),
            *_mdevctl('No available instances of nvidia-230 on '
                      '0000:3b:00.0'))


def test_uuid_exists(t4):
    _raises(lambda: _create(t4, 'pci_0000_3b_00_0', 'nvidia-222', EXISTING),
            *_mdevctl('Device already exists'))
    _raises(lambda: _create(t4, 'pci_0000_d8_00_0', 'nvidia-222', EXISTING),
            *_mdevctl('Device exists under different parent'))
    _raises(lambda: _create(t4, 'pci_0000_3b_00_0', 'nvidia-230', EXISTING),
            *_mdevctl('Device exists with different type'))
    _create(t4, 'pci_0000_d8_00_0', 'nvidia-222', NEW)
    _raises(lambda: _create(t4, 'pci_0000_d8_00_0', 'nvidia-222', NEW),
            *_mdevctl('Device already exists'))


def test_type_not_offered(t4):
    _raises(lambda: _create(t4, 'pci_0000_3b_00_0', 'nvidia-999', NEW),
            *_mdevctl('Parent 0000:3b:00.0 does not support mdev type '
                      'nvidia-999'))


def test_parent_without_mdev_support(a100):
    _raises(lambda: _create(a100, 'pci_0000_17_00_0', 'nvidia-222', NEW),
            *_mdevctl('Parent 0000:17:00.0 is not currently registered for '
                      'mdev support'))


def test_unknown_parent(t4):
    for parent in ('pci_0000_99_00_0', 'computer'):
        _raises(lambda: _create(t4, parent, 'nvidia-222', NEW),
                libvirt.VIR_ERR_INTERNAL_ERROR, libvirt.VIR_FROM_NODEDEV,
                "internal error: unable to find parent device '%s'" % parent)


def test_no_parent(t4):
    _raises(lambda: t4.nodeDeviceCreateXML(
        "<device><capability type='mdev'><type id='nvidia-222'/>"
        "</capability></device>", 0),
        libvirt.VIR_ERR_XML_ERROR, libvirt.VIR_FROM_NODEDEV,
        'XML error: cannot create a mediated device without a parent')


def test_no_type_id_or_a_bad_uuid(t4):
    _raises(lambda: t4.nodeDeviceCreateXML(
        "<device><parent>pci_0000_d8_00_0</parent><capability type='mdev'>"
        "<uuid>%s</uuid></capability></device>" % NEW, 0),
        libvirt.VIR_ERR_CONFIG_UNSUPPORTED, libvirt.VIR_FROM_NODEDEV,
        "unsupported configuration: missing type id attribute for "
        "'new device'")
    _raises(lambda: t4.nodeDeviceCreateXML(
        "<device><parent>pci_0000_d8_00_0</parent><capability type='mdev'>"
        "<type id='nvidia-222'/><uuid>nope</uuid></capability></device>", 0),
        libvirt.VIR_ERR_INTERNAL_ERROR, libvirt.VIR_FROM_NODEDEV,
        "internal error: Invalid uuid 'nope' for new mdev device")


# mdev removal ----------------------------------------------------------------

def test_destroy_an_mdev_a_running_guest_holds(t4):
    name = 'mdev_4b20d080_1b54_4048_85b3_a6a62d165c01_0000_3b_00_0'
    _raises(t4.nodeDeviceLookupByName(name).destroy,
            libvirt.VIR_ERR_INTERNAL_ERROR, libvirt.VIR_FROM_NODEDEV,
            "internal error: Unable to destroy '%s': device in use" % name)
    t4.lookupByName('vgpu-vm-1').destroy()          # guest off: it lets go
    assert t4.nodeDeviceLookupByName(name).destroy() == 0
    _raises(lambda: t4.nodeDeviceLookupByName(name),
            libvirt.VIR_ERR_NO_NODE_DEVICE, libvirt.VIR_FROM_NODEDEV,
            "Node device not found: no node device with matching name '%s'"
            % name)
    assert ("<availableInstances>16</availableInstances>" in
            t4.nodeDeviceLookupByName('pci_0000_3b_00_0').XMLDesc(0))


def test_destroy_a_created_mdev_twice(t4):
    dev = _create(t4, 'pci_0000_d8_00_0', 'nvidia-222', NEW)
    assert dev.destroy() == 0
    _raises(dev.destroy, libvirt.VIR_ERR_NO_NODE_DEVICE,
            libvirt.VIR_FROM_NODEDEV,
            "Node device not found: no node device with matching name '%s'"
            % dev.name())


# hot-plug (QEMU driver) ------------------------------------------------------

PCI_17 = hostdev.pci_hostdev_xml('0000:17:00.0')
PCI_CA = hostdev.pci_hostdev_xml('0000:ca:00.0')
LIVE = libvirt.VIR_DOMAIN_AFFECT_LIVE
CONFIG = libvirt.VIR_DOMAIN_AFFECT_CONFIG


def _keys(dom, flags=0):
    return [h.key for h in hostdev.parse_hostdevs(dom.XMLDesc(flags))]


def test_live_attach_lasts_until_the_next_start(a100):
    dom = a100.lookupByName('gpu-vm-2')
    assert dom.attachDeviceFlags(PCI_17, LIVE) == 0
    assert _keys(dom) == [('pci', '0000:17:00.0')]
    assert _keys(dom, libvirt.VIR_DOMAIN_XML_INACTIVE) == []
    dom.destroy()
    dom.create()
    assert _keys(dom) == []


def test_current_means_live_when_running_config_when_not(a100):
    running = a100.lookupByName('gpu-vm-2')
    running.attachDeviceFlags(PCI_17, 0)
    assert _keys(running) == [('pci', '0000:17:00.0')]
    assert _keys(running, libvirt.VIR_DOMAIN_XML_INACTIVE) == []
    off = a100.lookupByName('gpu-vm-3')
    off.attachDeviceFlags(hostdev.pci_hostdev_xml('0000:b1:00.0'), 0)
    assert _keys(off) == [('pci', '0000:b1:00.0')]


def test_live_on_a_shut_off_domain(a100):
    _raises(lambda: a100.lookupByName('gpu-vm-3').attachDeviceFlags(
        PCI_17, LIVE | CONFIG), libvirt.VIR_ERR_OPERATION_INVALID,
        libvirt.VIR_FROM_DOMAIN,
        'Requested operation is not valid: domain is not running')


def test_config_on_a_transient_domain(a100):
    _raises(lambda: a100.lookupByName('transient-vm').attachDeviceFlags(
        PCI_17, CONFIG), libvirt.VIR_ERR_OPERATION_INVALID,
        libvirt.VIR_FROM_DOMAIN, 'Requested operation is not valid: '
        'transient domains do not have any persistent config')


def test_attach_what_the_definition_has(a100):
    _raises(lambda: a100.lookupByName('gpu-vm-1').attachDeviceFlags(
        PCI_CA, CONFIG), libvirt.VIR_ERR_INVALID_ARG, libvirt.VIR_FROM_QEMU,
        'invalid argument: device is already in the domain configuration')


def test_live_attach_of_a_device_another_guest_holds(a100):
    _raises(lambda: a100.lookupByName('gpu-vm-2').attachDeviceFlags(
        PCI_CA, LIVE), libvirt.VIR_ERR_OPERATION_INVALID,
        libvirt.VIR_FROM_NONE, 'Requested operation is not valid: PCI '
        'device 0000:ca:00.0 is in use by driver QEMU, domain gpu-vm-1')


def test_live_attach_of_mdevs(t4):
    dom = t4.lookupByName('vgpu-vm-2')
    _raises(lambda: dom.attachDeviceFlags(
        hostdev.mdev_hostdev_xml(EXISTING), LIVE),
        libvirt.VIR_ERR_OPERATION_INVALID, libvirt.VIR_FROM_NONE,
        'Requested operation is not valid: mediated device '
        '/sys/bus/mdev/devices/%s is in use by driver QEMU, domain '
        'vgpu-vm-1' % EXISTING)
    _raises(lambda: dom.attachDeviceFlags(hostdev.mdev_hostdev_xml(NEW),
                                          LIVE),
            libvirt.VIR_ERR_DEVICE_MISSING, libvirt.VIR_FROM_NONE,
            "device not found: mediated device '%s' not found" % NEW)


def test_detach_what_is_not_there(a100):
    dom = a100.lookupByName('gpu-vm-2')
    _raises(lambda: dom.detachDeviceFlags(PCI_17, CONFIG),
            libvirt.VIR_ERR_DEVICE_MISSING, libvirt.VIR_FROM_QEMU,
            'device not found: device not present in domain configuration')
    _raises(lambda: dom.detachDeviceFlags(PCI_17, LIVE),
            libvirt.VIR_ERR_DEVICE_MISSING, libvirt.VIR_FROM_QEMU,
            'device not found: host pci device 0000:17:00.0 not found')


def test_without_hot_plug_the_test_driver_answers():
    conn = libvirt_host.opener(hotplug=False)(
        host_definitions.host_uri(hosts.HOSTS / 'a100-host.xml'))
    _raises(lambda: conn.lookupByName('gpu-vm-2').attachDeviceFlags(
        PCI_17, LIVE), libvirt.VIR_ERR_NO_SUPPORT, libvirt.VIR_FROM_DOMAIN,
        'this function is not supported by the connection driver: '
        'virDomainAttachDeviceFlags')


def test_other_devices_are_the_test_driver_s(a100):
    _raises(lambda: a100.lookupByName('gpu-vm-2').attachDeviceFlags(
        "<disk type='file' device='disk'><source file='/tmp/x'/>"
        "<target dev='vdb'/></disk>", LIVE),
        libvirt.VIR_ERR_NO_SUPPORT, libvirt.VIR_FROM_DOMAIN,
        'this function is not supported by the connection driver: '
        'virDomainAttachDeviceFlags')
