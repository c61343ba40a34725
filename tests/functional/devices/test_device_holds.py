"""Device reservations through the lease engine: which devices a hold may
take (not those of an overlapping reservation, of a function sharing
their hardware, or in use outside reserve; on a host whose domains it
can read), concurrent holds, and a dry run that writes nothing."""
import datetime
import pathlib
import threading

import pytest

from reserve.common import exception
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import device_reservations as device_reservations_db
from reserve.db import hosts as hosts_db
from reserve.devices import holds
from reserve.devices import hosts as device_hosts
from reserve.devices import selection
from reserve.manager import manager
from tests.functional.devices import gpu_cloud
from tests.functional.devices.gpu_cloud import A100_MODEL
from tests.functional.devices.gpu_cloud import ahead
from tests.functional.devices.gpu_cloud import iso


def test_overlap_with_the_same_devices_is_refused(cloud):
    host = cloud.enroll('a100-host.xml')
    device = cloud.device(host, '0000:17:00.0').id
    first = cloud.reserve(device_ids=[device], start=iso(ahead(hours=1)),
                          end=iso(ahead(hours=3)))
    with pytest.raises(exception.DevicesUnavailable) as caught:
        cloud.reserve(device_ids=[device], start=iso(ahead(hours=2)),
                      end=iso(ahead(hours=4)), project='project-b',
                      viewer='project-b')
    # The other project does not learn which reservation holds it.
    assert first not in caught.value.message
    assert 'reserved from' in caught.value.message
    # Back to back is fine (windows are half-open).
    cloud.reserve(device_ids=[device], start=iso(ahead(hours=3)),
                  end=iso(ahead(hours=4)))
    # A count request takes other devices.
    other = cloud.reserve(device_count=1, model=A100_MODEL,
                          start=iso(ahead(hours=2)), end=iso(ahead(hours=4)))
    assert [u.device_id for u in cloud.reservation(other).devices] != [device]


def test_functions_that_share_hardware_block_each_other(cloud):
    host = cloud.enroll('a100-host.xml')
    pf = cloud.device(host, '0000:31:00.0').id
    vf = cloud.device(host, '0000:31:00.5').id
    with pytest.raises(exception.Invalid):
        cloud.reserve(device_ids=[pf, vf])
    cloud.reserve(device_ids=[vf], start=iso(ahead(hours=1)))
    with pytest.raises(exception.DevicesUnavailable) as caught:
        cloud.reserve(device_ids=[pf], start=iso(ahead(hours=2)))
    assert 'shares hardware with 0000:31:00.5' in caught.value.message


def test_domains_are_read_outside_every_lock_and_steer_the_claim(
        cloud, monkeypatch):
    a100 = cloud.enroll('a100-host.xml', name='gpu-a100-01')
    cloud.enroll('t4-host.xml', name='gpu-t4-01')
    read, real = [], cloud.manager.host_domains

    def spy(context, host_id, name=None):
        host = hosts_db.host_get(context, host_id)
        read.append((host.name, device_hosts.host_lock(host.id)._is_owned(),
                     manager._SELECTION_LOCK.locked()))
        return real(context, host_id, name)

    monkeypatch.setattr(cloud.manager, 'host_domains', spy)
    rsv = cloud.reservation(cloud.reserve(
            device_count=1, domains=['gpu-vm-2']))
    assert rsv.host_id == a100.id
    cloud.tick()
    rsv = cloud.reservation(rsv.id)
    assert [(a.domain, a.state) for a in rsv.attachments] == [
        ('gpu-vm-2', 'ATTACHED')]
    # Once per host with devices of the request, before the hold.
    assert sorted(read) == [('gpu-a100-01', False, False),
                            ('gpu-t4-01', False, False)]
    read.clear()
    # A request naming its devices or its host is not steered: only its
    # host's domains are read, to check the one named.
    cloud.reserve(device_count=1, host_id=a100.id, domains=['gpu-vm-3'])
    assert read == [('gpu-a100-01', False, False)]


def test_a_host_whose_domains_cannot_be_read_is_not_chosen(cloud):
    a100 = cloud.enroll('a100-host.xml', name='gpu-a100-01')
    t4 = cloud.enroll('t4-host.xml', name='gpu-t4-01')
    pathlib.Path(t4.uri[len('test://'):]).unlink()
    gpu_cloud._forget(t4.uri)
    rsv = cloud.reservation(cloud.reserve(
            device_count=1, domains=['gpu-vm-2']))
    assert rsv.host_id == a100.id
    with pytest.raises(exception.DomainNotFound) as caught:
        cloud.reserve(device_count=1, domains=['vgpu-vm-2'])
    assert caught.value.message.startswith(
        'No host has domain vgpu-vm-2; hosts considered (the reservable '
        'hosts with devices of the request): gpu-a100-01, gpu-t4-01 (domains '
        'unreadable: could not connect to the libvirt host at %s: ' %
        t4.uri)
    assert len(device_reservations_db.device_reservation_list(cloud.ctx)) == 1


def test_devices_in_use_outside_reserve_cannot_be_reserved(cloud):
    host = cloud.enroll('a100-host.xml')
    with pytest.raises(exception.DevicesUnavailable) as caught:
        cloud.reserve(device_ids=[cloud.device(host, '0000:ca:00.0').id])
    assert 'in use by domain gpu-vm-1' in caught.value.message
    with pytest.raises(exception.DevicesDoNotFit) as caught:
        cloud.reserve(device_count=4, model=A100_MODEL)
    assert 'at most 3' in caught.value.message


def test_concurrent_holds_of_one_device_let_exactly_one_win(cloud):
    host = cloud.enroll('a100-host.xml')
    device = cloud.device(host, '0000:17:00.0').id
    results, barrier = [], threading.Barrier(6)

    def hold(n):
        barrier.wait()
        try:
            results.append(cloud.reserve(device_ids=[device],
                                         project='project-%d' % n,
                                         start=iso(ahead(hours=1))))
        except exception.DevicesUnavailable:
            results.append(None)

    threads = [threading.Thread(target=hold, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len([r for r in results if r]) == 1
    assert len(device_reservations_db.device_reservation_list(cloud.ctx)) == 1


def _dump(cloud):
    engine = db_api.get_engine()
    with engine.connect() as conn:
        return {table: sorted(map(tuple, conn.exec_driver_sql(
            'SELECT * FROM %s' % table).fetchall()), key=repr)
            for table in ('devices', 'device_reservations',
                          'device_reservation_devices', 'device_attachments',
                          'leases', 'events', 'lease_reservations',
                          'allocations', 'hosts')}


def test_the_dry_run_changes_nothing(cloud):
    host = cloud.enroll('a100-host.xml')
    cloud.reserve(device_count=1, model=A100_MODEL, domains=['gpu-vm-2'])
    before, libvirt_before = _dump(cloud), cloud.libvirt_state(host)
    now = timeutils.utcnow()
    chosen = holds.check(cloud.ctx, selection.Request(device_count=2,
                                                      model=A100_MODEL),
                         now, now + datetime.timedelta(hours=1))
    assert len(chosen.devices) == 2
    with pytest.raises(exception.DevicesDoNotFit):
        holds.check(cloud.ctx, selection.Request(
                device_count=3, model=A100_MODEL),
                    now, now + datetime.timedelta(hours=1))
    assert _dump(cloud) == before
    assert cloud.libvirt_state(host) == libvirt_before
