"""The repair task on flavor:instance leases: drift made by hand put back,
said and counted; leftovers of ended reservations taken down; servers an
end could not delete.

The engine of test_lease_lifecycle.py: real placement, the nova double,
the worker calling the manager in-process.
"""
import datetime
import types
import uuid

from oslo_config import cfg
import pytest

from reserve.common import context as reserve_context
from reserve.common import placement
from reserve.common import states
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import bookings as bookings_db
from reserve.db import deliveries as deliveries_db
from reserve.db import leases as leases_db
from reserve.db import models
from reserve.manager import delivery
from reserve.manager import repair
from reserve import plugins
from reserve.worker import reconciler
from tests.fakes import nova as fake_nova
from tests.functional.test_lease_lifecycle import PROJECT
from tests.functional.test_lease_lifecycle import _book
from tests.functional.test_lease_lifecycle import _run_events_until
from tests.functional.test_lease_lifecycle import cloud  # noqa: F401
from tests.functional.test_lease_lifecycle import placement_server  # noqa

CONF = cfg.CONF


def _admin():
    return reserve_context.get_admin_context()


@pytest.fixture
def sent(monkeypatch):
    """The notifications of reserve.manager.delivery, recorded."""
    found = []
    monkeypatch.setattr(delivery, '_notifier', lambda: types.SimpleNamespace(
        info=lambda ctx, event_type, payload: found.append(
            (event_type, payload))))
    return found


@pytest.fixture
def repairer(cloud):  # noqa: F811
    plugin = plugins.get_plugin('flavor:instance')
    return repair.Repairer(nova_client=plugin.nova,
                           placement_client=plugin.placement)


@pytest.fixture
def swept(repairer):
    """A sweep first: what earlier tests left in the placement this
    module's tests share (their databases are gone) is taken down."""
    repairer.run_once(_admin())
    return repairer


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


class Lease:
    """An active lease of three instances on the two hosts."""

    def __init__(self, cloud, count=3, start_in=1, length=600):  # noqa
        ctx = _admin()
        self.booking = _book(count=count, start_in=start_in, length=length)
        cloud.worker.create_lease(ctx, self.booking.id)
        self.id = bookings_db.booking_get(ctx, self.booking.id).lease_id
        lease = _run_events_until(cloud, self.id, states.Lease.ACTIVE)
        self.rsv_id = lease.reservations[0].id
        self.rc = placement.reservation_resource_class(self.rsv_id)
        self.by_host = {a.host.name: a.amount
                        for a in lease.reservations[0].allocations}
        self.cloud = cloud

    @property
    def hosts(self):
        return sorted(self.by_host)

    def aggregate(self):
        found = [a for a in self.cloud.nova.aggregates.list()
                 if a.name == self.rsv_id]
        return found[0] if found else None

    def child(self, host):
        return self.cloud.placement.provider_by_name('reserve_' + host)

    def inventory(self, host):
        return self.cloud.placement.inventories(
            self.child(host)['uuid']).get(self.rc)

    def delivery(self):
        return deliveries_db.delivery_get(_admin(), 'booking',
                                          self.booking.id)

    def assert_whole(self):
        """Every object of the lease as its start made it."""
        cloud = self.cloud
        flavor = cloud.flavors[self.rsv_id]
        assert flavor.get_keys() == {
            'aggregate_instance_extra_specs:reservation': self.rsv_id,
            'resources:%s' % self.rc: '1',
            'pci_passthrough:alias': 'a100:1',
            'trait:CUSTOM_RESERVE_FENCED': 'required'}
        assert cloud.access[self.rsv_id] == {PROJECT}
        aggregate = self.aggregate()
        assert aggregate.metadata == {
            'reservation': self.rsv_id, 'filter_tenant_id': PROJECT,
            'reserve:owner': 'alice'}
        assert sorted(aggregate.hosts) == self.hosts
        for host, amount in self.by_host.items():
            inventory = self.inventory(host)
            assert (inventory['total'], inventory['max_unit']) == (amount, 1)
        assert cloud.placement.resource_class_exists(self.rc)

    def assert_gone(self):
        cloud = self.cloud
        assert self.rsv_id not in cloud.flavors
        assert self.aggregate() is None
        assert not cloud.placement.resource_class_exists(self.rc)
        for host in self.hosts:
            assert self.inventory(host) is None


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


# Leftovers -----------------------------------------------------------------

def _make_terminated(lease):
    """The lease ended but its teardown never ran (a manager that died
    between the two, or a teardown of an older release)."""
    leases_db.lease_update(_admin(), lease.id,
                           {'status': states.Lease.TERMINATED})


def test_leftovers_of_an_ended_reservation_are_taken_down(
        cloud, swept, sent):  # noqa: F811
    repairer = swept
    ended = Lease(cloud)
    running = Lease(cloud, count=1)
    pending = _book(count=1, start_in=3600)
    cloud.worker.create_lease(_admin(), pending.id)
    pending_rsv = leases_db.lease_get(
        _admin(), bookings_db.booking_get(_admin(), pending.id).lease_id
    ).reservations[0].id
    _make_terminated(ended)

    counts = repairer.run_once(_admin())['leftovers']
    said = ['leftover aggregate %s deleted' % ended.rsv_id] + [
        'leftover inventory of %s removed from reserve_%s' % (ended.rc, h)
        for h in ended.hosts] + [
        'leftover resource class %s deleted' % ended.rc,
        'leftover flavor reservation:%s deleted' % ended.rsv_id]
    assert counts == {'repaired': len(said), 'unowned': 0,
                      'stuck_servers': 0, 'waiting': 0, 'failed': 0}
    ended.assert_gone()
    assert ended.delivery().repairs == len(said)
    [(event_type, payload)] = sent
    assert (event_type, payload['reservation_id']) == (
        'reserve.reservation.repaired', ended.booking.id)
    assert sorted(payload['repairs']) == sorted(said)
    # What live leases own stays: a running one's, a pending one's
    # (built early).
    running.assert_whole()
    assert pending_rsv in cloud.flavors
    assert cloud.placement.resource_class_exists(
        placement.reservation_resource_class(pending_rsv))

    again = repairer.run_once(_admin())['leftovers']
    assert again == dict.fromkeys(counts, 0)
    assert len(sent) == 1


def test_objects_named_after_no_known_reservation(cloud, swept,
                                                  sent):  # noqa: F811
    repairer = swept
    stranger = str(uuid.uuid4())
    rc = placement.reservation_resource_class(stranger)
    cloud.nova.flavors.create('reservation:%s' % stranger, 1024, 1, 10,
                              flavorid=stranger, is_public=False)
    cloud.placement.request('PUT', '/resource_classes/%s' % rc)
    # Not reserve's: a name that is no reservation id, an aggregate
    # whose metadata says no reservation.
    cloud.nova.flavors.create('reservation:training', 1024, 1, 10,
                              flavorid='training', is_public=False)
    cloud.nova.aggregates.create(str(uuid.uuid4()), None)

    counts = repairer.run_once(_admin())['leftovers']
    assert (counts['unowned'], counts['repaired']) == (2, 0)
    assert stranger not in cloud.flavors
    assert not cloud.placement.resource_class_exists(rc)
    assert 'training' in cloud.flavors
    assert len(cloud.nova.aggregates.list()) == 2  # the fence's and it
    assert sent == []


def test_a_leftover_with_servers_waits_for_them(cloud, swept):  # noqa
    repairer = swept
    ended = Lease(cloud, count=1)
    server = cloud.boot(ended.rsv_id, PROJECT)
    cloud.delete_polls = -1
    _make_terminated(ended)
    counts = repairer.run_once(_admin())['leftovers']
    assert (counts['waiting'], counts['repaired']) == (1, 1)
    assert cloud.deleting == {server.id: -1}   # asked, not waited for
    assert ended.rsv_id in cloud.flavors
    assert ended.inventory(ended.hosts[0]) is not None
    cloud.unstick(server.id)
    counts = repairer.run_once(_admin())['leftovers']
    assert (counts['waiting'], counts['repaired']) == (0, 3)
    ended.assert_gone()


# A server nova cannot delete at the end -------------------------------------

def test_a_stuck_server_does_not_stop_the_teardown(
        cloud, swept, sent, caplog):  # noqa: F811
    repairer = swept
    cloud.delete_polls = -1  # stuck in deleting
    lease = Lease(cloud, count=1, start_in=0, length=2)
    host = lease.hosts[0]
    server = cloud.boot(lease.rsv_id, PROJECT)
    ended = _run_events_until(cloud, lease.id, states.Lease.TERMINATED)

    assert [e.status for e in ended.events] == ['DONE'] * 3
    assert ended.status_reason is None
    assert bookings_db.booking_get(_admin(), lease.booking.id).status == \
        states.Booking.COMPLETE
    assert lease.delivery().stuck_servers == [server.id]
    [line] = [r.getMessage() for r in caplog.records
              if server.id in r.getMessage()]
    assert lease.rsv_id in line
    # Access and aggregate gone; what the server still holds is left.
    assert cloud.access[lease.rsv_id] == set()
    assert lease.aggregate() is None
    assert lease.rsv_id in cloud.flavors
    assert lease.inventory(host)['total'] == 1
    assert cloud.placement.resource_class_exists(lease.rc)

    # Each run asks again; the objects wait.
    counts = repairer.run_once(_admin())['leftovers']
    assert (counts['stuck_servers'], counts['waiting']) == (1, 1)
    assert lease.delivery().stuck_servers == [server.id]
    assert lease.rsv_id in cloud.flavors

    cloud.unstick(server.id)
    counts = repairer.run_once(_admin())['leftovers']
    assert (counts['stuck_servers'], counts['waiting']) == (0, 0)
    assert lease.delivery().stuck_servers is None
    lease.assert_gone()
    assert sorted(sent[-1][1]['repairs']) == sorted([
        'leftover inventory of %s removed from reserve_%s' % (lease.rc, host),
        'leftover resource class %s deleted' % lease.rc,
        'leftover flavor reservation:%s deleted' % lease.rsv_id])
    assert deliveries_db.delivery_list_stuck(_admin()) == []


# A lease no booking owns ----------------------------------------------------

class _WorkerAPI:
    """The reconciler's casts, delivered at once to the test's worker."""

    def __init__(self, worker):
        self.worker = worker

    def delete_lease(self, context, booking_id, lease_id=None):
        self.worker.delete_lease(_admin(), booking_id, lease_id=lease_id)


def test_a_lease_no_booking_owns_is_torn_down(cloud):  # noqa: F811
    lease = Lease(cloud, count=1)
    bookings_db.booking_destroy(_admin(), lease.booking.id)
    past = timeutils.utcnow() - datetime.timedelta(
        seconds=CONF.worker.pending_create_timeout + 1)
    with db_api.get_engine().begin() as conn:
        conn.execute(models.Lease.__table__.update().values(created_at=past))

    job = reconciler.Reconciler(_WorkerAPI(cloud.worker))
    assert job.run(_admin())['orphans'] == 1
    for _ in range(20):
        cloud.loop.tick()
        if not leases_db.lease_list(_admin()):
            break
    assert leases_db.lease_list(_admin()) == []
    lease.assert_gone()
