"""A booking's whole life through worker, manager and event loop.

Real placement (the openstack-placement package under gunicorn), the
nova double of tests.fakes.nova, SQLite, and the worker calling the
manager in-process. The integration suite runs the same path as separate
daemons over RabbitMQ against a real nova.
"""
import datetime
import time
import uuid

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg
import pytest

from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import nova
from reserve.common import placement
from reserve.common import states
from reserve.common import timeutils
from reserve.db import bookings as bookings_db
from reserve.db import deliveries as deliveries_db
from reserve.db import flavors as flavors_db
from reserve.db import hosts as hosts_db
from reserve.db import leases as leases_db
from reserve.manager import events
from reserve.manager import manager
from reserve.manager import notify
from reserve.manager import repair
from reserve import plugins
from reserve.plugins import flavor_instance
from reserve.worker import worker
from tests.fakes import nova as fake_nova
from tests.fixtures import database
from tests.fixtures.placement import placement_server  # noqa: F401
from reserve.booking import admission
from reserve.booking import sizing
from reserve.capacity import store as capacity_store

CONF = cfg.CONF
PROJECT = 'project-a'
A100_ALIAS = '{"name": "a100", "vendor_id": "10de", "product_id": "20b0"}'
A100_CLASS = 'CUSTOM_PCI_10DE_20B0'


class LocalManagerAPI:
    """The worker's view of the manager, without the RPC hop."""

    def __init__(self, lease_manager):
        self.lease_manager = lease_manager

    def __getattr__(self, name):
        method = getattr(self.lease_manager, name)
        return lambda context, *args, **kwargs: method(
            reserve_context.get_admin_context(), *args, **kwargs)

    def create_lease(self, context, request):
        # The request crosses as ManagerAPI sends it.
        return self.lease_manager.create_lease(
            reserve_context.get_admin_context(), request.as_message())


@pytest.fixture
def cloud(tmp_path, placement_server):
    CONF.set_override('transport_url', 'fake://')
    database.use_database('sqlite:///%s' % (tmp_path / 'reserve.sqlite'))
    CONF.set_override('auth_type', 'admin_token', group='placement')
    CONF.register_opts(ks_loading.get_auth_plugin_conf_options('admin_token'),
                       group='placement')
    CONF.set_override('endpoint', placement_server.url, group='placement')
    CONF.set_override('token', 'admin', group='placement')
    CONF.set_override('server_delete_poll_interval', 0.1, group='nova')
    CONF.set_override('server_delete_timeout', 2, group='nova')
    CONF.set_override('minutes_before_end_lease', 0, group='manager')
    CONF.set_override('event_retry_interval', 1, group='manager')
    # Leases of seconds, back to back: no hand-over time between them.
    CONF.set_override('guard_seconds', 0, group='booking')
    notify.reset()
    fake = fake_nova.FakeCloud()
    nova_client = nova.NovaClient(client=fake.nova)
    placement_client = placement.PlacementClient()
    plugins._PLUGINS['flavor:instance'] = \
        flavor_instance.FlavorInstancePlugin(
            nova_client=nova_client, placement_client=placement_client)
    fake.lease_manager = manager.LeaseManager(
        nova_client=nova_client, placement_client=placement_client)
    fake.worker = worker.BookingWorker(
        manager_api=LocalManagerAPI(fake.lease_manager))
    fake.loop = events.EventLoop()
    fake.placement = placement_server
    fake.hosts = {}
    # The flavor asks for an A100 (pci_passthrough:alias=a100:1); each
    # host has two in placement, as nova reports PCI devices.
    CONF.set_override('alias', [A100_ALIAS], group='pci')
    for name in ('host1-%s' % uuid.uuid4().hex[:6],
                 'host2-%s' % uuid.uuid4().hex[:6]):
        rp = placement_server.add_compute_node(name, str(uuid.uuid4()),
                                               vcpus=4, memory_mb=8192)
        placement_server.add_device_provider(
            rp, '%s_0000:17:00.0' % name, A100_CLASS, 2)
        fake.add_hypervisor(name, rp, vcpus=4, memory_mb=8192)
        fake.hosts[name] = fake.lease_manager.create_host(
            reserve_context.get_admin_context(), {'name': name})
    fake.source = fake.nova.flavors.create('gpu.large', 4096, 2, 20,
                                           flavorid='src-flavor')
    fake.source.set_keys({'pci_passthrough:alias': 'a100:1'})
    # Bookings name the catalogue entry; the worker asks for its nova
    # flavor.
    fake.catalogue = flavors_db.flavor_create(
        reserve_context.get_admin_context(),
        {'name': 'gpu.large', 'nova_flavor_id': 'src-flavor', 'slots': 8,
         'nova_flavor': sizing.read('src-flavor',
                                    nova.NovaClient(client=fake.nova))})
    yield fake
    fake.loop.stop()
    plugins._PLUGINS.clear()
    CONF.reset()
    CONF.clear_override('transport_url')


def _book(count, start_in=0, length=3):
    """A booking admitted by the desk: its hosts are allocated."""
    now = timeutils.utcnow()
    catalogue = flavors_db.flavor_get(reserve_context.get_admin_context(),
                                      'gpu.large')
    user = reserve_context.RequestContext(user_id='alice',
                                          project_id=PROJECT,
                                          roles=['member', 'reader'])
    return admission.book(
        user, catalogue, now + datetime.timedelta(seconds=start_in),
        now + datetime.timedelta(seconds=start_in + length), count)


def _run_events_until(cloud, lease_id, status, timeout=15):
    ctx = reserve_context.get_admin_context()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        cloud.loop.tick()
        lease = leases_db.lease_get(ctx, lease_id)
        if lease.status == status:
            return lease
        time.sleep(0.2)
    raise AssertionError('lease %s is %s, not %s' % (lease_id, lease.status,
                                                     status))


def test_booking_lifecycle_builds_and_removes_the_fence(cloud):
    ctx = reserve_context.get_admin_context()
    booking = _book(count=3, start_in=1, length=4)
    cloud.worker.create_lease(ctx, booking.id)

    booking = bookings_db.booking_get(ctx, booking.id)
    assert booking.status == states.Booking.ALLOCATED
    lease = leases_db.lease_get(ctx, booking.lease_id)
    assert lease.name == 'reservation-%s' % booking.id
    assert lease.status == states.Lease.PENDING
    assert [e.event_type for e in lease.events] == [
        'start_lease', 'before_end_lease', 'end_lease']
    rsv = lease.reservations[0]
    rsv_id = rsv.id
    assert booking.reserved_flavor_id == rsv_id
    assert sum(a.amount for a in rsv.allocations) == 3
    # 4 vCPUs a host and 2 per instance: packed 2 + 1.
    assert sorted(a.amount for a in rsv.allocations) == [1, 2]
    rc = placement.reservation_resource_class(rsv_id)

    # Ground prepared early, keys withheld.
    flavor = cloud.flavors[rsv_id]
    assert flavor.name == 'reservation:%s' % rsv_id
    assert flavor.is_public is False
    assert flavor.get_keys() == {
        'aggregate_instance_extra_specs:reservation': rsv_id,
        'resources:%s' % rc: '1',
        'pci_passthrough:alias': 'a100:1',
        'trait:CUSTOM_RESERVE_FENCED': 'required'}
    assert (flavor.vcpus, flavor.ram, flavor.disk) == (2, 4096, 20)
    assert cloud.access.get(rsv_id, set()) == set()
    aggregate = cloud.nova.aggregates.list()[1]  # after the fence's
    assert aggregate.name == rsv_id
    assert aggregate.metadata['reservation'] == rsv_id
    assert aggregate.metadata['filter_tenant_id'] == PROJECT
    assert aggregate.hosts == []
    assert cloud.placement.resource_class_exists(rc)
    # Its delivery is opened with the lease, usable once it is ACTIVE.
    delivery = deliveries_db.delivery_get(ctx, states.Owner.BOOKING,
                                          booking.id)
    assert (delivery.flavor_id, delivery.amount) == (booking.flavor_id, 3)
    assert delivery.usable_at is None

    lease = _run_events_until(cloud, lease.id, states.Lease.ACTIVE)
    assert cloud.access[rsv_id] == {PROJECT}
    delivery = deliveries_db.delivery_get(ctx, states.Owner.BOOKING,
                                          booking.id)
    assert delivery.usable_at >= booking.start
    by_host = {a.host.name: a.amount for a in lease.reservations[0]
               .allocations}
    assert sorted(aggregate.hosts) == sorted(by_host)
    for host, count in by_host.items():
        child = cloud.placement.provider_by_name('reserve_' + host)
        assert child['parent_provider_uuid'] == cloud.hosts[host][
            'provider_uuid']
        inventory = cloud.placement.inventories(child['uuid'])[rc]
        assert (inventory['total'], inventory['max_unit']) == (count, 1)
    # The manager moved the booking with its lease.
    assert bookings_db.booking_get(ctx, booking.id).status == \
        states.Booking.ACTIVE

    server = cloud.boot(rsv_id, PROJECT)
    lease = _run_events_until(cloud, lease.id, states.Lease.TERMINATED)
    assert server.id not in cloud.servers
    assert rsv_id not in cloud.flavors
    assert [a.name for a in cloud.nova.aggregates.list()] == [
        'reserve-fenced-hosts']
    assert not cloud.placement.resource_class_exists(rc)
    for host in by_host:
        child = cloud.placement.provider_by_name('reserve_' + host)
        assert rc not in cloud.placement.inventories(child['uuid'])
    assert [e.status for e in lease.events] == ['DONE'] * 3
    assert lease.reservations[0].allocations == []
    assert bookings_db.booking_get(ctx, booking.id).status == \
        states.Booking.COMPLETE


def test_a_booking_without_claims_gets_no_lease(cloud):
    # The lease adopts the hosts admission allocated; the manager chooses
    # none itself.
    ctx = reserve_context.get_admin_context()
    now = timeutils.utcnow()
    booking = bookings_db.booking_create(ctx, {
        'project_id': PROJECT, 'user_id': 'alice',
        'flavor_id': cloud.catalogue.id, 'instance_count': 1,
        'start': now + datetime.timedelta(seconds=60),
        'end': now + datetime.timedelta(seconds=120),
        'status': states.Booking.PENDING_CREATE})
    cloud.worker.create_lease(ctx, booking.id)
    booking = bookings_db.booking_get(ctx, booking.id)
    assert booking.status == states.Booking.ERROR
    assert 'holds none' in booking.status_reason, booking.status_reason
    assert leases_db.lease_list(ctx) == []


def test_create_lease_is_idempotent(cloud):
    ctx = reserve_context.get_admin_context()
    booking = _book(count=1, start_in=60)
    cloud.worker.create_lease(ctx, booking.id)
    first = bookings_db.booking_get(ctx, booking.id).lease_id
    # A worker that died before recording the lease: the retry finds it.
    bookings_db.booking_move(ctx, booking.id, states.Booking.PENDING_CREATE,
                             states.Booking.ALL, lease_id=None)
    cloud.worker.create_lease(ctx, booking.id)
    assert bookings_db.booking_get(ctx, booking.id).lease_id == first
    assert len(leases_db.lease_list(ctx)) == 1
    lease = leases_db.lease_get(ctx, first)
    assert (lease.owner_type, lease.owner_id) == ('booking', booking.id)


def test_capacity_is_shared_over_time(cloud):
    ctx = reserve_context.get_admin_context()
    first = _book(count=4, start_in=100, length=100)
    cloud.worker.create_lease(ctx, first.id)
    assert bookings_db.booking_get(ctx, first.id).status == 'ALLOCATED'
    with pytest.raises(exception.NoCapacity):
        _book(count=1, start_in=150, length=100)
    after = _book(count=4, start_in=200, length=100)
    cloud.worker.create_lease(ctx, after.id)
    assert bookings_db.booking_get(ctx, after.id).status == 'ALLOCATED'


def test_end_waits_for_servers_then_goes_on_without_them(cloud):
    """Servers nova does not delete within [nova]server_delete_timeout
    do not fail the end: the lease ends, and what they hold is left for
    the repair task (test_leftovers.py follows it to the end)."""
    ctx = reserve_context.get_admin_context()
    cloud.delete_polls = -1  # servers stuck in deleting
    # Long enough to boot into on a loaded machine.
    booking = _book(count=1, start_in=0, length=6)
    cloud.worker.create_lease(ctx, booking.id)
    lease_id = bookings_db.booking_get(ctx, booking.id).lease_id
    lease = _run_events_until(cloud, lease_id, states.Lease.ACTIVE)
    rsv_id = lease.reservations[0].id
    server = cloud.boot(rsv_id, PROJECT)
    started = time.monotonic()
    lease = _run_events_until(cloud, lease_id, states.Lease.TERMINATED)
    assert time.monotonic() - started >= CONF.nova.server_delete_timeout
    end = [e for e in lease.events if e.event_type == 'end_lease'][0]
    assert end.status == states.Event.DONE
    assert server.id in cloud.deleting
    assert rsv_id in cloud.flavors  # the server still names it


def test_delete_lease_tears_down_and_removes_it(cloud):
    ctx = reserve_context.get_admin_context()
    booking = _book(count=1, start_in=0, length=600)
    cloud.worker.create_lease(ctx, booking.id)
    lease_id = bookings_db.booking_get(ctx, booking.id).lease_id
    lease = _run_events_until(cloud, lease_id, states.Lease.ACTIVE)
    rsv_id = lease.reservations[0].id
    cloud.worker.delete_lease(ctx, booking.id)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        cloud.loop.tick()
        try:
            leases_db.lease_get(ctx, lease_id)
        except exception.LeaseNotFound:
            break
        time.sleep(0.2)
    else:
        raise AssertionError('lease not deleted')
    assert rsv_id not in cloud.flavors
    assert not cloud.placement.resource_class_exists(
        placement.reservation_resource_class(rsv_id))


def test_gpus_run_out_before_cpus(cloud):
    """One vCPU an instance leaves room for 4 a host, but each host has
    two A100s: 4 instances fit on the two hosts, a fifth does not, and
    the hosts' GPUs are recorded for the calendar."""
    ctx = reserve_context.get_admin_context()
    cloud.source.vcpus = 1
    flavors_db.flavor_update(ctx, cloud.catalogue.id, {
        'nova_flavor': sizing.read('src-flavor',
                                   nova.NovaClient(client=cloud.nova))})
    with pytest.raises(exception.NoCapacity) as refused:
        _book(count=5, start_in=60)
    assert 'at most 4 do' in refused.value.message, refused.value.message

    booking = _book(count=4, start_in=60)
    cloud.worker.create_lease(ctx, booking.id)
    booking = bookings_db.booking_get(ctx, booking.id)
    assert booking.status == states.Booking.ALLOCATED, booking.status_reason
    lease = leases_db.lease_get(ctx, booking.lease_id)
    assert sorted(a.amount for a in lease.reservations[0].allocations) == \
        [2, 2]
    for host in cloud.hosts.values():
        assert hosts_db.host_get(ctx, host['id']).gpus == {A100_CLASS: 2}
    # Whatever CPU is left, the GPUs of the window are taken.
    with pytest.raises(exception.NoCapacity):
        _book(count=1, start_in=61)
    # Later, the GPUs are free again; the first lease cannot then stretch
    # into that booking's window, GPUs again being what is missing.
    after = _book(count=4, start_in=70)
    cloud.worker.create_lease(ctx, after.id)
    assert bookings_db.booking_get(ctx, after.id).status == \
        states.Booking.ALLOCATED
    cloud.lease_manager.update_lease(ctx, lease.id, {
        'end': lease.start + datetime.timedelta(seconds=8)})
    with pytest.raises(exception.NotEnoughHostsAvailable):
        cloud.lease_manager.update_lease(ctx, lease.id, {
            'end': lease.start + datetime.timedelta(seconds=15)})


def test_drift_made_by_hand_is_repaired(cloud):
    """An operator removes pieces of an active lease's fence by hand (a
    host from its aggregate, an inventory, the project's access, a host
    from the fence aggregate): the manager's repair task and fence
    repair put each back (test_repair_drift.py: each kind of drift)."""
    ctx = reserve_context.get_admin_context()
    booking = _book(count=3, start_in=1, length=600)
    cloud.worker.create_lease(ctx, booking.id)
    lease_id = bookings_db.booking_get(ctx, booking.id).lease_id
    lease = _run_events_until(cloud, lease_id, states.Lease.ACTIVE)
    rsv_id = lease.reservations[0].id
    rc = placement.reservation_resource_class(rsv_id)
    by_host = {a.host.name: a.amount
               for a in lease.reservations[0].allocations}
    host = sorted(by_host)[0]
    child = cloud.placement.provider_by_name('reserve_' + host)

    aggregate = [a for a in cloud.nova.aggregates.list()
                 if a.name == rsv_id][0]
    cloud.nova.aggregates.remove_host(aggregate, host)
    cloud.placement.request(
        'DELETE', '/resource_providers/%s/inventories/%s' % (
            child['uuid'], rc))
    cloud.nova.flavor_access.remove_tenant_access(rsv_id, PROJECT)
    fenced = [a for a in cloud.nova.aggregates.list()
              if a.name == 'reserve-fenced-hosts'][0]
    cloud.nova.aggregates.remove_host(fenced, host)

    assert repair.repair_drift(ctx) == {'repaired': 3, 'failed': 0}
    cloud.lease_manager.sync_fence(ctx)
    assert host in aggregate.hosts
    assert cloud.placement.inventories(child['uuid'])[rc]['total'] == \
        by_host[host]
    assert cloud.access[rsv_id] == {PROJECT}
    assert host in fenced.hosts


def test_a_running_lease_follows_its_moved_allocations(cloud):
    """Draining moved a running lease's instances to another host: the
    new host joins its aggregate with the inventory, the old one leaves
    both."""
    ctx = reserve_context.get_admin_context()
    booking = _book(count=1, start_in=1, length=600)
    cloud.worker.create_lease(ctx, booking.id)
    lease_id = bookings_db.booking_get(ctx, booking.id).lease_id
    lease = _run_events_until(cloud, lease_id, states.Lease.ACTIVE)
    rsv = lease.reservations[0]
    rc = placement.reservation_resource_class(rsv.id)
    (allocation,) = rsv.allocations
    old = allocation.host
    new = [h for h in cloud.hosts.values() if h['id'] != old.id][0]
    capacity_store.allocation_move(ctx, allocation, {new['id']: 1})

    cloud.lease_manager.sync_lease(ctx, lease_id)
    aggregate = [a for a in cloud.nova.aggregates.list()
                 if a.name == rsv.id][0]
    assert aggregate.hosts == [new['name']]
    old_child = cloud.placement.provider_by_name('reserve_' + old.name)
    assert rc not in cloud.placement.inventories(old_child['uuid'])
    new_child = cloud.placement.provider_by_name('reserve_' + new['name'])
    assert cloud.placement.inventories(new_child['uuid'])[rc]['total'] == 1
