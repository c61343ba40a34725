"""Attach and detach on fixture hosts.

``*_host`` fixtures are the bare test driver, which cannot hot-plug: the
domain's definition is edited and defined again, and a running guest gets
the device at its next start. ``*_fake`` fixtures hot-plug (reserve.virt.
fake), as a QEMU host does: live and definition change together.
"""
import threading

import libvirt
import pytest

from reserve.common import exception as common_exc
from reserve.virt import connection
from reserve.virt import exception
from reserve.virt import host_definitions
from reserve.virt import hostdev
from tests.functional.virt import hosts

A100_ADDRESS = ("<address domain='0x0000' bus='0x17' slot='0x00' "
                "function='0x0'/>")


def _keys(xml):
    return [h.key for h in hostdev.parse_hostdevs(xml)]


# Without hot-plug: the definition is redefined ---------------------------

def test_attach_to_a_shut_off_domain(a100_host):
    gpu = a100_host.gpu('0000:17:00.0')
    result = a100_host.attach('gpu-vm-3', gpu)
    assert result == hostdev.Hostdev('pci', '0000:17:00.0', live=None,
                                     config=True)
    xml = hosts.domain_xml(a100_host, 'gpu-vm-3', inactive=True)
    assert A100_ADDRESS in xml
    assert "<hostdev mode='subsystem' type='pci' managed='yes'>" in xml
    # The guest starts with it.
    hosts.restart(a100_host, 'gpu-vm-3')
    assert _keys(hosts.domain_xml(a100_host, 'gpu-vm-3')) == [
        ('pci', '0000:17:00.0')]


def test_attach_to_a_running_domain_takes_effect_at_next_start(a100_host):
    result = a100_host.attach('gpu-vm-2', 'pci_0000_17_00_0')
    assert result == hostdev.Hostdev('pci', '0000:17:00.0', live=False,
                                     config=True)
    assert A100_ADDRESS in hosts.domain_xml(a100_host, 'gpu-vm-2',
                                            inactive=True)
    assert A100_ADDRESS not in hosts.domain_xml(a100_host, 'gpu-vm-2')
    hosts.restart(a100_host, 'gpu-vm-2')
    assert A100_ADDRESS in hosts.domain_xml(a100_host, 'gpu-vm-2')
    assert a100_host.attached('gpu-vm-2') == [
        hostdev.Hostdev('pci', '0000:17:00.0', live=True, config=True)]


def test_attach_is_idempotent(a100_host):
    first = a100_host.attach('gpu-vm-3', '0000:17:00.0')
    before = hosts.domain_xml(a100_host, 'gpu-vm-3', inactive=True)
    assert a100_host.attach('gpu-vm-3', '0000:17:00.0') == first
    assert hosts.domain_xml(a100_host, 'gpu-vm-3', inactive=True) == before
    assert _keys(before).count(('pci', '0000:17:00.0')) == 1


def test_detach_from_the_definition(a100_host):
    result = a100_host.detach('gpu-vm-1', '0000:ca:00.0')
    # Still in the running guest (no hot-unplug), gone from its definition.
    assert result == hostdev.Hostdev('pci', '0000:ca:00.0', live=True,
                                     config=False)
    assert _keys(hosts.domain_xml(a100_host, 'gpu-vm-1', inactive=True)) == []
    hosts.restart(a100_host, 'gpu-vm-1')
    assert a100_host.attached('gpu-vm-1') == []
    # Detaching what is gone changes nothing.
    assert a100_host.detach('gpu-vm-1', '0000:ca:00.0') == hostdev.Hostdev(
        'pci', '0000:ca:00.0', live=False, config=False)


def test_attach_then_detach_a_shut_off_domain(a100_host):
    a100_host.attach('gpu-vm-3', '0000:b1:00.0')
    a100_host.attach('gpu-vm-3', '0000:31:00.5')
    assert [h.id for h in a100_host.attached('gpu-vm-3')] == [
        '0000:31:00.5', '0000:b1:00.0']
    assert a100_host.detach('gpu-vm-3', '0000:b1:00.0').config is False
    assert _keys(hosts.domain_xml(a100_host, 'gpu-vm-3', inactive=True)) == [
        ('pci', '0000:31:00.5')]


def test_redefinition_keeps_the_rest_of_the_domain(a100_host):
    conn = hosts.libvirt_conn(a100_host)
    conn.defineXML(
        "<domain type='test'><name>with-metadata</name>"
        "<memory>1048576</memory><metadata><r:lease xmlns:r="
        "'https://example.org/reserve/1.0'>lease-1</r:lease></metadata>"
        "<os><type arch='x86_64'>hvm</type></os><devices>"
        "<disk type='file' device='disk'><source file='/var/lib/d.img'/>"
        "<target dev='vda'/></disk></devices></domain>")
    a100_host.attach('with-metadata', '0000:17:00.0')
    dom = conn.lookupByName('with-metadata')
    assert dom.metadata(libvirt.VIR_DOMAIN_METADATA_ELEMENT,
                        'https://example.org/reserve/1.0') == (
        '<lease>lease-1</lease>')
    assert "<source file='/var/lib/d.img'/>" in dom.XMLDesc(0)


def test_attach_to_a_running_transient_domain_needs_hot_plug(a100_host):
    with pytest.raises(exception.VirtError) as err:
        a100_host.attach('transient-vm', '0000:17:00.0')
    assert 'transient' in str(err.value)
    assert err.value.libvirt_code == libvirt.VIR_ERR_NO_SUPPORT
    assert a100_host.attached('transient-vm') == []


def test_mdev_without_hot_plug(t4_fake_no_hotplug):
    host = t4_fake_no_hotplug
    mdev = host.create_mdev('0000:d8:00.0', 'nvidia-222')
    assert host.attach('vgpu-vm-3', mdev) == hostdev.Hostdev(
        'mdev', mdev.uuid, live=None, config=True)
    host.detach('vgpu-vm-3', mdev)
    assert host.attach('vgpu-vm-2', mdev) == hostdev.Hostdev(
        'mdev', mdev.uuid, live=False, config=True)
    hosts.restart(host, 'vgpu-vm-2')
    assert ('mdev', mdev.uuid) in _keys(hosts.domain_xml(host, 'vgpu-vm-2'))


# With hot-plug: live and definition together -----------------------------

def test_hot_plug_into_a_running_domain(a100_fake):
    result = a100_fake.attach('gpu-vm-2', '0000:17:00.0')
    assert result == hostdev.Hostdev('pci', '0000:17:00.0', live=True,
                                     config=True)
    gpu = ('pci', '0000:17:00.0')
    assert gpu in _keys(hosts.domain_xml(a100_fake, 'gpu-vm-2'))
    assert A100_ADDRESS in hosts.domain_xml(a100_fake, 'gpu-vm-2',
                                            inactive=True)
    result = a100_fake.detach('gpu-vm-2', '0000:17:00.0')
    assert result == hostdev.Hostdev('pci', '0000:17:00.0', live=False,
                                     config=False)
    assert gpu not in _keys(hosts.domain_xml(a100_fake, 'gpu-vm-2'))
    assert A100_ADDRESS not in hosts.domain_xml(a100_fake, 'gpu-vm-2',
                                                inactive=True)


def test_hot_plug_into_a_transient_domain(a100_fake):
    result = a100_fake.attach('transient-vm', '0000:b1:00.0')
    assert result == hostdev.Hostdev('pci', '0000:b1:00.0', live=True,
                                     config=None)
    assert a100_fake.detach('transient-vm', '0000:b1:00.0').live is False


def test_hot_plug_completes_a_definition_only_attachment(a100_fake):
    """A device defined while hot-plug was unavailable is plugged live."""
    conn = hosts.libvirt_conn(a100_fake)
    dom = conn.lookupByName('gpu-vm-2')
    conn.defineXML(hostdev.add_hostdev(
        dom.XMLDesc(libvirt.VIR_DOMAIN_XML_INACTIVE), 'pci', '0000:17:00.0'))
    assert a100_fake.attach('gpu-vm-2', '0000:17:00.0') == hostdev.Hostdev(
        'pci', '0000:17:00.0', live=True, config=True)


def test_mdev_hot_plug(t4_fake):
    mdev = t4_fake.create_mdev('0000:d8:00.0', 'nvidia-230')
    assert t4_fake.attach('vgpu-vm-2', mdev.uuid) == hostdev.Hostdev(
        'mdev', mdev.uuid, live=True, config=True)
    live = hosts.domain_xml(t4_fake, 'vgpu-vm-2')
    assert ('mdev', mdev.uuid) in _keys(live)
    assert t4_fake.detach('vgpu-vm-2', mdev).live is False


# Conflicts -----------------------------------------------------------------

@pytest.mark.parametrize('fixture', ['a100_host', 'a100_fake'])
def test_a_device_goes_to_one_domain(request, fixture):
    host = request.getfixturevalue(fixture)
    with pytest.raises(exception.DeviceInUse) as err:
        host.attach('gpu-vm-2', '0000:ca:00.0')
    assert isinstance(err.value, common_exc.Conflict)
    assert err.value.code == 409
    assert str(err.value) == (
        'PCI device 0000:ca:00.0 is in use on %s: attached to domain '
        'gpu-vm-1.' % host.uri)
    assert host.attached('gpu-vm-2') == []


def test_a_defined_only_attachment_also_counts(a100_host):
    a100_host.attach('gpu-vm-3', '0000:17:00.0')       # shut off
    with pytest.raises(exception.DeviceInUse, match='domain gpu-vm-3'):
        a100_host.attach('gpu-vm-2', '0000:17:00.0')


def test_a_live_only_attachment_also_counts(a100_host):
    a100_host.detach('gpu-vm-1', '0000:ca:00.0')       # still live
    with pytest.raises(exception.DeviceInUse, match='domain gpu-vm-1'):
        a100_host.attach('gpu-vm-3', '0000:ca:00.0')


def test_iommu_group_goes_to_one_domain(rtx_host):
    rtx_host.attach('desk-vm-1', '0000:01:00.0')
    with pytest.raises(exception.DeviceInUse) as err:
        rtx_host.attach('desk-vm-2', '0000:01:00.1')
    assert 'its IOMMU group 12 0000:01:00.0 is attached to domain ' \
        'desk-vm-1' in str(err.value)
    # The same guest may have the whole group.
    assert rtx_host.attach('desk-vm-1', '0000:01:00.1').config is True


def test_sriov_pf_and_its_vfs_go_to_one_domain(a100_host):
    a100_host.attach('gpu-vm-3', '0000:31:00.4')
    with pytest.raises(exception.DeviceInUse,
                       match='its virtual function 0000:31:00.4'):
        a100_host.attach('gpu-vm-2', '0000:31:00.0')
    # Sibling VFs are independent.
    assert a100_host.attach('gpu-vm-2', '0000:31:00.5').config is True
    a100_host.detach('gpu-vm-3', '0000:31:00.4')
    a100_host.detach('gpu-vm-2', '0000:31:00.5')
    a100_host.attach('gpu-vm-3', '0000:31:00.0')
    with pytest.raises(exception.DeviceInUse,
                       match='its physical function 0000:31:00.0'):
        a100_host.attach('gpu-vm-2', '0000:31:00.6')


def test_a_vgpu_parent_is_not_passed_through_whole(t4_host):
    with pytest.raises(exception.DeviceInUse,
                       match='carries mediated devices 4b20d080'):
        t4_host.attach('vgpu-vm-2', '0000:3b:00.0')


def test_an_mdev_goes_to_one_domain(t4_host):
    with pytest.raises(exception.DeviceInUse) as err:
        t4_host.attach('vgpu-vm-2', '4b20d080-1b54-4048-85b3-a6a62d165c01')
    assert str(err.value).startswith(
        'mediated device 4b20d080-1b54-4048-85b3-a6a62d165c01 is in use')


def test_concurrent_attaches_of_one_gpu(a100_host):
    """The host lock makes check-and-attach atomic: one domain wins."""
    conn = hosts.libvirt_conn(a100_host)
    names = ['racer-%d' % i for i in range(8)]
    for name in names:
        conn.defineXML("<domain type='test'><name>%s</name><memory>1048576"
                       "</memory><os><type arch='x86_64'>hvm</type></os>"
                       "</domain>" % name)
    outcomes = {}
    barrier = threading.Barrier(len(names))

    def attach(name):
        barrier.wait()
        try:
            outcomes[name] = a100_host.attach(name, '0000:b1:00.0')
        except exception.DeviceInUse as exc:
            outcomes[name] = exc

    threads = [threading.Thread(target=attach, args=(n,)) for n in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winners = [n for n, o in outcomes.items()
               if isinstance(o, hostdev.Hostdev)]
    assert len(winners) == 1
    holders = [n for n in names if a100_host.attached(n)]
    assert holders == winners


# Errors ----------------------------------------------------------------------

def test_unknown_domain(a100_host):
    with pytest.raises(exception.DomainNotFound) as err:
        a100_host.attach('nope', '0000:17:00.0')
    assert err.value.code == 404


def test_unknown_pci_device(a100_host):
    with pytest.raises(exception.PciDeviceNotFound,
                       match='PCI device 0000:99:00.0 does not exist'):
        a100_host.attach('gpu-vm-2', '0000:99:00.0')


def test_unknown_mdev(t4_host):
    with pytest.raises(exception.MdevNotFound):
        t4_host.attach('vgpu-vm-2', '11111111-2222-3333-4444-555555555555')


def test_not_a_device(a100_host):
    with pytest.raises(exception.InvalidDevice):
        a100_host.attach('gpu-vm-2', 'gpu0')


# One connection per host -------------------------------------------------

def test_get_host_shares_one_connection_per_uri(override):
    # get_host takes test:/// URIs only with the fake test driver.
    override('fake_test_driver', True, 'devices')
    uri = host_definitions.host_uri(hosts.HOSTS / 'a100-host.xml')
    try:
        host = connection.get_host(uri)
        assert connection.get_host(uri) is host
        host.attach('gpu-vm-3', '0000:17:00.0')
        # Another user of the host sees the change: same connection.
        assert connection.get_host(uri).attached('gpu-vm-3') == [
            hostdev.Hostdev('pci', '0000:17:00.0', live=None, config=True)]
        # A connection of its own would see the file's host again.
        with hosts.open_host('a100-host.xml') as other:
            assert other.attached('gpu-vm-3') == []
    finally:
        hosts.close_hosts()
    assert connection.get_host(uri) is not host
    hosts.close_hosts()
