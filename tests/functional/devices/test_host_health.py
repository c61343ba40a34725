"""A libvirt host that cannot be reached fails on two checks in a row
(reserve.manager.health): its device reservation lacks its devices
(missing_capacity at 1.3, its lease degraded), and all of it clears once
the host answers again. The host is a test:/// definition made
unreachable by taking its file away."""
import pathlib

from reserve.db import hosts as hosts_db
from reserve.db import leases as leases_db
from reserve.manager import health
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.devices import gpu_cloud
from tests.functional.devices.reservations import A100
from tests.functional.devices.reservations import create
from tests.functional.devices.reservations import show

AT_1_3 = dict(MEMBER_A, **{'OpenStack-API-Version': 'reserve 1.3'})


def _unreachable(host):
    path = pathlib.Path(host['uri'][len('test://'):])
    hidden = path.with_name(path.name + '.away')
    path.rename(hidden)
    gpu_cloud._forget(host['uri'])
    return lambda: hidden.rename(path)


def test_an_unreachable_libvirt_host_fails_and_comes_back(gpu_api, a100):
    rsv = create(gpu_api, {'count': 1, 'model': A100,
                           'host': 'gpu-box-1'}).json['device_reservation']
    gpu_api.tick()
    assert show(gpu_api, rsv['id'], AT_1_3).json['device_reservation'][
        'missing_capacity'] == []
    check = health.HealthCheck(gpu_api.manager)
    back = _unreachable(a100)
    check.run(admin_context())
    assert hosts_db.host_get(admin_context(), a100['id']).failure is None
    check.run(admin_context())
    host = hosts_db.host_get(admin_context(), a100['id'])
    assert 'could not connect' in host.failure
    shown = show(gpu_api, rsv['id'], AT_1_3).json['device_reservation']
    assert shown['status'] == 'active'
    assert shown['missing_capacity'] == [{
        'host': 'gpu-box-1', 'devices': 1, 'reason': host.failure,
        'since': shown['missing_capacity'][0]['since']}]
    assert leases_db.lease_get(admin_context(), shown['lease_id']).degraded

    back()
    check.run(admin_context())
    assert hosts_db.host_get(admin_context(), a100['id']).failure is None
    shown = show(gpu_api, rsv['id'], AT_1_3).json['device_reservation']
    assert shown['missing_capacity'] == []
    assert not leases_db.lease_get(admin_context(),
                                   shown['lease_id']).degraded
