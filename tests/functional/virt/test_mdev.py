"""Mediated devices: HostConnection over the fake's mdev lifecycle, and
what the bare test driver does (refuses to create, pretends to destroy)."""
import uuid as uuid_lib

import pytest

from reserve.common import exception as common_exc
from reserve.virt import discovery
from reserve.virt import exception
from reserve_fakes import libvirt_host
from tests.functional.virt import hosts

EXISTING = '4b20d080-1b54-4048-85b3-a6a62d165c01'


def _available(host, address, type_id):
    return host.gpu(address).mdev_type(type_id).available_instances


def test_create_and_remove(t4_fake):
    uuid = str(uuid_lib.uuid4())
    created = t4_fake.create_mdev('0000:d8:00.0', 'nvidia-222', uuid=uuid)
    assert created == discovery.Mdev(
        name='mdev_%s_0000_d8_00_0' % uuid.replace('-', '_'), uuid=uuid,
        type_id='nvidia-222', parent='pci_0000_d8_00_0',
        parent_address='0000:d8:00.0', iommu_group=201)
    assert created in t4_fake.mdevs()
    assert _available(t4_fake, '0000:d8:00.0', 'nvidia-222') == 15
    assert t4_fake.remove_mdev(uuid) is True
    assert created not in t4_fake.mdevs()
    assert _available(t4_fake, '0000:d8:00.0', 'nvidia-222') == 16
    assert t4_fake.remove_mdev(uuid) is False     # already gone


def test_create_picks_a_uuid_and_accepts_the_gpu(t4_fake):
    gpu = t4_fake.gpu('0000:3b:00.0')
    created = t4_fake.create_mdev(gpu, 'nvidia-222')
    assert str(uuid_lib.UUID(created.uuid)) == created.uuid
    assert created.parent == 'pci_0000_3b_00_0'
    assert _available(t4_fake, gpu.address, 'nvidia-222') == 14


def test_create_is_idempotent_for_the_same_uuid(t4_fake):
    first = t4_fake.create_mdev('pci_0000_d8_00_0', 'nvidia-222',
                                uuid='AAAAAAAA-1111-2222-3333-444444444444')
    again = t4_fake.create_mdev('0000:d8:00.0', 'nvidia-222',
                                uuid='aaaaaaaa-1111-2222-3333-444444444444')
    assert again == first
    assert _available(t4_fake, '0000:d8:00.0', 'nvidia-222') == 15


def test_uuid_taken_by_another_mdev(t4_fake):
    with pytest.raises(exception.MdevExists) as err:
        t4_fake.create_mdev('0000:d8:00.0', 'nvidia-222', uuid=EXISTING)
    assert isinstance(err.value, common_exc.Conflict)
    assert str(err.value) == (
        'Mediated device %s already exists on 0000:3b:00.0 with type '
        'nvidia-222.' % EXISTING)


def test_no_available_instances(t4_fake):
    with pytest.raises(exception.MdevTypeExhausted) as err:
        t4_fake.create_mdev('0000:3b:00.0', 'nvidia-230')
    assert str(err.value) == ('No available instances of mediated device '
                              'type nvidia-230 on 0000:3b:00.0.')
    t4_fake.create_mdev('0000:d8:00.0', 'nvidia-230')
    with pytest.raises(exception.MdevTypeExhausted):
        t4_fake.create_mdev('0000:d8:00.0', 'nvidia-230')


def test_type_not_offered(t4_fake, a100_fake):
    with pytest.raises(exception.MdevTypeNotSupported,
                       match=r'offers no mediated device type nvidia-999 '
                             r'\(it offers: nvidia-222, nvidia-230\)'):
        t4_fake.create_mdev('0000:3b:00.0', 'nvidia-999')
    with pytest.raises(exception.MdevTypeNotSupported,
                       match=r'\(it offers: none\)'):
        a100_fake.create_mdev('0000:17:00.0', 'nvidia-222')


def test_unknown_parent(t4_fake):
    with pytest.raises(exception.PciDeviceNotFound):
        t4_fake.create_mdev('0000:99:00.0', 'nvidia-222')


def test_not_on_a_gpu_passed_through_whole(t4_fake):
    t4_fake.attach('vgpu-vm-3', '0000:d8:00.0')
    with pytest.raises(exception.DeviceInUse,
                       match='passed through whole to domain vgpu-vm-3'):
        t4_fake.create_mdev('0000:d8:00.0', 'nvidia-222')


def test_remove_refused_while_attached(t4_fake):
    with pytest.raises(exception.DeviceInUse,
                       match='attached to domain vgpu-vm-1'):
        t4_fake.remove_mdev(EXISTING)
    # Detached from the guest (live and definition), it can go.
    assert t4_fake.detach('vgpu-vm-1', EXISTING).live is False
    assert t4_fake.remove_mdev(EXISTING) is True
    assert t4_fake.mdevs() == []
    assert _available(t4_fake, '0000:3b:00.0', 'nvidia-222') == 16


def test_mdevs_of_a_connection_are_its_own():
    with hosts.open_host('t4-host.xml', libvirt_host.opener()) as one:
        one.create_mdev('0000:d8:00.0', 'nvidia-222')
        with hosts.open_host('t4-host.xml', libvirt_host.opener()) as other:
            assert [m.uuid for m in other.mdevs()] == [EXISTING]


# The bare test driver --------------------------------------------------------

def test_bare_test_driver_cannot_create(t4_host):
    with pytest.raises(exception.VirtError,
                       match='create_mdev failed: the host reported a '
                             'failure') as caught:
        t4_host.create_mdev('0000:d8:00.0', 'nvidia-222')
    # libvirt's own words are for the log, not the caller.
    assert 'fibre channel' not in str(caught.value)
    assert 'Device is not a fibre channel HBA' in caught.value.detail


def test_bare_test_driver_destroy_is_caught_out(t4_host):
    t4_host.detach('vgpu-vm-1', EXISTING)
    hosts.libvirt_conn(t4_host).lookupByName('vgpu-vm-1').destroy()
    with pytest.raises(exception.VirtError,
                       match='reported success but the device is still '
                             'there'):
        t4_host.remove_mdev(EXISTING)
