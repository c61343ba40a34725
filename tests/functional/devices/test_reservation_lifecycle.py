"""Device reservations through the lease engine: hold, start (attach),
end (detach, the VM keeps running), cancel, domains named while active,
a moved end, and the reconciliation of lost steps; which devices a hold
may take is test_device_claims.py's."""
import datetime
import time
import types

from oslo_config import cfg
import pytest

from reserve.capacity import store as capacity_store
from reserve.common import exception
from reserve.common import states as engine_states
from reserve.common import timeutils
from reserve.db import device_reservations as device_reservations_db
from reserve.db import events as events_db
from reserve.db import leases as leases_db
from reserve.devices import lifecycle
from reserve.devices import states
from reserve.manager import notify
from reserve import plugins
from reserve.plugins import device_gpu
from tests.functional.devices.gpu_cloud import A100_MODEL
from tests.functional.devices.gpu_cloud import ahead
from tests.functional.devices.gpu_cloud import iso

CONF = cfg.CONF


def _wait_start(seconds=1.1):
    time.sleep(seconds)


def test_the_plugin_is_found_by_its_resource_type():
    plugins._PLUGINS.clear()
    assert isinstance(plugins.get_plugin('device:gpu'),
                      device_gpu.DeviceGpuPlugin)


def test_pending_then_active_then_expired(cloud, monkeypatch):
    sent = []
    monkeypatch.setattr(notify, '_notifier', lambda: types.SimpleNamespace(
        info=lambda ctx, event_type, payload: sent.append(
            (event_type, payload['name']))))
    host = cloud.enroll('a100-host.xml')
    initial = cloud.libvirt_state(host)
    rsv_id = cloud.reserve(device_count=2, model=A100_MODEL, numa_local=True,
                           domains=['gpu-vm-2'], start=iso(ahead(seconds=3)),
                           end=iso(ahead(seconds=8)), reason='training')
    rsv = cloud.reservation(rsv_id)
    assert rsv.status == 'PENDING'
    assert sorted(u.device.pci_address for u in rsv.devices) == [
        '0000:17:00.0', '0000:31:00.0']
    assert rsv.topology_generation == host.topology_generation
    assert [a.state for a in rsv.attachments] == ['PLANNED', 'PLANNED']
    assert cloud.libvirt_state(host) == initial
    # Its lease: named after it, one device:gpu reservation of its id.
    lease = cloud.lease(rsv_id)
    assert lease.name == 'device-reservation-%s' % rsv_id
    assert [(r.id, r.resource_type, r.amount) for r in lease.reservations] \
        == [(rsv_id, 'device:gpu', 2)]
    assert [(a.host_id, a.amount) for a in lease.reservations[0].allocations
            ] == [(host.id, 2)]
    assert [e.event_type for e in lease.events] == [
        'start_lease', 'before_end_lease', 'end_lease']

    _wait_start(3.1)
    cloud.tick()
    rsv = cloud.reservation(rsv_id)
    assert rsv.status == 'ACTIVE'
    assert cloud.lease(rsv_id).status == engine_states.Lease.ACTIVE
    assert [(a.state, a.live, a.config) for a in rsv.attachments] == [
        ('ATTACHED', True, True)] * 2
    assert cloud.hostdevs(host)['gpu-vm-2'] == [('pci', '0000:17:00.0'),
                                                ('pci', '0000:31:00.0')]
    xml = cloud.conn(host).domain_xml('gpu-vm-2')
    assert "bus=\"0x17\"" in xml or "bus='0x17'" in xml

    # Room for a slow machine between the start and the end.
    time.sleep(5)
    cloud.tick(2)
    rsv = cloud.reservation(rsv_id)
    assert rsv.status == 'EXPIRED'
    assert rsv.released_at is not None
    assert [a.state for a in rsv.attachments] == ['DETACHED', 'DETACHED']
    # Detached; the guest keeps running.
    assert cloud.libvirt_state(host) == initial
    assert next(d for d in cloud.conn(host).domains()
                if d.name == 'gpu-vm-2').running
    assert cloud.lease(rsv_id).status == engine_states.Lease.TERMINATED
    # The lease engine's notifications, as for any lease.
    assert sent == [(event, 'device-reservation-%s' % rsv_id) for event in (
        'lease.create', 'lease.event.start_lease',
        'lease.event.before_end_lease', 'lease.event.end_lease')]


def test_a_reservation_starting_now_is_attached_by_its_start_at_once(cloud):
    host = cloud.enroll('t4-host.xml')
    rsv_id = cloud.reserve(device_count=1, model='Tesla T4',
                           mdev_type='nvidia-222', domains=['vgpu-vm-2'])
    assert [a.state for a in cloud.reservation(rsv_id).attachments] == [
        'PLANNED']
    # Its start event is due at once.
    assert cloud.tick() == 1
    rsv = cloud.reservation(rsv_id)
    [attachment] = rsv.attachments
    assert attachment.state == 'ATTACHED'
    assert attachment.kind == 'mdev'
    assert attachment.mdev_uuid in cloud.mdevs(host)
    assert cloud.hostdevs(host)['vgpu-vm-2'] == [('mdev',
                                                  attachment.mdev_uuid)]
    assert cloud.reservation(rsv_id).status == 'ACTIVE'


def test_open_ended_until_cancelled(cloud):
    host = cloud.enroll('a100-host.xml')
    initial = cloud.libvirt_state(host)
    rsv_id = cloud.reserve(device_ids=[cloud.device(host, '0000:b1:00.0').id],
                           domains=['gpu-vm-3'])
    rsv = cloud.reservation(rsv_id)
    assert states.is_open_end(rsv.end)
    assert cloud.lease(rsv_id).end == states.OPEN_END
    # A device lease writes no capacity allocation: the capacity model's
    # longest allocation (an INTEGER of seconds, which an open end would
    # overflow on MariaDB and PostgreSQL) is not stretched to its open
    # end.
    assert capacity_store.read_state(cloud.ctx).longest_allocation == 0
    cloud.tick()
    assert cloud.hostdevs(host)['gpu-vm-3'] == [('pci', '0000:b1:00.0')]
    assert cloud.cancel(rsv_id) is True
    assert cloud.reservation(rsv_id).status == 'CANCELLED'
    # The worker's light read shows the desk's close too, not the status
    # the lease recorded.
    row = device_reservations_db.device_reservation_row(cloud.ctx, rsv_id)
    assert (row.id, row.status, row.released_at) == (
        rsv_id, 'CANCELLED', None)
    assert cloud.lease(rsv_id).status == engine_states.Lease.DELETING
    cloud.tick()
    rsv = cloud.reservation(rsv_id)
    assert rsv.status == 'CANCELLED' and rsv.released_at is not None
    assert cloud.lease(rsv_id) is None     # the lease's delete path
    assert cloud.libvirt_state(host) == initial
    assert cloud.cancel(rsv_id) is False


def test_end_action_destroy_powers_the_domain_off(cloud):
    CONF.set_override('end_action', 'destroy', group='devices')
    try:
        host = cloud.enroll('a100-host.xml')
        rsv_id = cloud.reserve(device_ids=[cloud.device(host,
                                                        '0000:17:00.0').id],
                               domains=['gpu-vm-2'])
        cloud.tick()
        cloud.cancel(rsv_id)
        cloud.tick()
    finally:
        CONF.clear_override('end_action', group='devices')
    domain = next(d for d in cloud.conn(host).domains()
                  if d.name == 'gpu-vm-2')
    assert not domain.running
    assert cloud.hostdevs(host)['gpu-vm-2'] == []


def test_domains_named_while_active(cloud):
    host = cloud.enroll('t4-host.xml')
    initial = cloud.libvirt_state(host)
    rsv_id = cloud.reserve(
            device_count=1, model='Tesla T4', mdev_type='nvidia-222')
    cloud.tick()
    assert cloud.reservation(rsv_id).status == 'ACTIVE'
    cloud.manager.attach_device_domain(cloud.ctx, rsv_id, 'vgpu-vm-2', None,
                                       'project-a')
    cloud.manager.attach_device_domain(cloud.ctx, rsv_id, 'vgpu-vm-3', None,
                                       'project-b')
    rsv = cloud.reservation(rsv_id)
    assert sorted((a.domain, a.state) for a in rsv.attachments) == [
        ('vgpu-vm-2', 'ATTACHED'), ('vgpu-vm-3', 'ATTACHED')]
    assert len(cloud.mdevs(host)) == len(initial[1]) + 2
    # Idempotent.
    cloud.manager.attach_device_domain(cloud.ctx, rsv_id, 'vgpu-vm-2', None,
                                       'project-a')
    assert len(cloud.reservation(rsv_id).attachments) == 2
    with pytest.raises(exception.Forbidden):
        cloud.manager.detach_device_domain(cloud.ctx, rsv_id, 'vgpu-vm-3',
                                           'project-a')
    cloud.manager.detach_device_domain(cloud.ctx, rsv_id, 'vgpu-vm-3',
                                       'project-b')
    assert cloud.hostdevs(host)['vgpu-vm-3'] == initial[0]['vgpu-vm-3']
    cloud.manager.set_device_domains(cloud.ctx, rsv_id, ['vgpu-vm-3'],
                                     'project-a')
    rsv = cloud.reservation(rsv_id)
    assert [a.domain for a in rsv.attachments] == ['vgpu-vm-3']
    with pytest.raises(exception.Invalid) as caught:
        cloud.manager.attach_device_domain(cloud.ctx, rsv_id, 'no-such-vm',
                                           None, 'project-a')
    assert 'no-such-vm does not exist' in caught.value.message
    cloud.cancel(rsv_id)
    cloud.tick()
    assert cloud.libvirt_state(host) == initial


def test_passthrough_devices_go_to_one_domain_each(cloud):
    host = cloud.enroll('a100-host.xml')
    rsv_id = cloud.reserve(device_count=2, model=A100_MODEL,
                           domains=['gpu-vm-2', 'gpu-vm-3'])
    cloud.tick()
    holders = cloud.hostdevs(host)
    assert len(holders['gpu-vm-2']) == len(holders['gpu-vm-3']) == 1
    with pytest.raises(exception.Conflict):
        cloud.manager.attach_device_domain(cloud.ctx, rsv_id,
                                           'transient-vm', None,
                                           'project-a')
    with pytest.raises(exception.Invalid):
        cloud.reserve(device_count=1, model=A100_MODEL,
                      domains=['gpu-vm-2', 'gpu-vm-3'])


def test_moving_the_end_checks_the_devices(cloud):
    host = cloud.enroll('a100-host.xml')
    device = cloud.device(host, '0000:17:00.0').id
    base = ahead(hours=1).replace(microsecond=0)

    def at(hours, seconds=0):
        return base + datetime.timedelta(hours=hours, seconds=seconds)

    first = cloud.reserve(
            device_ids=[device], start=iso(at(0)), end=iso(at(1)))
    cloud.reserve(device_ids=[device], start=iso(at(2)), end=iso(at(3)))
    with pytest.raises(exception.Conflict):
        cloud.manager.move_device_reservation_end(cloud.ctx, first,
                                                  at(2, seconds=1))
    with pytest.raises(exception.Conflict):
        cloud.manager.move_device_reservation_end(cloud.ctx, first, None)
    cloud.manager.move_device_reservation_end(cloud.ctx, first, at(2))
    assert cloud.reservation(first).end == \
        base + datetime.timedelta(hours=2)
    assert cloud.reservation(first).end == cloud.lease(first).end


def test_device_leases_are_not_booking_orphans(cloud):
    cloud.enroll('a100-host.xml')
    cloud.reserve(device_count=1, model=A100_MODEL)
    assert leases_db.lease_list_orphans(
        cloud.ctx, created_before=ahead(hours=1)) == []


def test_the_reconciler_finishes_a_cancel_whose_lease_was_not_deleted(
        cloud):
    host = cloud.enroll('a100-host.xml')
    rsv_id = cloud.reserve(device_ids=[cloud.device(host, '0000:17:00.0').id],
                           domains=['gpu-vm-2'])
    cloud.tick()
    # Cancelled, and the delete_device_lease cast lost (or the manager died
    # between the status and the lease's delete path).
    device_reservations_db.device_reservation_close(
        cloud.ctx, rsv_id, 'CANCELLED', 'lost', ('PENDING', 'ACTIVE'))
    assert cloud.reconcile()['device_cancels'] == 1
    assert cloud.lease(rsv_id).status == engine_states.Lease.DELETING
    cloud.tick()
    assert cloud.reservation(rsv_id).released_at is not None
    assert cloud.hostdevs(host)['gpu-vm-2'] == []
    assert cloud.reconcile()['device_cancels'] == 0


def test_settle_releases_what_a_lost_lease_left_attached(cloud):
    host = cloud.enroll('a100-host.xml')
    rsv_id = cloud.reserve(device_ids=[cloud.device(host, '0000:17:00.0').id],
                           domains=['gpu-vm-2'])
    waiting = cloud.reserve(device_ids=[cloud.device(host, '0000:b1:00.0').id],
                            start=iso(ahead(hours=1)))
    cloud.tick()
    assert cloud.hostdevs(host)['gpu-vm-2']
    # Its lease is gone (removed by hand, say) while its device is attached.
    leases_db.lease_destroy(cloud.ctx, cloud.lease(rsv_id).id)
    leases_db.lease_destroy(cloud.ctx, cloud.lease(waiting).id)
    assert lifecycle.settle(cloud.ctx) == [rsv_id]
    assert cloud.reservation(rsv_id).released_at is not None
    assert cloud.hostdevs(host)['gpu-vm-2'] == []
    # One with nothing on the host is the reconciler's: it gets its lease
    # again.
    assert cloud.reservation(waiting).released_at is None
    assert cloud.reconcile()['device_leases'] == 1
    assert cloud.lease(waiting) is not None
    assert lifecycle.settle(cloud.ctx) == []


def test_setting_domains_that_fail_leaves_the_reservation_as_it_was(cloud):
    host = cloud.enroll('a100-host.xml')
    rsv_id = cloud.reserve(
            device_count=1, model=A100_MODEL, domains=['gpu-vm-2'])
    cloud.tick()
    before = cloud.libvirt_state(host)
    # gpu-vm-2 gives its device up for two domains: one device cannot go to
    # both, so the second attach fails and gpu-vm-2 gets it back.
    with pytest.raises(exception.Conflict):
        cloud.manager.set_device_domains(
            cloud.ctx, rsv_id, ['gpu-vm-3', 'transient-vm'], 'project-a')
    assert cloud.libvirt_state(host) == before
    rsv = cloud.reservation(rsv_id)
    assert [(a.domain, a.state) for a in rsv.attachments] == [
        ('gpu-vm-2', 'ATTACHED')]
    # Moving it whole works.
    cloud.manager.set_device_domains(cloud.ctx, rsv_id, ['gpu-vm-3'],
                                     'project-a')
    assert [a.domain for a in cloud.reservation(rsv_id).attachments] == [
        'gpu-vm-3']


def test_a_start_waits_for_the_late_end_before_it(cloud):
    # Back to back on one device; the first's end is held by a manager that
    # died. The second must not attach what that end would take away.
    host = cloud.enroll('a100-host.xml')
    device = cloud.device(host, '0000:17:00.0').id
    first = cloud.reserve(device_ids=[device], domains=['gpu-vm-2'],
                          start=iso(ahead(seconds=2)),
                          end=iso(ahead(seconds=4)))
    second = cloud.reserve(device_ids=[device], domains=['gpu-vm-3'],
                           start=iso(ahead(seconds=4)),
                           end=iso(ahead(hours=1)))
    _wait_start(2.1)
    cloud.tick()
    assert cloud.reservation(first).status == 'ACTIVE'
    end = next(e for e in cloud.lease(first).events
               if e.event_type == 'end_lease')
    events_db.event_update(cloud.ctx, end.id, {
        'status': 'IN_PROGRESS', 'taken_by': 'manager-gone',
        'taken_at': timeutils.utcnow()})
    _wait_start(2.1)

    cloud.tick()
    start = next(e for e in cloud.lease(second).events
                 if e.event_type == 'start_lease')
    assert (start.status, start.attempts) == ('ERROR', 0)   # not counted
    assert 'whose end has not run yet' in start.last_error
    assert cloud.reservation(second).status == 'PENDING'
    assert 'start_lease waits' in cloud.lease(second).status_reason
    assert cloud.hostdevs(host)['gpu-vm-2'] == [('pci', '0000:17:00.0')]
    assert cloud.hostdevs(host)['gpu-vm-3'] == []

    # The end is taken over; the start follows once it has run.
    events_db.event_update(cloud.ctx, end.id, {'status': 'UNDONE'})
    # (retried after [manager]event_retry_interval, dates to the second)
    _wait_start(2.1)
    cloud.tick(2)
    assert cloud.reservation(first).status == 'EXPIRED'
    assert cloud.reservation(second).status == 'ACTIVE'
    assert cloud.hostdevs(host)['gpu-vm-2'] == []
    assert cloud.hostdevs(host)['gpu-vm-3'] == [('pci', '0000:17:00.0')]
