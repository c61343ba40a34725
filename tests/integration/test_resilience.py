"""Nothing relies on a message arriving exactly once, and a daemon killed
mid-flight leaves state that the others finish.

Real nova and placement, the four daemons as processes over RabbitMQ on
MariaDB; daemons are killed with SIGKILL and messages purged from the
broker.
"""
import datetime
import signal
import subprocess
import time
import uuid

import pytest
import sqlalchemy as sa

from tests.fixtures import backends
from tests.integration import cloud as cloud_mod
from tests.integration import reserve_daemons

pytestmark = pytest.mark.integration
PROJECT = 'resilience-%s' % uuid.uuid4().hex[:6]


def _iso(seconds):
    when = datetime.datetime.utcnow() + datetime.timedelta(seconds=seconds)
    return when.replace(microsecond=0).isoformat() + 'Z'


_wait = cloud_mod.wait_for


@pytest.fixture
def daemons(openstack_cloud, tmp_path):
    with backends.throwaway_database('mysql', tmp_path) as url:
        service = reserve_daemons.ReserveDaemons(
            url, openstack_cloud['compute'], openstack_cloud['placement'],
            reconcile_interval=2, pending_create_timeout=4)
        service.start()
        try:
            for name in cloud_mod.COMPUTE_HOSTS:
                resp = service.admin('POST', '/v1/hosts', json={'name': name})
                assert resp.status_code == 201, resp.text
            yield service
        finally:
            service.stop()


@pytest.fixture
def source_flavor(openstack_cloud):
    nova = cloud_mod.nova_client('admin', 'admin', 'admin')
    flavor = nova.flavors.create('resilience-%s' % uuid.uuid4().hex[:6],
                                 ram=256, vcpus=1, disk=1)
    yield flavor
    flavor.delete()


def _book(daemons, flavor, start_in, length):
    entry = daemons.catalogue_flavor(flavor.id)
    resp = daemons.request('POST', '/v1/reservations', project=PROJECT,
                           json={'flavor_id': entry['id'],
                                 'start': _iso(start_in),
                                 'end': _iso(start_in + length)})
    assert resp.status_code == 201, resp.text
    return resp.json()['reservation']['id']


def _status(daemons, booking_id):
    resp = daemons.request('GET', '/v1/reservations/%s' % booking_id,
                           project=PROJECT)
    assert resp.status_code == 200, resp.text
    return resp.json()['reservation']


def test_lost_cast_is_recast_by_the_reconciler(daemons, source_flavor):
    daemons.kill_daemon('worker')
    booking_id = _book(daemons, source_flavor, 600, 600)
    # The cast sits in the worker's queue: drop it, as a broker restart
    # or a misrouted message would.
    subprocess.run(['rabbitmqctl', '-q', 'purge_queue', '-p', daemons.vhost,
                    'reserve-worker'], check=True, capture_output=True)
    time.sleep(1)
    assert _status(daemons, booking_id)['status'] == 'PENDING_CREATE'
    daemons.start_daemon('worker')
    booking = _wait('ALLOCATED', lambda: _status(
        daemons, booking_id)['status'] == 'ALLOCATED' and
        _status(daemons, booking_id), 60)
    assert booking['lease_id']
    assert 'casting its creation again' in daemons.logs('worker')


def test_a_booking_moves_without_the_notification_daemon(
        daemons, source_flavor):
    """The manager moves a booking with its lease, in one transaction:
    with no notification daemon listening, it is ALLOCATED and ACTIVE
    as its lease is made and started, never behind it."""
    daemons.kill_daemon('notification')
    booking_id = _book(daemons, source_flavor, 3, 600)
    _wait('ALLOCATED', lambda: _status(daemons, booking_id)['status'] ==
          'ALLOCATED', 60)
    lease_id = _status(daemons, booking_id)['lease_id']
    _wait('lease ACTIVE', lambda: daemons.admin(
        'GET', '/v1/leases/%s' % lease_id).json()['lease']['status'] ==
        'ACTIVE', 60)
    assert _status(daemons, booking_id)['status'] == 'ACTIVE'
    daemons.start_daemon('notification')


def test_manager_killed_before_the_start_still_starts_it(daemons,
                                                         source_flavor):
    booking_id = _book(daemons, source_flavor, 6, 600)
    _wait('ALLOCATED', lambda: _status(daemons, booking_id)['status'] ==
          'ALLOCATED', 60)
    daemons.kill_daemon('manager', signal.SIGKILL)
    time.sleep(8)  # the start passes while no manager runs
    assert _status(daemons, booking_id)['status'] == 'ALLOCATED'
    daemons.start_daemon('manager')
    _wait('ACTIVE', lambda: _status(daemons, booking_id)['status'] ==
          'ACTIVE', 40)
    nova = cloud_mod.nova_client('admin', 'admin', 'admin')
    rsv_id = _status(daemons, booking_id)['compute_flavor']
    assert [a.tenant_id for a in nova.flavor_access.list(flavor=rsv_id)] \
        == [PROJECT]


def test_cancel_while_worker_down_leaves_no_orphan(daemons, source_flavor):
    booking_id = _book(daemons, source_flavor, 3, 600)
    _wait('ALLOCATED', lambda: _status(daemons, booking_id)['status'] ==
          'ALLOCATED', 60)
    lease_id = _status(daemons, booking_id)['lease_id']
    rsv_id = _status(daemons, booking_id)['compute_flavor']
    daemons.kill_daemon('worker')
    resp = daemons.request('DELETE', '/v1/reservations/%s' % booking_id,
                           project=PROJECT)
    assert resp.status_code == 204, resp.text
    subprocess.run(['rabbitmqctl', '-q', 'purge_queue', '-p', daemons.vhost,
                    'reserve-worker'], check=True, capture_output=True)
    daemons.start_daemon('worker')
    # The reconciler finds the lease that outlives its booking.
    _wait('lease gone', lambda: daemons.admin(
        'GET', '/v1/leases/%s' % lease_id).status_code == 404, 90)
    nova = cloud_mod.nova_client('admin', 'admin', 'admin')
    assert rsv_id not in [f.id for f in nova.flavors.list(is_public=None)]


def _start_event(engine, lease_id):
    with engine.connect() as conn:
        return conn.execute(sa.text(
            "SELECT status, taken_by, attempts FROM events WHERE "
            "lease_id = :lease AND event_type = 'start_lease'"),
            {'lease': lease_id}).first()


def _kill_the_taker(daemons, engine, booking_id, managers):
    """Watch the booking's start event; SIGKILL the manager that takes
    it while it runs. Returns (its name, when), or None when the start
    was done before it could be caught."""
    lease_id = _status(daemons, booking_id)['lease_id']
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        row = _start_event(engine, lease_id)
        if row is not None and row.status == 'IN_PROGRESS':
            name = managers[row.taken_by]
            daemons.kill_daemon(name, signal.SIGKILL)
            return name, time.monotonic()
        if row is not None and row.status == 'DONE':
            return None
        time.sleep(0.01)
    raise AssertionError('the start of %s was never taken' % booking_id)


def test_a_start_killed_mid_flight_is_taken_over_by_the_other_manager(
        daemons, source_flavor):
    """Two managers; the one running a lease's start dies (SIGKILL) in
    the middle of it. The other takes the start over once the dead one's
    heartbeat is [DEFAULT]service_down_time (15 s) old: the booking is
    ACTIVE within 30 s of the kill, its servers' flavor given to its
    project, and the start ran twice only as a retry of the same
    idempotent event."""
    daemons.start_daemon('manager-b')
    managers = {daemons.host_of(n): n for n in ('manager', 'manager-b')}
    engine = sa.create_engine(daemons.db_url)
    try:
        for attempt in range(3):
            booking_id = _book(daemons, source_flavor, 6, 600)
            _wait('ALLOCATED', lambda: _status(daemons, booking_id)[
                'status'] == 'ALLOCATED', 60)
            killed = _kill_the_taker(daemons, engine, booking_id,
                                     managers)
            if killed is not None:
                break
            # Started before it could be caught: try the next booking.
        assert killed is not None, 'no start could be caught in flight'
        name, when = killed
        _wait('ACTIVE after the takeover', lambda: _status(
            daemons, booking_id)['status'] == 'ACTIVE', 45)
        recovered = time.monotonic() - when
        lease_id = _status(daemons, booking_id)['lease_id']
        row = _start_event(engine, lease_id)
        survivor = [h for h, n in managers.items() if n != name][0]
        assert (row.status, row.taken_by, row.attempts) == (
            'DONE', survivor, 2)
        assert recovered <= 30, 'took %.1f s' % recovered
        print('start taken over %.1f s after its manager was killed' %
              recovered)
        nova = cloud_mod.nova_client('admin', 'admin', 'admin')
        rsv_id = _status(daemons, booking_id)['compute_flavor']
        assert [a.tenant_id for a in
                nova.flavor_access.list(flavor=rsv_id)] == [PROJECT]
        # The surviving manager tears it down as well.
        resp = daemons.request('DELETE', '/v1/reservations/%s' % booking_id,
                               project=PROJECT)
        assert resp.status_code == 204, resp.text
        _wait('lease gone', lambda: daemons.admin(
            'GET', '/v1/leases/%s' % lease_id).status_code == 404, 60)
        assert rsv_id not in [f.id for f in nova.flavors.list(
            is_public=None)]
    finally:
        engine.dispose()
