"""A booking's whole life, proven by nova itself.

Real placement and nova (tools/cloud/), the four reserve daemons as
separate processes over RabbitMQ, on MariaDB and on PostgreSQL. While the
lease is active the project boots instance_count servers with the
reserved flavor and they land only on the reserved hosts, one more fails
with "No valid host", and another project cannot use the flavor; after
the end every artefact is gone.
"""
import datetime
import uuid

from novaclient import exceptions as nova_exc
import pytest

from tests.fixtures import backends
from tests.integration import cloud as cloud_mod
from tests.integration import reserve_daemons

pytestmark = pytest.mark.integration

PROJECT = 'project-%s' % uuid.uuid4().hex[:6]
OTHER_PROJECT = 'other-%s' % uuid.uuid4().hex[:6]


def _iso(dt):
    return dt.replace(microsecond=0).isoformat() + 'Z'


_wait = cloud_mod.wait_for


@pytest.fixture(params=['mysql', 'postgresql'])
def daemons(request, openstack_cloud, tmp_path):
    with backends.throwaway_database(request.param, tmp_path) as url:
        service = reserve_daemons.ReserveDaemons(
            url, openstack_cloud['compute'], openstack_cloud['placement'])
        service.start()
        try:
            yield service
        finally:
            service.stop()


@pytest.fixture
def admin_nova(openstack_cloud):
    return cloud_mod.nova_client('admin', 'admin', 'admin')


def _enroll_hosts(daemons):
    hosts = {}
    for name in cloud_mod.COMPUTE_HOSTS:
        resp = daemons.admin('GET', '/v1/hosts/%s' % name)
        if resp.status_code == 404:
            resp = daemons.admin('POST', '/v1/hosts', json={'name': name})
            assert resp.status_code == 201, resp.text
        hosts[name] = resp.json()['host']
    return hosts


def _booking(daemons, booking_id, project=PROJECT):
    resp = daemons.request('GET', '/v1/reservations/%s' % booking_id,
                           project=project)
    assert resp.status_code == 200, resp.text
    return resp.json()['reservation']


def _status_is(daemons, booking_id, status):
    booking = _booking(daemons, booking_id)
    assert booking['status'] != 'ERROR', booking
    return booking if booking['status'] == status else None


def _placement(path):
    return cloud_mod.placement_request('GET', path)


def test_booking_fences_nova_capacity(daemons, admin_nova):
    hosts = _enroll_hosts(daemons)
    assert set(hosts) == set(cloud_mod.COMPUTE_HOSTS)
    source = admin_nova.flavors.create('itest-%s' % uuid.uuid4().hex[:6],
                                       ram=512, vcpus=1, disk=1)
    try:
        _run_booking(daemons, admin_nova, source)
    finally:
        source.delete()


def _run_booking(daemons, admin_nova, source):
    now = datetime.datetime.utcnow()
    start, end = now + datetime.timedelta(seconds=8), \
        now + datetime.timedelta(seconds=50)
    # Bookings name the catalogue entry mapping the nova flavor.
    entry = daemons.catalogue_flavor(source.id, slots=2)
    resp = daemons.request('POST', '/v1/reservations', project=PROJECT,
                           json={'flavor_id': entry['name'],
                                 'start': _iso(start), 'end': _iso(end),
                                 'instance_count': 2})
    assert resp.status_code == 201, resp.text
    booking_id = resp.json()['reservation']['id']
    assert resp.json()['reservation']['status'] == 'PENDING_CREATE'

    booking = _wait('ALLOCATED', lambda: _status_is(daemons, booking_id,
                                                    'ALLOCATED'), 30)
    rsv_id = booking['compute_flavor']
    rc = 'CUSTOM_RESERVATION_' + rsv_id.upper().replace('-', '_')
    lease = daemons.request('GET', '/v1/leases/%s' % booking['lease_id'],
                            project=PROJECT)
    assert lease.status_code == 200, lease.text
    lease = lease.json()['lease']
    assert lease['status'] == 'PENDING'
    reserved_hosts = {a['host'] for a in
                      lease['reservations'][0]['allocations']}

    # The ground is prepared early; the keys are withheld.
    flavor = admin_nova.flavors.get(rsv_id)
    assert flavor.name == 'reservation:%s' % rsv_id
    assert flavor.is_public is False
    specs = flavor.get_keys()
    assert specs['aggregate_instance_extra_specs:reservation'] == rsv_id
    assert specs['resources:%s' % rc] == '1'
    assert admin_nova.flavor_access.list(flavor=rsv_id) == []
    aggregate = [a for a in admin_nova.aggregates.list()
                 if a.name == rsv_id][0]
    assert aggregate.hosts == []
    assert aggregate.metadata['reservation'] == rsv_id
    assert aggregate.metadata['filter_tenant_id'] == PROJECT
    assert _placement('/resource_classes/%s' % rc).status_code == 200

    # Too early: the project cannot see the flavor yet.
    member = cloud_mod.nova_client(PROJECT, 'alice', 'member')
    with pytest.raises(nova_exc.ClientException):
        member.servers.create('early', cloud_mod.IMAGE_ID, rsv_id,
                              nics='none')

    # start_lease: the manager wakes for it within seconds, not 10 s.
    _wait('ACTIVE', lambda: _status_is(daemons, booking_id, 'ACTIVE'), 40)
    started = datetime.datetime.utcnow()
    assert (started - start).total_seconds() < 8
    # The desk's calendar, live: both slots of the entry are held now.
    availability = daemons.request('GET', '/v1/flavors/availability',
                                   project=PROJECT).json()['availability']
    assert [(a['total'], a['available']) for a in availability
            if a['flavor_id'] == entry['id']] == [(2, 0)]
    assert [a.tenant_id for a in admin_nova.flavor_access.list(
        flavor=rsv_id)] == [PROJECT]
    aggregate = admin_nova.aggregates.get(aggregate.id)
    assert set(aggregate.hosts) == reserved_hosts
    for host in reserved_hosts:
        child = _placement('/resource_providers?name=reserve_%s' %
                           host).json()['resource_providers'][0]
        inventory = _placement('/resource_providers/%s/inventories' %
                               child['uuid']).json()['inventories'][rc]
        assert inventory['max_unit'] == 1

    # The fence, proven by nova: two boots fit, on the reserved hosts only.
    servers = [member.servers.create('rsv-%d' % i, cloud_mod.IMAGE_ID,
                                     rsv_id, nics='none') for i in range(2)]
    for server in servers:
        _wait('server ACTIVE', lambda: _server_status(member, server.id) ==
              'ACTIVE', 60)
        placed = admin_nova.servers.get(server.id)
        assert getattr(placed, 'OS-EXT-SRV-ATTR:host') in reserved_hosts
    extra = member.servers.create('rsv-extra', cloud_mod.IMAGE_ID, rsv_id,
                                  nics='none')
    _wait('extra server ERROR', lambda: _server_status(member, extra.id) ==
          'ERROR', 60)
    assert 'No valid host' in member.servers.get(extra.id).fault['message']
    member.servers.delete(extra.id)

    # Another project cannot use the flavor at all.
    other = cloud_mod.nova_client(OTHER_PROJECT, 'bob', 'member')
    with pytest.raises(nova_exc.ClientException):
        other.servers.create('intruder', cloud_mod.IMAGE_ID, rsv_id,
                             nics='none')

    # end_lease: servers deleted, every artefact gone, booking COMPLETE.
    _wait('COMPLETE', lambda: _status_is(daemons, booking_id, 'COMPLETE'),
          90)
    assert admin_nova.servers.list(search_opts={
        'flavor': rsv_id, 'all_tenants': 1}) == []
    with pytest.raises(nova_exc.NotFound):
        admin_nova.flavors.get(rsv_id)
    assert rsv_id not in [a.name for a in admin_nova.aggregates.list()]
    assert _placement('/resource_classes/%s' % rc).status_code == 404
    for host in reserved_hosts:
        child = _placement('/resource_providers?name=reserve_%s' %
                           host).json()['resource_providers'][0]
        assert rc not in _placement('/resource_providers/%s/inventories' %
                                    child['uuid']).json()['inventories']
    lease = daemons.admin('GET', '/v1/leases/%s' % booking['lease_id'])
    assert lease.json()['lease']['status'] == 'TERMINATED'
    assert [e['status'] for e in lease.json()['lease']['events']] == \
        ['DONE', 'DONE', 'DONE']


def _server_status(client, server_id):
    return client.servers.get(server_id).status
