"""The de.NBI flavor exporter's URLs on the real nova, set up its way.

The test groups the loopback computes in a nova aggregate with the
exporter's metadata (gpu='True', gpu_count='2', gpu_type=<the test's own
alias>) and makes a nova flavor asking pci_passthrough:alias=<alias>:1,
then runs the four daemons with [gpu] source = aggregates and
[flavor_exporter] enabled:

* enrollment reads each compute's GPUs from the aggregate
  (gpu_source 'aggregates', two each);
* GET /gpus/flavors/ shows the catalogue entry in the exporter's shape,
  total 4 (two hosts of two GPUs) and available 4, the figures of
  GET /v1/flavors/availability;
* a booking of one instance from now: available drops to 3 in both at
  once;
* the aggregate says one GPU per host, the hosts are refreshed: the
  totals drop to 2 in both; the booking cancelled, 2 are available.

Nothing is booted (the fake driver has no PCI devices for the alias).
Everything the test makes in nova (the aggregate, its hosts, the
flavor) goes in the fixtures' finally; the booking is cancelled and its
lease torn down, and the daemons' stop unfences the computes and removes
what a lease left.
"""
import datetime
import uuid

import pytest

from tests.fixtures import backends
from tests.integration import cloud as cloud_mod
from tests.integration import reserve_daemons

pytestmark = pytest.mark.integration

PROJECT = 'exporter-%s' % uuid.uuid4().hex[:6]
# The test's own alias: GPUs others gave the cloud count for nothing.
ALIAS = 'ITEST%s' % uuid.uuid4().hex[:6].upper()
KEY = 'alias:' + ALIAS

EXPORTER_CONF = """
[gpu]
source = aggregates

[flavor_exporter]
enabled = True
"""

_wait = cloud_mod.wait_for


def _iso(dt):
    return dt.replace(microsecond=0).isoformat() + 'Z'


@pytest.fixture
def admin_nova(openstack_cloud):
    return cloud_mod.nova_client('admin', 'admin', 'admin')


@pytest.fixture
def gpu_aggregate(admin_nova):
    """The computes in an aggregate saying two GPUs of type ALIAS each;
    taken out and deleted at the end, whatever happened."""
    aggregate = admin_nova.aggregates.create(
        'itest-gpu-%s' % ALIAS.lower(), None)
    try:
        admin_nova.aggregates.set_metadata(aggregate, {
            'gpu': 'True', 'gpu_count': '2', 'gpu_type': ALIAS})
        for host in cloud_mod.COMPUTE_HOSTS:
            admin_nova.aggregates.add_host(aggregate, host)
        yield aggregate
    finally:
        current = admin_nova.aggregates.get(aggregate.id)
        for host in list(current.hosts or ()):
            admin_nova.aggregates.remove_host(aggregate.id, host)
        admin_nova.aggregates.delete(aggregate.id)


@pytest.fixture
def alias_flavor(admin_nova):
    """A nova flavor asking one GPU of type ALIAS; deleted at the end."""
    flavor = admin_nova.flavors.create(
        'exporter-itest-%s' % uuid.uuid4().hex[:6], ram=512, vcpus=1,
        disk=1)
    try:
        flavor.set_keys({'pci_passthrough:alias': '%s:1' % ALIAS})
        yield flavor
    finally:
        flavor.delete()


@pytest.fixture
def daemons(openstack_cloud, gpu_aggregate, tmp_path):
    with backends.throwaway_database('postgresql', tmp_path) as url:
        service = reserve_daemons.ReserveDaemons(
            url, openstack_cloud['compute'], openstack_cloud['placement'],
            extra_conf=EXPORTER_CONF)
        service.start()
        try:
            yield service
        finally:
            service.stop()


def _exported(daemons, nova_flavor_id):
    """(total, available) of the nova flavor at /gpus/flavors/, after
    checking the exporter's shape."""
    resp = daemons.request('GET', '/gpus/flavors/', project=PROJECT)
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert set(body) == {'flavors', 'timestamp'}
    datetime.datetime.strptime(body['timestamp'], '%Y-%m-%d %H:%M:%S')
    rows = [r for r in body['flavors']
            if r['flavor_openstack_id'] == nova_flavor_id]
    assert len(rows) == 1, body
    assert set(rows[0]) == {'flavor_openstack_id', 'flavor_name',
                            'available', 'total'}
    return rows[0]['total'], rows[0]['available']


def _v1(daemons, nova_flavor_id):
    resp = daemons.request('GET', '/v1/flavors/availability',
                           project=PROJECT)
    assert resp.status_code == 200, resp.text
    rows = [r for r in resp.json()['availability']
            if r['nova_flavor_id'] == nova_flavor_id]
    assert len(rows) == 1, resp.text
    return rows[0]['total'], rows[0]['available']


def _agree(daemons, nova_flavor_id, wanted):
    exported = _exported(daemons, nova_flavor_id)
    assert exported == _v1(daemons, nova_flavor_id) == wanted, exported


def _host_gpus(daemons, name):
    host = daemons.admin('GET', '/v1/hosts/%s' % name).json()['host']
    return host['gpus'].get(KEY)


def _cancel(daemons, booking_id, timeout=90):
    """Cancel the booking and wait until its lease is torn down."""
    resp = daemons.request('GET', '/v1/reservations/%s' % booking_id,
                           project=PROJECT)
    if resp.status_code == 404:
        return
    booking = resp.json()['reservation']
    resp = daemons.request('DELETE', '/v1/reservations/%s' % booking_id,
                           project=PROJECT)
    assert resp.status_code in (204, 404), resp.text
    if booking['lease_id']:
        _wait('lease %s torn down' % booking['lease_id'],
              lambda: daemons.admin('GET', '/v1/leases/%s' %
                                    booking['lease_id']).status_code == 404,
              timeout)


def test_exporter_urls_agree_with_availability_on_aggregates(
        daemons, admin_nova, gpu_aggregate, alias_flavor):
    daemons.enroll_computes()
    for name in cloud_mod.COMPUTE_HOSTS:
        host = daemons.admin('GET', '/v1/hosts/%s' % name).json()['host']
        assert host['gpus'].get(KEY) == 2, host
        assert host['gpu_source'] == 'aggregates', host
    entry = daemons.catalogue_flavor(alias_flavor.id, slots=8)
    assert entry['gpus'] == {KEY: 1}, entry
    _agree(daemons, alias_flavor.id, (4, 4))

    now = datetime.datetime.utcnow()
    resp = daemons.request('POST', '/v1/reservations', project=PROJECT,
                           json={'flavor_id': entry['name'],
                                 'instance_count': 1, 'start': _iso(now),
                                 'end': _iso(now + datetime.timedelta(
                                     minutes=20))})
    assert resp.status_code == 201, resp.text
    booking_id = resp.json()['reservation']['id']
    try:
        # At once: nothing is cached.
        _agree(daemons, alias_flavor.id, (4, 3))

        # The aggregate now says one GPU per host: refreshed, both say so.
        admin_nova.aggregates.set_metadata(gpu_aggregate, {'gpu_count': '1'})
        for name in cloud_mod.COMPUTE_HOSTS:
            host_id = daemons.admin('GET', '/v1/hosts/%s' %
                                    name).json()['host']['id']
            resp = daemons.admin('POST', '/v1/hosts/%s/refresh' % host_id)
            assert resp.status_code in (200, 202), resp.text
        _wait('the hosts hold one GPU each',
              lambda: [_host_gpus(daemons, name)
                       for name in cloud_mod.COMPUTE_HOSTS] == [1, 1], 60)
        _agree(daemons, alias_flavor.id, (2, 1))
    finally:
        _cancel(daemons, booking_id)
    # Cancelled: free again in both once its hand-over guard has passed.
    _wait('the cancelled instance free again',
          lambda: _exported(daemons, alias_flavor.id) == (2, 2), 150)
    _agree(daemons, alias_flavor.id, (2, 2))
