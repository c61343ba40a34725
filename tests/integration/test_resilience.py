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


def test_missed_notification_is_made_up_by_the_reconciler(daemons,
                                                          source_flavor):
    daemons.kill_daemon('notification')
    booking_id = _book(daemons, source_flavor, 3, 600)
    _wait('ALLOCATED', lambda: _status(daemons, booking_id)['status'] ==
          'ALLOCATED', 60)
    lease_id = _status(daemons, booking_id)['lease_id']
    _wait('lease ACTIVE', lambda: daemons.admin(
        'GET', '/v1/leases/%s' % lease_id).json()['lease']['status'] ==
        'ACTIVE', 60)
    # Nobody listened to lease.event.start_lease: the reconciler aligns.
    _wait('booking ACTIVE', lambda: _status(daemons, booking_id)['status']
          == 'ACTIVE', 30)
    assert 'aligning' in daemons.logs('worker')


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
