"""The projects a booking is shared with get the owner's access to its
reserved flavor and a tenant key of their own on its aggregate, at the
start, at once when the list changes while it runs, and lose both at the
end; the repair task keeps them (and removes those of a project no
longer shared), on the nova double and a real placement."""
from reserve.common import placement
from reserve.common import states
from reserve.db import bookings as bookings_db
from reserve.db import sharing as sharing_db
from tests.functional.repair_cloud import _admin
from tests.functional.repair_cloud import cloud  # noqa: F401
from tests.functional.repair_cloud import placement_server  # noqa: F401
from tests.functional.repair_cloud import repairer  # noqa: F401
from tests.functional.test_lease_lifecycle import _book
from tests.functional.test_lease_lifecycle import _run_events_until
from tests.functional.test_lease_lifecycle import PROJECT
from tests.functional.test_spot_lending import SPOT
from tests.functional.test_spot_lending import spot  # noqa: F401
from tests.functional.test_spot_lending import SPOT_PROJECT

SHARED = 'c0ffee00c0ffee00c0ffee00c0ffee00'
OTHER = '0e5b9b7a-7d54-4c62-9d3e-1a2b3c4d5e6f'
HAND = 'feedfacefeedfacefeedfacefeedface'


def _metadata(rsv_id, *shared):
    metadata = {'reservation': rsv_id, 'filter_tenant_id': PROJECT,
                'reserve:owner': 'alice'}
    metadata.update(('filter_tenant_id_' + p, p) for p in shared)
    return metadata


def _aggregate(cloud, rsv_id):  # noqa: F811
    return [a for a in cloud.nova.aggregates.list() if a.name == rsv_id][0]


def _started(cloud, shared, length=600, start_in=1,
             count=1):  # noqa: F811
    ctx = _admin()
    booking = _book(count=count, start_in=start_in, length=length)
    sharing_db.shares_add(ctx, booking.id, shared)
    cloud.worker.create_lease(ctx, booking.id)
    lease_id = bookings_db.booking_get(ctx, booking.id).lease_id
    lease = _run_events_until(cloud, lease_id, states.Lease.ACTIVE)
    return booking, lease, lease.reservations[0].id


def _change(booking, shared):
    sharing_db.shares_change(_admin(), booking.id, lambda current: shared)


def test_shared_projects_get_access_at_start_and_follow_changes(
        cloud):  # noqa: F811
    ctx = _admin()
    booking = _book(count=1, start_in=1, length=600)
    sharing_db.shares_add(ctx, booking.id, [SHARED])
    cloud.worker.create_lease(ctx, booking.id)
    lease_id = bookings_db.booking_get(ctx, booking.id).lease_id
    # Before the start, nobody boots it; the aggregate names them already.
    rsv_id = bookings_db.booking_get(ctx, booking.id).reserved_flavor_id
    assert cloud.access.get(rsv_id, set()) == set()
    assert _aggregate(cloud, rsv_id).metadata == _metadata(rsv_id, SHARED)

    _run_events_until(cloud, lease_id, states.Lease.ACTIVE)
    assert cloud.access[rsv_id] == {PROJECT, SHARED}

    # A change while it runs reaches nova with the worker's cast.
    _change(booking, [OTHER])
    cloud.worker.share_lease(ctx, booking.id)
    assert cloud.access[rsv_id] == {PROJECT, OTHER}
    assert _aggregate(cloud, rsv_id).metadata == _metadata(rsv_id, OTHER)
    # Its access seen gone, the share taken back is forgotten.
    assert sharing_db.shares_of(ctx, booking.id) == ([OTHER], [])

    _change(booking, [])
    cloud.worker.share_lease(ctx, booking.id)
    assert cloud.access[rsv_id] == {PROJECT}
    assert _aggregate(cloud, rsv_id).metadata == _metadata(rsv_id)


def test_the_end_takes_every_shared_access_back(cloud):  # noqa: F811
    cloud.delete_polls = -1  # a server stuck: the flavor stays to be seen
    booking, lease, rsv_id = _started(cloud, [SHARED, OTHER], length=4,
                                      start_in=0)
    # One share taken back with no cast: the end takes its access too.
    _change(booking, [SHARED])
    assert cloud.access[rsv_id] == {PROJECT, SHARED, OTHER}
    cloud.boot(rsv_id, SHARED)
    _run_events_until(cloud, lease.id, states.Lease.TERMINATED)
    assert rsv_id in cloud.flavors
    assert cloud.access.get(rsv_id, set()) == set()


def test_the_repair_keeps_shared_access(cloud, repairer):  # noqa: F811
    booking, lease, rsv_id = _started(cloud, [SHARED, OTHER])
    cloud.nova.flavor_access.remove_tenant_access(rsv_id, SHARED)
    cloud.nova.aggregates.set_metadata(
        _aggregate(cloud, rsv_id), {'filter_tenant_id_' + OTHER: None})
    # A project given the flavor by hand is the operator's business.
    cloud.nova.flavor_access.add_tenant_access(rsv_id, HAND)

    assert repairer.run_once(_admin())['drift'] == {'repaired': 2,
                                                    'failed': 0}
    assert cloud.access[rsv_id] == {PROJECT, SHARED, OTHER, HAND}
    assert _aggregate(cloud, rsv_id).metadata == _metadata(rsv_id, SHARED,
                                                           OTHER)

    # A change whose cast was lost: the repair applies it.
    _change(booking, [SHARED])
    assert repairer.run_once(_admin())['drift'] == {'repaired': 2,
                                                    'failed': 0}
    assert cloud.access[rsv_id] == {PROJECT, SHARED, HAND}
    assert _aggregate(cloud, rsv_id).metadata == _metadata(rsv_id, SHARED)
    assert sharing_db.shares_of(_admin(), booking.id) == ([SHARED], [])
    assert repairer.run_once(_admin())['drift'] == {'repaired': 0,
                                                    'failed': 0}


def test_a_share_lease_of_a_booking_gone_or_not_started_does_nothing(
        cloud):  # noqa: F811
    ctx = _admin()
    cloud.worker.share_lease(ctx, 'no-such-booking')
    booking = _book(count=1, start_in=600, length=600)
    sharing_db.shares_add(ctx, booking.id, [SHARED])
    cloud.worker.create_lease(ctx, booking.id)
    rsv_id = bookings_db.booking_get(ctx, booking.id).reserved_flavor_id
    cloud.worker.share_lease(ctx, booking.id)
    assert cloud.access.get(rsv_id, set()) == set()


def test_a_shared_projects_servers_are_the_owners_to_the_spot_task(
        cloud, spot):  # noqa: F811
    booking, lease, rsv_id = _started(cloud, [SHARED], count=3)
    seats = {a.host.name: a.amount for a in lease.reservations[0]
             .allocations}
    full = max(seats, key=seats.get)
    admits = placement.reservation_resource_class(rsv_id)
    assert spot.run()[full].lent == 1
    lent = spot.boot(full, 'spot-flavor', SPOT_PROJECT, SPOT)
    # The shared project boots into the margin: its seat is taken back
    # from the spot server, as one of the owner's would be.
    assert spot.boot(full, rsv_id, SHARED, admits) is not None
    assert spot.run()[full].lent == 0
    assert spot.reclaimed() == [lent]
    assert spot.sent[0][1]['reason'] == \
        'the reservation owners boot into their seats'
