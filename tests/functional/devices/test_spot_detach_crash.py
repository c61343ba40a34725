"""A manager that dies in a spot user's detach, between libvirt's detach
and the rows (reserve.devices.spot.detach): what the manager's start
and its refreshes (the settle, the hosts' rediscovery) then make of it,
on a libvirt test:/// host run by the real lease manager.

* The row still ATTACHED: the refresh attaches the device to the spot
  domain again; records and host agree, and a detach again gives it
  back.
* The row DETACHED, not yet deleted: the device is free on the market
  already; no refresh attaches it again, and the settle deletes the row.
"""
import pytest

from reserve.db import device_reservations as device_reservations_db
from reserve.db import domain_owners as owners_db
from reserve.db import spot_devices as spot_devices_db
from reserve.devices import refresh
from reserve.devices import spot
from reserve.devices import states
from tests.functional.devices import gpu_cloud

SPOT_DOMAIN = 'gpu-vm-3'


class _Crash(Exception):
    """The manager dying."""


def _dying(*args, **kwargs):
    raise _Crash()


@pytest.fixture
def lent(cloud):
    """(host, reservation id, device id, its PCI address): an active
    reservation of two A100s whose second is lent and attached to
    project-b's spot domain."""
    host = cloud.enroll('a100-host.xml', name='gpu-box-1')
    for domain, project in (('gpu-vm-2', 'project-a'),
                            (SPOT_DOMAIN, 'project-b')):
        owners_db.owner_set(cloud.ctx, host.id, domain, project)
    rsv = cloud.reserve(device_count=2, model=gpu_cloud.A100_MODEL,
                        host_id=host.id)
    cloud.tick()
    device = sorted(cloud.reservation(rsv).devices,
                    key=lambda u: u.device.pci_address)[1]
    cloud.manager.release_devices(cloud.ctx, rsv, [device.device_id])
    cloud.manager.attach_spot_device(cloud.ctx, device.device_id,
                                     SPOT_DOMAIN, 'project-b')
    return host, rsv, device.device_id, device.device.pci_address


def _in_spot_domain(cloud, host):
    return [key[1] for key in cloud.hostdevs(host)[SPOT_DOMAIN]]


def _spot_rows(cloud, rsv):
    return [a.state for a in cloud.reservation(rsv).attachments if a.spot]


def _market(cloud):
    return spot_devices_db.on_market(cloud.ctx,
                                     states.DeviceReservation.ACTIVE,
                                     states.Attachment.DETACHED)


def test_a_crash_before_the_row_is_written(cloud, lent, monkeypatch):
    host, rsv, device_id, address = lent
    with monkeypatch.context() as patch:
        patch.setattr(device_reservations_db, 'attachment_update', _dying)
        with pytest.raises(_Crash):
            spot.detach(cloud.ctx, device_id, SPOT_DOMAIN, 'project-b')
    # Libvirt let go; the row still says attached, the device held.
    assert _in_spot_domain(cloud, host) == []
    assert _spot_rows(cloud, rsv) == [states.Attachment.ATTACHED]
    assert _market(cloud) == {device_id: True}
    # The manager starts again and refreshes: the spot domain has the
    # device again, as its row says.
    refresh.refresh_all(cloud.ctx)
    assert _in_spot_domain(cloud, host) == [address]
    assert _spot_rows(cloud, rsv) == [states.Attachment.ATTACHED]
    # The spot user's detach again gives it back.
    cloud.manager.detach_spot_device(cloud.ctx, device_id, SPOT_DOMAIN,
                                     'project-b')
    assert _in_spot_domain(cloud, host) == []
    assert _spot_rows(cloud, rsv) == []
    assert _market(cloud) == {device_id: False}


def test_a_crash_before_the_row_is_deleted(cloud, lent, monkeypatch):
    host, rsv, device_id, address = lent
    with monkeypatch.context() as patch:
        patch.setattr(device_reservations_db, 'attachments_delete', _dying)
        with pytest.raises(_Crash):
            spot.detach(cloud.ctx, device_id, SPOT_DOMAIN, 'project-b')
    assert _in_spot_domain(cloud, host) == []
    assert _spot_rows(cloud, rsv) == [states.Attachment.DETACHED]
    assert _market(cloud) == {device_id: False}
    # A refresh of the host before the settle does not attach it again.
    cloud.manager.refresh_host(cloud.ctx, host.id)
    assert _in_spot_domain(cloud, host) == []
    # The settle (the manager's start, each refresh) deletes the row.
    refresh.settle(cloud.ctx)
    assert _spot_rows(cloud, rsv) == []
    refresh.refresh_all(cloud.ctx)
    assert _in_spot_domain(cloud, host) == []
    # On the market: the same domain may take it again, and a reclaim
    # terminates just that.
    cloud.manager.attach_spot_device(cloud.ctx, device_id, SPOT_DOMAIN,
                                     'project-b')
    assert _in_spot_domain(cloud, host) == [address]
    done = cloud.manager.reclaim_devices(cloud.ctx, rsv, None, False)
    assert done['terminated'] == [{'device_id': device_id,
                                   'domain': SPOT_DOMAIN,
                                   'project_id': 'project-b'}]
    assert _in_spot_domain(cloud, host) == []
