"""Failed nova hosts healed by the manager's health check
(reserve.manager.health): what a failed host holds moves to hosts with
room, what cannot is flagged, and all of it clears when the host is back.

The cloud of test_lease_lifecycle: real placement, the nova double, two
hosts of two instances each.
"""
import pytest

from reserve.common import context as reserve_context
from reserve.common import placement
from reserve.common import states
from reserve.db import bookings as bookings_db
from reserve.db import deliveries as deliveries_db
from reserve.db import hosts as hosts_db
from reserve.db import leases as leases_db
from reserve.capacity import store
from reserve.manager import health
from reserve.notification import sync
from tests.functional.test_lease_lifecycle import _book
from tests.functional.test_lease_lifecycle import _run_events_until
from tests.functional.test_lease_lifecycle import cloud  # noqa: F401
from tests.functional.test_lease_lifecycle import placement_server  # noqa


@pytest.fixture
def told(monkeypatch):
    """The healed, degraded and restored notifications (reserve.
    reservation.<event>): (event, payload)."""
    sent = []

    class Recorder:
        def info(self, context, event_type, payload):
            event = event_type.rpartition('.')[2]
            if event in ('healed', 'degraded', 'restored'):
                sent.append((event, payload))
    monkeypatch.setattr(sync, '_notifier', Recorder)
    return sent


@pytest.fixture
def check(cloud):  # noqa: F811
    return health.HealthCheck(cloud.lease_manager)


def _ctx():
    return reserve_context.get_admin_context()


def _hosts_of(booking_id):
    return {a.host.name: a.amount
            for a in store.allocations_of_booking(_ctx(), booking_id)}


def _leased(cloud, count, start_in, length=3600):  # noqa: F811
    booking = _book(count=count, start_in=start_in, length=length)
    cloud.worker.create_lease(_ctx(), booking.id)
    return bookings_db.booking_get(_ctx(), booking.id)


def _host(name):
    return hosts_db.host_get(_ctx(), name)


def _other(cloud, name):  # noqa: F811
    return [h for h in cloud.hosts if h != name][0]


def _delivery(booking):
    return deliveries_db.delivery_get(_ctx(), states.Owner.BOOKING,
                                      booking.id)


def test_a_failed_host_s_future_booking_moves_to_the_other(cloud, check,
                                                           told):
    booking = _leased(cloud, 1, start_in=7200)
    (name,) = _hosts_of(booking.id)
    cloud.set_service(name, state='down')
    check.run(_ctx())
    # Seen once: logged, nothing moves yet.
    assert _host(name).failure is None
    assert _hosts_of(booking.id) == {name: 1}
    check.run(_ctx())
    failed = _host(name)
    assert failed.failure == 'the compute service of host %s is down' % name
    assert failed.failed_at is not None and failed.reservable
    assert _hosts_of(booking.id) == {_other(cloud, name): 1}
    assert [e for e, _ in told] == ['healed']
    assert told[0][1]['reservation_id'] == booking.id
    assert told[0][1]['to_hosts'] == [_host(_other(cloud, name)).id]
    lease = leases_db.lease_get(_ctx(), booking.lease_id)
    assert not lease.degraded
    assert _delivery(booking).hosts_replaced == 1
    # Nothing new lands on it meanwhile.
    assert name not in _hosts_of(_book(count=1, start_in=7200).id)


def test_an_active_booking_gets_its_capacity_replaced(cloud, check, told):
    booking = _leased(cloud, 1, start_in=0, length=600)
    lease = _run_events_until(cloud, booking.lease_id, states.Lease.ACTIVE)
    rsv_id = lease.reservations[0].id
    (name,) = _hosts_of(booking.id)
    other = _other(cloud, name)
    cloud.set_service(name, status='disabled', reason='fan failure')
    check.run(_ctx())
    check.run(_ctx())
    assert 'disabled (fan failure)' in _host(name).failure
    assert _hosts_of(booking.id) == {other: 1}
    # The lease was synced: the other host is in its aggregate and holds
    # its inventory.
    aggregate = cloud.nova.aggregates.list()[1]
    assert other in aggregate.hosts
    child = cloud.placement.provider_by_name('reserve_' + other)
    rc = placement.reservation_resource_class(rsv_id)
    assert cloud.placement.inventories(child['uuid'])[rc]['total'] == 1
    assert not leases_db.lease_get(_ctx(), lease.id).degraded
    assert _delivery(booking).hosts_replaced == 1
    assert [e for e, _ in told] == ['healed']


def test_what_cannot_move_is_flagged_not_cancelled_and_clears(
        cloud, check, told):
    # Both hosts full: nothing can move.
    booking = _leased(cloud, 4, start_in=7200)
    name = sorted(_hosts_of(booking.id))[0]
    cloud.set_service(name, state='down')
    check.run(_ctx())
    check.run(_ctx())
    booking = bookings_db.booking_get(_ctx(), booking.id)
    assert booking.status == states.Booking.ALLOCATED
    assert _hosts_of(booking.id) == {name: 2, _other(cloud, name): 2}
    lease = leases_db.lease_get(_ctx(), booking.lease_id)
    assert lease.degraded
    assert _delivery(booking).missing == 2
    assert [(e, p['missing']) for e, p in told] == [('degraded', 2)]
    # A check that still sees it changes nothing more.
    check.run(_ctx())
    assert len(told) == 1

    cloud.set_service(name, state='up')
    check.run(_ctx())
    host = _host(name)
    assert (host.failure, host.failed_at, host.reservable) == (None, None,
                                                               True)
    assert not leases_db.lease_get(_ctx(), lease.id).degraded
    assert _delivery(booking).missing == 0
    assert [e for e, _ in told] == ['degraded', 'restored']


def test_a_host_back_and_its_leases_counted_again_commit_together(
        cloud, check, told, monkeypatch):
    """Nobody reads a host back while its leases still count it missing:
    a count that cannot be written leaves the host failed, and the next
    check makes the whole change."""
    booking = _leased(cloud, 4, start_in=7200)
    name = sorted(_hosts_of(booking.id))[0]
    cloud.set_service(name, state='down')
    check.run(_ctx())
    check.run(_ctx())
    assert _delivery(booking).missing == 2
    cloud.set_service(name, state='up')
    written = deliveries_db.delivery_missing

    def broken(*args):
        raise RuntimeError('the database went away')
    monkeypatch.setattr(deliveries_db, 'delivery_missing', broken)
    with pytest.raises(RuntimeError):
        check.run(_ctx())
    assert _host(name).failure is not None
    assert _delivery(booking).missing == 2
    assert leases_db.lease_get(_ctx(), booking.lease_id).degraded
    monkeypatch.setattr(deliveries_db, 'delivery_missing', written)
    check.run(_ctx())
    assert _host(name).failure is None
    assert _delivery(booking).missing == 0
    assert [e for e, _ in told] == ['degraded', 'restored']


def test_a_host_withdrawn_by_the_operator_stays_withdrawn_after(cloud,
                                                                check):
    booking = _leased(cloud, 1, start_in=7200)
    (name,) = _hosts_of(booking.id)
    cloud.remove_hypervisor(name)
    check.run(_ctx())
    check.run(_ctx())
    assert 'no compute service' in _host(name).failure
    hosts_db.host_update(_ctx(), _host(name).id, {'reservable': False})
    cloud.add_hypervisor(name, _host(name).provider_uuid, vcpus=4,
                         memory_mb=8192)
    check.run(_ctx())
    host = _host(name)
    assert host.failure is None and not host.reservable


def test_a_nova_that_does_not_answer_fails_nothing(cloud, check, told):
    booking = _leased(cloud, 1, start_in=7200)
    before = _hosts_of(booking.id)
    cloud.down = True
    for _ in range(3):
        check.run(_ctx())
    assert all(_host(n).failure is None for n in cloud.hosts)
    assert _hosts_of(booking.id) == before
    assert told == []


def test_a_flapping_service_moves_nothing(cloud, check, told):
    booking = _leased(cloud, 1, start_in=7200)
    (name,) = _hosts_of(booking.id)
    for state in ('down', 'up', 'down', 'up', 'down'):
        cloud.set_service(name, state=state)
        check.run(_ctx())
    assert _host(name).failure is None
    assert _hosts_of(booking.id) == {name: 1}
    assert told == []


def _remove_provider(cloud, name):  # noqa: F811
    server = cloud.placement
    root = cloud.hosts[name]['provider_uuid']
    for provider in server.request('GET', '/resource_providers?in_tree=%s'
                                   % root).json()['resource_providers']:
        if provider['uuid'] != root:
            server.request('DELETE', '/resource_providers/%s' %
                           provider['uuid'])
    assert server.request('DELETE', '/resource_providers/%s' %
                          root).status_code == 204


def test_the_pre_start_check_moves_a_booking_whose_host_lost_its_provider(
        cloud, check, told):
    booking = _leased(cloud, 1, start_in=20 * 60)
    (name,) = _hosts_of(booking.id)
    _remove_provider(cloud, name)
    check.run(_ctx())
    assert _host(name).failure is None      # seen once
    check.run(_ctx())
    assert _host(name).failure == ('placement has no resource provider for '
                                   'compute node %s' % name)
    assert _hosts_of(booking.id) == {_other(cloud, name): 1}
    assert [(e, p['reservation_id']) for e, p in told] == [
        ('healed', booking.id)]


def test_placement_is_looked_at_only_within_the_lead_time(cloud, check):
    booking = _leased(cloud, 1, start_in=3 * 3600)
    (name,) = _hosts_of(booking.id)
    _remove_provider(cloud, name)
    check.run(_ctx())
    check.run(_ctx())
    assert _host(name).failure is None
    cloud_conf = health.CONF
    cloud_conf.set_override('prestart_check_minutes', 4 * 60,
                            group='manager')
    try:
        check.run(_ctx())
        check.run(_ctx())
    finally:
        cloud_conf.clear_override('prestart_check_minutes', group='manager')
    assert 'no resource provider' in _host(name).failure
    assert name not in _hosts_of(booking.id)
