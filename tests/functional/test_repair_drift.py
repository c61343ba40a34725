"""The repair task puts back drift made by hand on active flavor:instance
leases, says what it did, counts and notifies it, and writes nothing when
all is in place."""
from oslo_config import cfg
import pytest

from reserve.manager import repair
from tests.fakes import nova as fake_nova
from tests.functional.repair_cloud import Lease
from tests.functional.repair_cloud import PROJECT
from tests.functional.repair_cloud import _admin
from tests.functional.repair_cloud import cloud  # noqa: F401
from tests.functional.repair_cloud import placement_server  # noqa: F401
from tests.functional.repair_cloud import repairer  # noqa: F401
from tests.functional.repair_cloud import sent  # noqa: F401

CONF = cfg.CONF


@pytest.fixture
def nova_writes(monkeypatch):
    """Every write the nova double is asked for, recorded."""
    writes = []
    for owner, names in ((fake_nova.Flavor, ('set_keys', 'unset_keys')),
                         (fake_nova._Flavors, ('create', 'delete')),
                         (fake_nova._FlavorAccess, ('add_tenant_access',)),
                         (fake_nova._Aggregates, ('create', 'set_metadata',
                                                  'add_host', 'remove_host',
                                                  'delete'))):
        for name in names:
            def record(self, *args, _name=name, _call=getattr(owner, name),
                       **kwargs):
                writes.append(_name)
                return _call(self, *args, **kwargs)
            monkeypatch.setattr(owner, name, record)
    return writes


def _generations(cloud, lease):  # noqa: F811
    return [lease.child(host)['generation'] for host in lease.hosts]


def _set_inventory_total(cloud, lease, host, total):  # noqa: F811
    child = lease.child(host)
    inventories = cloud.placement.inventories(child['uuid'])
    inventories[lease.rc]['total'] = total
    resp = cloud.placement.request(
        'PUT', '/resource_providers/%s/inventories' % child['uuid'],
        {'resource_provider_generation': child['generation'],
         'inventories': inventories})
    assert resp.status_code == 200, resp.text


# Each: what an operator does by hand, and what the repair says of it.
def _access_removed(cloud, lease):  # noqa: F811
    cloud.nova.flavor_access.remove_tenant_access(lease.rsv_id, PROJECT)
    return ['flavor access of project %s restored' % PROJECT]


def _specs_changed(cloud, lease):  # noqa: F811
    cloud.flavors[lease.rsv_id].set_keys({'pci_passthrough:alias': 'a100:2',
                                          'hw:cpu_policy': 'dedicated'})
    return ['extra spec hw:cpu_policy added by hand removed',
            'extra spec pci_passthrough:alias restored to a100:1']


def _aggregate_deleted(cloud, lease):  # noqa: F811
    aggregate = lease.aggregate()
    for host in list(aggregate.hosts):
        cloud.nova.aggregates.remove_host(aggregate, host)
    cloud.nova.aggregates.delete(aggregate)
    return ['aggregate %s re-created' % lease.rsv_id] + [
        'host %s put back in aggregate %s' % (host, lease.rsv_id)
        for host in lease.hosts]


def _metadata_deleted(cloud, lease):  # noqa: F811
    cloud.nova.aggregates.set_metadata(lease.aggregate(),
                                       {'filter_tenant_id': None})
    return ['aggregate %s metadata filter_tenant_id restored' % lease.rsv_id]


def _host_removed(cloud, lease):  # noqa: F811
    host = lease.hosts[0]
    cloud.nova.aggregates.remove_host(lease.aggregate(), host)
    return ['host %s put back in aggregate %s' % (host, lease.rsv_id)]


def _inventory_deleted(cloud, lease):  # noqa: F811
    host = lease.hosts[0]
    resp = cloud.placement.request(
        'DELETE', '/resource_providers/%s/inventories/%s' % (
            lease.child(host)['uuid'], lease.rc))
    assert resp.status_code == 204, resp.text
    return ['inventory of %s on reserve_%s set back to %d (found absent)' %
            (lease.rc, host, lease.by_host[host])]


def _inventory_total_changed(cloud, lease):  # noqa: F811
    host = lease.hosts[0]
    _set_inventory_total(cloud, lease, host, 7)
    return ['inventory of %s on reserve_%s set back to %d (found 7)' %
            (lease.rc, host, lease.by_host[host])]


@pytest.mark.parametrize('drift', [
    _access_removed, _specs_changed, _aggregate_deleted, _metadata_deleted,
    _host_removed, _inventory_deleted, _inventory_total_changed])
def test_drift_is_repaired_said_counted_and_notified(
        cloud, repairer, sent, nova_writes, drift):  # noqa: F811
    lease = Lease(cloud)
    lease.assert_whole()
    said = drift(cloud, lease)

    result = repairer.run_once(_admin())
    assert result['drift'] == {'repaired': len(said), 'failed': 0}
    lease.assert_whole()
    assert lease.delivery().repairs == len(said)
    [(event_type, payload)] = sent
    assert event_type == 'reserve.reservation.repaired'
    assert sorted(payload.pop('repairs')) == sorted(said)
    assert payload == {'reservation_id': lease.booking.id,
                       'owner_type': 'booking', 'lease_id': lease.id,
                       'project_id': PROJECT}

    # Nothing left to do: nothing written, nothing said.
    generations = _generations(cloud, lease)
    del nova_writes[:]
    assert repairer.run_once(_admin())['drift'] == {'repaired': 0,
                                                    'failed': 0}
    assert nova_writes == []
    assert _generations(cloud, lease) == generations
    assert lease.delivery().repairs == len(said)
    assert len(sent) == 1


def test_repairs_of_one_lease_leave_the_others_alone(
        cloud, repairer, sent):  # noqa: F811
    first, second = Lease(cloud, count=1), Lease(cloud, count=1)
    said = _access_removed(cloud, second)
    assert repairer.run_once(_admin())['drift']['repaired'] == 1
    assert first.delivery().repairs == 0
    assert second.delivery().repairs == 1
    assert [p['reservation_id'] for _, p in sent] == [second.booking.id]
    assert sent[0][1]['repairs'] == said


def test_an_interval_of_0_disables_the_task(cloud):  # noqa: F811
    CONF.set_override('repair_interval', 0, group='manager')
    loop = repair.RepairLoop(repair.Repairer())
    loop.start()
    assert loop._thread is None
    loop.stop()
