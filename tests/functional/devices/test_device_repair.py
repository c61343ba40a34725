"""The repair task on device reservations: a hostdev or mdev taken from
its domain by hand is attached again, said, counted and notified (libvirt
test:/// hosts, completed by reserve_fakes)."""
from reserve.db import deliveries as deliveries_db
from reserve.manager import repair
from tests.functional.devices.gpu_cloud import A100_MODEL
from tests.functional.devices.gpu_cloud import T4_MODEL
from tests.functional.repair_cloud import sent  # noqa: F401


def _active(cloud, **values):
    rsv_id = cloud.reserve(**values)
    cloud.tick()
    assert cloud.reservation(rsv_id).status == 'ACTIVE'
    return rsv_id


def _repairs(cloud, rsv_id):
    return deliveries_db.delivery_get(cloud.ctx, 'device-reservation',
                                      rsv_id).repairs


def test_a_hostdev_detached_by_hand_is_attached_again(cloud, sent):
    host = cloud.enroll('a100-host.xml')
    rsv_id = _active(cloud, device_count=1, model=A100_MODEL,
                     domains=['gpu-vm-2'])
    [attached] = cloud.hostdevs(host)['gpu-vm-2']
    address = attached[1]
    cloud.conn(host).detach('gpu-vm-2', address)
    assert cloud.hostdevs(host)['gpu-vm-2'] == []

    assert repair.repair_drift(cloud.ctx) == {'repaired': 1, 'failed': 0}
    assert cloud.hostdevs(host)['gpu-vm-2'] == [attached]
    [row] = cloud.reservation(rsv_id).attachments
    assert (row.state, row.live, row.config) == ('ATTACHED', True, True)
    said = ['hostdev %s re-attached to domain gpu-vm-2' % address]
    assert _repairs(cloud, rsv_id) == 1
    assert [(e, p['reservation_id'], p['owner_type'], p['repairs'])
            for e, p in sent] == [('reserve.reservation.repaired', rsv_id,
                                   'device-reservation', said)]

    assert repair.repair_drift(cloud.ctx) == {'repaired': 0, 'failed': 0}
    assert _repairs(cloud, rsv_id) == 1
    assert len(sent) == 1


def test_an_mdev_detached_by_hand_is_attached_again(cloud, sent):
    host = cloud.enroll('t4-host.xml')
    rsv_id = _active(cloud, device_count=1, model=T4_MODEL,
                     mdev_type='nvidia-222', domains=['vgpu-vm-2'])
    [row] = cloud.reservation(rsv_id).attachments
    cloud.conn(host).detach('vgpu-vm-2', row.mdev_uuid)

    assert repair.repair_drift(cloud.ctx)['repaired'] == 1
    assert cloud.hostdevs(host)['vgpu-vm-2'] == [('mdev', row.mdev_uuid)]
    assert sent[0][1]['repairs'] == [
        'mdev %s re-attached to domain vgpu-vm-2' % row.mdev_uuid]
    assert repair.repair_drift(cloud.ctx)['repaired'] == 0


def test_a_reservation_with_all_in_place_is_left_alone(cloud, sent):
    host = cloud.enroll('a100-host.xml')
    _active(cloud, device_count=2, model=A100_MODEL, domains=['gpu-vm-2'])
    before = cloud.libvirt_state(host)
    assert repair.repair_drift(cloud.ctx) == {'repaired': 0, 'failed': 0}
    assert cloud.libvirt_state(host) == before
    assert sent == []
