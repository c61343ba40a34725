"""What a booking is promised, proven by nova: the capacity is there.

Real placement and nova (tools/cloud/, with nova's isolated aggregate
filtering), the four reserve daemons as processes over RabbitMQ, on
MariaDB and on PostgreSQL. The quick start's vGPUs (two on each of host1
and host2) and its public nova flavor g1.vgpu (one vGPU) are the
capacity; both hosts are enrolled, hence fenced, and one catalogue entry
maps g1.vgpu (4 instances in all):

* third parties: while a booking of 2 is active, another project's boots
  of the public g1.vgpu find no valid host (every enrolled host is
  fenced), and the booking's project boots its 2 reserved servers, on
  the booking's hosts; a third finds no valid host;
* what used to be accepted (201) and fail later (ERROR) is refused at
  POST: a second entry of the same nova flavor when the first holds every
  vGPU (409, and availability 0), a nova flavor no host can hold (409),
  a nova flavor that does not exist (400);
* forced host maintenance moves a booking yet to start to the other host
  (409 naming it without force), and its server boots there.

The daemons (one database per backend) are shared by the tests of the
module; each test cancels its bookings (waiting for the teardown of
their leases) and deletes its servers and flavors, failure or not. What
the daemons leave anyway (a lease not torn down, the fence of the hosts)
goes when they stop (ReserveDaemons.stop).
"""
import datetime
import types
import uuid

from novaclient import exceptions as nova_exc
import pytest

from tests.fixtures import backends
from tests.integration import cloud as cloud_mod
from tests.integration import reserve_daemons
from tools.cloud import quickstart_cloud

pytestmark = pytest.mark.integration

TAG = uuid.uuid4().hex[:6]
PROJECT = 'guarantee-%s' % TAG
THIRD_PROJECT = 'third-%s' % TAG
VGPU = 'VGPU'
# Boots of the public flavor by a third project, at most.
THIRD_PARTY_ATTEMPTS = 6
LIVE = ('PENDING_CREATE', 'ALLOCATED', 'ACTIVE')


def _iso(dt):
    return dt.replace(microsecond=0).isoformat() + 'Z'


def _now():
    return datetime.datetime.utcnow()


_wait = cloud_mod.wait_for


@pytest.fixture(scope='module')
def admin_nova(openstack_cloud):
    return cloud_mod.nova_client('admin', 'admin', 'admin')


@pytest.fixture(scope='module')
def gpu_flavor(openstack_cloud, admin_nova):
    """The quick start's vGPUs (two on each host) and its public
    g1.vgpu (one vGPU)."""
    with quickstart_cloud.gpu_flavor(admin_nova) as flavor:
        yield flavor


@pytest.fixture(scope='module', params=['mysql', 'postgresql'])
def desk(request, openstack_cloud, gpu_flavor, tmp_path_factory):
    """The daemons of one backend, host1 and host2 enrolled (so fenced),
    and a catalogue entry of 4 slots on g1.vgpu."""
    tmp_path = tmp_path_factory.mktemp('guarantee-%s' % request.param)
    with backends.throwaway_database(request.param, tmp_path) as url:
        daemons = reserve_daemons.ReserveDaemons(
            url, openstack_cloud['compute'], openstack_cloud['placement'])
        try:
            daemons.start()
            hosts = {}
            for name in cloud_mod.COMPUTE_HOSTS:
                resp = daemons.admin('POST', '/v1/hosts',
                                     json={'name': name})
                assert resp.status_code == 201, resp.text
                hosts[name] = resp.json()['host']
            entry = daemons.catalogue_flavor(
                gpu_flavor.id, slots=4, name='guarantee-%s' % TAG)
            yield types.SimpleNamespace(daemons=daemons, hosts=hosts,
                                        entry=entry, gpu_flavor=gpu_flavor)
        finally:
            daemons.stop()


# the booking desk ---------------------------------------------------------

def _booking(daemons, booking_id, project=PROJECT):
    resp = daemons.request('GET', '/v1/reservations/%s' % booking_id,
                           project=project)
    assert resp.status_code == 200, resp.text
    return resp.json()['reservation']


def _status(daemons, booking_id, wanted, project=PROJECT):
    booking = _booking(daemons, booking_id, project)
    assert booking['status'] != 'ERROR', booking
    return booking if booking['status'] == wanted else None


def _book(daemons, entry, start, end, count, project=PROJECT):
    return daemons.request('POST', '/v1/reservations', project=project,
                           json={'flavor_id': entry['name'],
                                 'start': _iso(start), 'end': _iso(end),
                                 'instance_count': count})


def _cancel(daemons, booking_id, project=PROJECT, timeout=60):
    """Cancel a booking and wait until its lease is torn down (the lease
    row goes once its end ran: flavor, aggregate, inventory removed)."""
    resp = daemons.request('GET', '/v1/reservations/%s' % booking_id,
                           project=project)
    if resp.status_code == 404:
        return
    booking = resp.json()['reservation']
    resp = daemons.request('DELETE', '/v1/reservations/%s' % booking_id,
                           project=project)
    assert resp.status_code in (204, 404), resp.text
    if booking['lease_id']:
        _wait('lease %s torn down' % booking['lease_id'],
              lambda: daemons.admin('GET', '/v1/leases/%s' %
                                    booking['lease_id']).status_code == 404,
              timeout)
    if booking['compute_flavor']:
        with pytest.raises(nova_exc.NotFound):
            cloud_mod.nova_client('admin', 'admin', 'admin').flavors.get(
                booking['compute_flavor'])


def _booked(daemons, cleanup, entry, start, end, count, project=PROJECT):
    """A booking admitted (201) and turned into a lease (ALLOCATED or
    later), cancelled at the end of the test."""
    resp = _book(daemons, entry, start, end, count, project)
    assert resp.status_code == 201, resp.text
    booking_id = resp.json()['reservation']['id']
    cleanup(lambda: _cancel(daemons, booking_id, project))

    def allocated():
        booking = _booking(daemons, booking_id, project)
        assert booking['status'] != 'ERROR', booking
        return booking if booking['lease_id'] else None

    return _wait('booking %s allocated' % booking_id, allocated, 30)


def _lease_hosts(daemons, booking):
    lease = daemons.admin('GET', '/v1/leases/%s' % booking['lease_id'])
    assert lease.status_code == 200, lease.text
    return {a['host']: a['count'] for a in
            lease.json()['lease']['reservations'][0]['allocations']}


# nova ---------------------------------------------------------------------

def _servers(cleanup):
    """Server ids, deleted (as admin) at the end of the test."""
    servers = []

    def delete():
        admin = cloud_mod.nova_client('admin', 'admin', 'admin')
        for server_id in servers:
            try:
                admin.servers.delete(server_id)
            except nova_exc.NotFound:
                pass
        cloud_mod.wait_for_deleted(admin, servers)

    cleanup(delete)
    return servers


def _create(client, name, flavor, servers):
    server = client.servers.create(name, cloud_mod.IMAGE_ID, flavor,
                                   nics='none')
    servers.append(server.id)
    return server.id


def _placed(admin_nova, client, server_id):
    """(status, host, fault message) once the server is ACTIVE or ERROR."""
    cloud_mod.wait_for_server(client, server_id, timeout=90)
    server = admin_nova.servers.get(server_id)
    return (server.status, getattr(server, 'OS-EXT-SRV-ATTR:host'),
            (getattr(server, 'fault', None) or {}).get('message', ''))


def _vgpu_of(server_id):
    allocations = cloud_mod.placement_get('/allocations/%s' % server_id)[
        'allocations']
    return sum(a['resources'].get(VGPU, 0) for a in allocations.values())


# the tests ---------------------------------------------------------------

def test_third_parties_cannot_take_reserved_capacity(desk, admin_nova,
                                                     cleanup):
    daemons, entry = desk.daemons, desk.entry
    for host in desk.hosts.values():
        assert host['gpus'].get(VGPU) == 2, host
    shown = daemons.admin('GET', '/v1/flavors/%s' % entry['id']).json()
    assert shown['flavor']['gpus'] == {VGPU: 1}
    assert shown['flavor']['gpu_slots'] == 4

    now = _now()
    start, end = now + datetime.timedelta(seconds=8), \
        now + datetime.timedelta(minutes=10)
    booking = _booked(daemons, cleanup, entry, start, end, 2)
    servers = _servers(cleanup)  # deleted before the booking is cancelled
    booking = _wait('ACTIVE', lambda: _status(daemons, booking['id'],
                                              'ACTIVE'), 45)
    rsv_id = booking['compute_flavor']
    reserved_hosts = _lease_hosts(daemons, booking)
    assert sum(reserved_hosts.values()) == 2

    # A third project tries the public flavor until nova refuses: every
    # try fails, or lands on a host that is not enrolled (none here).
    third = cloud_mod.nova_client(THIRD_PROJECT, 'carol', 'member')
    attempts = []
    for i in range(THIRD_PARTY_ATTEMPTS):
        placed = _placed(admin_nova, third, _create(
            third, 'third-%d' % i, desk.gpu_flavor.id, servers))
        attempts.append(placed)
        if placed[0] == 'ERROR':
            break
    assert all(status == 'ERROR' or host not in desk.hosts
               for status, host, _ in attempts), attempts
    assert attempts[-1][0] == 'ERROR', attempts
    assert 'No valid host' in attempts[-1][2], attempts
    assert [a[0] for a in attempts] == ['ERROR'], attempts

    # The booking's project gets what it booked, on its hosts.
    member = cloud_mod.nova_client(PROJECT, 'alice', 'member')
    mine = [_create(member, 'reserved-%d' % i, rsv_id, servers)
            for i in range(2)]
    on = {}
    for server_id in mine:
        status, host, fault = _placed(admin_nova, member, server_id)
        assert status == 'ACTIVE', fault
        assert host in reserved_hosts, (host, reserved_hosts)
        assert _vgpu_of(server_id) == 1
        on[host] = on.get(host, 0) + 1
    assert on == reserved_hosts
    status, _, fault = _placed(admin_nova, member, _create(
        member, 'reserved-extra', rsv_id, servers))
    assert status == 'ERROR'
    assert 'No valid host' in fault


def test_doomed_bookings_are_refused_at_post(desk, admin_nova, cleanup):
    daemons, entry = desk.daemons, desk.entry

    # (1) Two entries on one nova flavor: the first holds every vGPU of
    # the window, the second has none left to offer.
    other = daemons.catalogue_flavor(desk.gpu_flavor.id, slots=4,
                                     name='guarantee-other-%s' % TAG)
    now = _now()
    start, end = now + datetime.timedelta(hours=2), \
        now + datetime.timedelta(hours=3)
    for _ in range(2):
        _booked(daemons, cleanup, entry, start, end, 2)
    resp = daemons.request('GET', '/v1/flavors/availability', params={
        'start': _iso(start), 'end': _iso(end)}, project=PROJECT)
    assert resp.status_code == 200, resp.text
    available = {a['flavor_id']: (a['total'], a['available'])
                 for a in resp.json()['availability']}
    assert available[entry['id']] == (4, 0), available
    assert available[other['id']] == (4, 0), available
    resp = _book(daemons, other, start, end, 1)
    assert resp.status_code == 409, resp.text
    assert resp.json()['errors'][0]['code'] == 'reserve.no_capacity'
    assert other['name'] in resp.text, resp.text
    assert daemons.request('GET', '/v1/reservations', params={
        'flavor_id': other['id']}, project=PROJECT).json()[
            'reservations'] == []

    # (2) A nova flavor bigger than every host.
    huge = admin_nova.flavors.create('guarantee-huge-%s' % TAG,
                                     ram=5000000, vcpus=1, disk=1,
                                     is_public=True)
    cleanup(huge.delete)
    name = 'guarantee-huge-%s' % TAG
    resp = daemons.admin('POST', '/v1/flavors', json={
        'name': name, 'nova_flavor_id': huge.id, 'slots': 1})
    assert resp.status_code == 409, resp.text
    assert 'fits on no enrolled host' in resp.text, resp.text
    assert daemons.admin('GET', '/v1/flavors/%s' %
                         name).status_code == 404

    # (3) A nova flavor that does not exist.
    missing = 'no-such-flavor-%s' % TAG
    name = 'guarantee-missing-%s' % TAG
    resp = daemons.admin('POST', '/v1/flavors', json={
        'name': name, 'nova_flavor_id': missing, 'slots': 1})
    assert resp.status_code == 400, resp.text
    assert missing in resp.text, resp.text
    assert daemons.admin('GET', '/v1/flavors/%s' %
                         name).status_code == 404


def test_forced_host_maintenance_moves_a_booking(desk, admin_nova, cleanup):
    daemons, entry = desk.daemons, desk.entry
    now = _now()
    start, end = now + datetime.timedelta(seconds=20), \
        now + datetime.timedelta(minutes=10)
    booking = _booked(daemons, cleanup, entry, start, end, 1)
    servers = _servers(cleanup)
    allocations = daemons.admin('GET', '/v1/allocations', params={
        'lease_id': booking['lease_id']}).json()['allocations']
    assert [a['count'] for a in allocations] == [1], allocations
    old = allocations[0]['host']
    new = [h for h in cloud_mod.COMPUTE_HOSTS if h != old][0]
    old_id, new_id = desk.hosts[old]['id'], desk.hosts[new]['id']

    path = '/v1/hosts/%s/maintenance-windows' % old_id
    window = {'start': booking['start'], 'end': booking['end'],
              'note': 'guarantee itest'}
    resp = daemons.admin('POST', path, json=window)
    assert resp.status_code == 409, resp.text
    assert booking['id'] in resp.text, resp.text
    assert daemons.admin('GET', path).json()['maintenance_windows'] == []

    assert _now() < start, 'too slow: the booking has started already'
    resp = daemons.admin('POST', path, json=dict(window, force=True))
    assert resp.status_code == 201, resp.text
    window_id = resp.json()['maintenance_window']['id']
    cleanup(lambda: daemons.admin('DELETE', '%s/%s' % (path, window_id)))
    assert resp.json()['reservations'] == {
        'moved': [{'reservation_id': booking['id'], 'instances': 1,
                   'to_hosts': [new_id]}],
        'cancelled': []}, resp.text
    allocations = daemons.admin('GET', '/v1/allocations', params={
        'lease_id': booking['lease_id']}).json()['allocations']
    assert [(a['host'], a['count']) for a in allocations] == [(new, 1)], \
        allocations
    assert _booking(daemons, booking['id'])['status'] == 'ALLOCATED'

    booking = _wait('ACTIVE', lambda: _status(daemons, booking['id'],
                                              'ACTIVE'), 60)
    assert _lease_hosts(daemons, booking) == {new: 1}
    aggregate = [a for a in admin_nova.aggregates.list()
                 if a.name == booking['compute_flavor']][0]
    assert aggregate.hosts == [new]
    member = cloud_mod.nova_client(PROJECT, 'alice', 'member')
    server_id = _create(member, 'moved', booking['compute_flavor'],
                        servers)
    status, host, fault = _placed(admin_nova, member, server_id)
    assert status == 'ACTIVE', fault
    assert host == new
    assert getattr(admin_nova.servers.get(server_id),
                   'OS-EXT-SRV-ATTR:hypervisor_hostname') == new
