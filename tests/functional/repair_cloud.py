"""What the tests of the repair task on flavor:instance leases share:
the engine of test_lease_lifecycle.py (real placement, the nova double,
the worker calling the manager in-process), a Repairer on its clients,
the notifications of reserve.manager.delivery, and an active lease to
break by hand."""
import types

import pytest

from reserve.common import context as reserve_context
from reserve.common import placement
from reserve.common import states
from reserve.db import bookings as bookings_db
from reserve.db import deliveries as deliveries_db
from reserve.manager import delivery
from reserve.manager import notify
from reserve.manager import repair
from reserve import plugins
from tests.functional.test_lease_lifecycle import PROJECT
from tests.functional.test_lease_lifecycle import _book
from tests.functional.test_lease_lifecycle import _run_events_until
from tests.functional.test_lease_lifecycle import cloud  # noqa: F401
from tests.functional.test_lease_lifecycle import placement_server  # noqa


def _admin():
    return reserve_context.get_admin_context()


@pytest.fixture
def sent(monkeypatch):
    """The reserve.reservation.repaired notifications the manager sends
    (through reserve.manager.notify, beside its lease.* ones), recorded."""
    found = []

    def record(ctx, event_type, payload):
        if event_type == delivery.REPAIRED:
            found.append((event_type, payload))
    monkeypatch.setattr(notify, '_notifier',
                        lambda: types.SimpleNamespace(info=record))
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
