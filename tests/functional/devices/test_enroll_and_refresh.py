"""Libvirt hosts enrolled by URI: discovery into device rows, the
topology generation, and rediscovery (devices that go missing, a changed
generation putting reservations in needs-review)."""
import re
import time

import pytest

from reserve.common import exception
from reserve.db import devices as devices_db
from reserve.db import leases as leases_db
from reserve.devices import refresh
from reserve.devices import states
from tests.functional.devices import gpu_cloud


def _rows(cloud, host):
    return {d.pci_address: d for d in devices_db.device_list(
        cloud.ctx, host_ids=[host.id])}


def test_enroll_discovers_the_gpus(cloud):
    host = cloud.enroll('a100-host.xml', name='gpu-box-1')
    assert host.kind == 'libvirt'
    assert host.name == 'gpu-box-1'
    assert re.fullmatch('[0-9a-f]{64}', host.topology_generation)
    assert host.topology_generation == \
        cloud.conn(host).topology_generation()
    assert host.refreshed_at is not None and host.refresh_error is None
    rows = _rows(cloud, host)
    # Four A100s and the four VFs of the one with SR-IOV; not the NIC.
    assert sorted(rows) == [
        '0000:17:00.0', '0000:31:00.0', '0000:31:00.4', '0000:31:00.5',
        '0000:31:00.6', '0000:31:00.7', '0000:b1:00.0', '0000:ca:00.0']
    a100 = rows['0000:17:00.0']
    assert (a100.vendor_id, a100.product_id) == ('0x10de', '0x20b2')
    assert a100.product_name == 'GA100 [A100 SXM4 80GB]'
    assert a100.vendor_name == 'NVIDIA Corporation'
    assert (a100.numa_node, a100.iommu_group) == (0, 22)
    assert a100.name == 'pci_0000_17_00_0'
    assert a100.state == states.Device.PRESENT and a100.in_use_by == []
    pf = rows['0000:31:00.0']
    assert pf.virtual_functions == ['0000:31:00.4', '0000:31:00.5',
                                    '0000:31:00.6', '0000:31:00.7']
    assert pf.max_virtual_functions == 16
    assert rows['0000:31:00.5'].physical_function == '0000:31:00.0'
    # gpu-vm-1 holds this one, outside reserve.
    assert rows['0000:ca:00.0'].in_use_by == ['domain gpu-vm-1']


def test_mdev_types_and_foreign_mdevs(cloud):
    host = cloud.enroll('t4-host.xml')
    rows = _rows(cloud, host)
    t4 = rows['0000:d8:00.0']
    assert t4.mdev_types == [
        {'id': 'nvidia-222', 'name': 'GRID T4-1B', 'available_instances':
         16, 'device_api': 'vfio-pci'},
        {'id': 'nvidia-230', 'name': 'GRID T4-16Q', 'available_instances':
         1, 'device_api': 'vfio-pci'}]
    assert t4.in_use_by == []
    busy = rows['0000:3b:00.0']
    assert busy.mdevs == [{'uuid': '4b20d080-1b54-4048-85b3-a6a62d165c01',
                           'type_id': 'nvidia-222'}]
    assert busy.in_use_by == ['mdev 4b20d080-1b54-4048-85b3-a6a62d165c01']


def test_enroll_twice_is_a_conflict_and_a_bad_uri_a_clear_error(cloud):
    host = cloud.enroll('rtx-workstation.xml')
    with pytest.raises(exception.HostAlreadyEnrolled):
        cloud.manager.create_host(cloud.ctx, {'name': 'again',
                                              'uri': host.uri})
    with pytest.raises(exception.LibvirtHostUnreachable) as caught:
        cloud.manager.create_host(cloud.ctx, {
            'name': 'ghost', 'uri': 'test:///no/such/definition.xml'})
    assert 'test:///no/such/definition.xml' in caught.value.message
    assert [h.name for h in devices_db.libvirt_hosts(cloud.ctx)] == [
        host.name]


def test_refresh_marks_a_removed_gpu_missing_and_moves_the_generation(
        cloud):
    host = cloud.enroll('a100-host.xml')
    before = host.topology_generation
    cloud.topology_change(host, lambda text: re.sub(
        r'\s*<device>\s*<name>pci_0000_b1_00_0</name>.*?</device>', '',
        text, count=1, flags=re.S))
    report = refresh.refresh(cloud.ctx, host.id)
    assert report['missing'] == ['0000:b1:00.0']
    assert report['previous_generation'] == before
    assert report['topology_generation'] != before
    assert _rows(cloud, host)['0000:b1:00.0'].state == states.Device.MISSING
    report = refresh.refresh(cloud.ctx, host.id)
    assert report['missing'] == [] and report['needs_review'] == []


def test_a_changed_topology_puts_reservations_in_review(cloud):
    host = cloud.enroll('a100-host.xml')
    active = cloud.reserve(device_ids=[cloud.device(host, '0000:17:00.0').id],
                           domains=['gpu-vm-2'])
    cloud.tick()
    assert cloud.reservation(active).status == 'ACTIVE'
    before = cloud.libvirt_state(host)
    assert ('pci', '0000:17:00.0') in before[0]['gpu-vm-2']
    # A NUMA node moves: the generation changes.
    cloud.topology_change(host, lambda text: re.sub(
        r"(<name>pci_0000_ca_00_0</name>.*?)<numa node='1'/>",
        r"\1<numa node='0'/>", text, count=1, flags=re.S))
    cloud.conn(host).attach('gpu-vm-2', '0000:17:00.0')  # reopened host
    report = refresh.refresh(cloud.ctx, host.id)
    assert report['needs_review'] == [active]
    rsv = cloud.reservation(active)
    assert rsv.status == 'NEEDS_REVIEW'
    assert 'topology' in rsv.status_reason
    # It grants nothing: detached. It still withholds its device.
    assert cloud.hostdevs(host)['gpu-vm-2'] == []
    assert rsv.released_at is None
    with pytest.raises(exception.DevicesUnavailable):
        cloud.reserve(device_ids=[cloud.device(host, '0000:17:00.0').id],
                      project='project-b')
    # Re-affirmed, it is attached again against the new generation.
    cloud.manager.affirm_device_reservation(cloud.ctx, active, 'root')
    rsv = cloud.reservation(active)
    assert rsv.status == 'ACTIVE'
    assert rsv.topology_generation == \
        cloud.conn(host).topology_generation()
    assert ('pci', '0000:17:00.0') in cloud.hostdevs(host)['gpu-vm-2']


def test_affirm_is_refused_while_a_device_is_missing(cloud):
    host = cloud.enroll('a100-host.xml')
    rsv_id = cloud.reserve(device_ids=[cloud.device(host, '0000:b1:00.0').id],
                           start=cloud_iso(hours=1))
    cloud.topology_change(host, lambda text: re.sub(
        r'\s*<device>\s*<name>pci_0000_b1_00_0</name>.*?</device>', '',
        text, count=1, flags=re.S))
    refresh.refresh(cloud.ctx, host.id)
    assert cloud.reservation(rsv_id).status == 'NEEDS_REVIEW'
    with pytest.raises(exception.DevicesUnavailable) as caught:
        cloud.manager.affirm_device_reservation(cloud.ctx, rsv_id, 'root')
    assert '0000:b1:00.0' in caught.value.message
    assert cloud.reservation(rsv_id).status == 'NEEDS_REVIEW'
    # Cancelling it frees the device record.
    assert cloud.cancel(rsv_id) is True
    cloud.tick()
    assert cloud.reservation(rsv_id).released_at is not None


def test_start_checks_the_generation_itself(cloud):
    """A change the periodic refresh has not seen yet is caught at
    start: nothing is attached to a moved GPU."""
    host = cloud.enroll('a100-host.xml')
    rsv_id = cloud.reserve(device_ids=[cloud.device(host, '0000:17:00.0').id],
                           domains=['gpu-vm-2'], start=cloud_iso(seconds=3))
    before = cloud.libvirt_state(host)
    cloud.topology_change(host, lambda text: text.replace(
        "<iommuGroup number='22'>", "<iommuGroup number='23'>", 1))
    time.sleep(3.1)
    cloud.tick()
    assert cloud.reservation(rsv_id).status == 'NEEDS_REVIEW'
    assert cloud.hostdevs(host) == before[0]


def test_refresh_restores_what_an_active_reservation_lost(cloud):
    """A test:/// host starts afresh with its process (the all-in-one
    restarted): the next discovery attaches the devices and re-creates the
    mdevs of active reservations, with the same UUIDs."""
    host = cloud.enroll('t4-host.xml')
    rsv_id = cloud.reserve(
            device_count=1, model='Tesla T4', mdev_type='nvidia-222',
            domains=['vgpu-vm-2', 'vgpu-vm-3'])
    cloud.tick()
    rsv = cloud.reservation(rsv_id)
    assert rsv.status == 'ACTIVE'
    held = cloud.libvirt_state(host)
    uuids = sorted(a.mdev_uuid for a in rsv.attachments)
    assert set(uuids) <= set(held[1])
    cloud.topology_change(host, lambda text: text)   # reopened as new
    assert not set(uuids) & set(cloud.mdevs(host))
    report = refresh.refresh(cloud.ctx, host.id)
    assert report['restored'] == [rsv_id]
    assert cloud.libvirt_state(host) == held
    assert refresh.refresh(cloud.ctx, host.id)['restored'] == []


def cloud_iso(**delta):
    return gpu_cloud.iso(gpu_cloud.ahead(**delta))


def test_the_manager_refreshes_every_interval(cloud):
    host = cloud.enroll('a100-host.xml')
    cloud.topology_change(host, lambda text: re.sub(
        r'\s*<device>\s*<name>pci_0000_b1_00_0</name>.*?</device>', '',
        text, count=1, flags=re.S))
    gpu_cloud.CONF.set_override('refresh_interval', 1, group='devices')
    loop = refresh.RefreshLoop()
    try:
        loop.start()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if _rows(cloud, host)['0000:b1:00.0'].state == 'MISSING':
                break
            time.sleep(0.2)
    finally:
        loop.stop()
        gpu_cloud.CONF.clear_override('refresh_interval', group='devices')
    assert _rows(cloud, host)['0000:b1:00.0'].state == 'MISSING'


def test_no_periodic_refresh_at_interval_zero(cloud, monkeypatch):
    refreshed = []
    monkeypatch.setattr(refresh, 'refresh_all',
                        lambda *args: refreshed.append(args))
    gpu_cloud.CONF.set_override('refresh_interval', 0, group='devices')
    try:
        loop = refresh.RefreshLoop()
        loop.start()
        loop._thread.join(10)   # it settles once, then is done
        assert not loop._thread.is_alive()
        loop.stop()
    finally:
        gpu_cloud.CONF.clear_override('refresh_interval', group='devices')
    assert refreshed == []


def test_a_restarted_manager_settles_a_lost_lease_at_once(cloud):
    """A reservation left attached without its lease is released as
    soon as the manager runs again, not one refresh interval (300 s)
    later. (A cancellation whose lease was not deleted is the worker's
    reconciler's.)"""
    host = cloud.enroll('a100-host.xml')
    rsv_id = cloud.reserve(device_ids=[cloud.device(host, '0000:17:00.0').id],
                           domains=['gpu-vm-2'])
    cloud.tick()
    leases_db.lease_destroy(cloud.ctx, cloud.lease(rsv_id).id)
    loop = refresh.RefreshLoop()
    loop.start()
    loop._thread.join(0.1)
    loop.stop()
    cloud.tick()
    assert cloud.reservation(rsv_id).released_at is not None
    assert cloud.hostdevs(host)['gpu-vm-2'] == []
