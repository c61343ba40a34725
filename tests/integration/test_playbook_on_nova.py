"""The operators' playbook, proven on the loopback cloud: each symptom
and each kind of drift is made by hand, with the standard nova and
placement APIs, rabbitmqctl, SQL or a fake nova-compute frozen; the
diagnosis (and the doctor) names it, and reserve repairs or heals it
within two intervals of its periodic tasks (playbook.INTERVAL).

The four daemons run as processes over RabbitMQ on MariaDB, with host1
and host2 enrolled (so fenced). Each test cancels what it booked and
deletes its servers, failure or not; the module's flavors go at the end.
The times measured are printed (pytest -s shows them).
"""
import subprocess
import time
import uuid

import pytest
import sqlalchemy as sa

from tests.fixtures import backends
from tests.integration import cloud as cloud_mod
from tests.integration import playbook
from tests.integration import reserve_daemons
from tools.cloud import quickstart_cloud

pytestmark = pytest.mark.integration

TAG = uuid.uuid4().hex[:6]
PROJECT = 'playbook-%s' % TAG
OTHER = 'playbook-other-%s' % TAG
TWO = 2 * playbook.INTERVAL + playbook.SLACK


@pytest.fixture(scope='module')
def admin_nova(openstack_cloud):
    return cloud_mod.nova_client('admin', 'admin', 'admin')


@pytest.fixture(scope='module')
def small_flavor(admin_nova):
    """A public flavor of 1 vCPU: many instances on a host."""
    flavor = admin_nova.flavors.create('playbook-%s' % TAG, ram=128,
                                       vcpus=1, disk=1)
    yield flavor
    flavor.delete()


@pytest.fixture(scope='module')
def gpu_flavor(openstack_cloud, admin_nova):
    """The quick start's vGPUs (two on each host) and its public
    g1.vgpu (one vGPU)."""
    with quickstart_cloud.gpu_flavor(admin_nova) as flavor:
        yield flavor


@pytest.fixture(scope='module')
def daemons(openstack_cloud, gpu_flavor, tmp_path_factory):
    """The daemons, host1 and host2 enrolled once their vGPUs are
    there (gpu_flavor)."""
    tmp_path = tmp_path_factory.mktemp('playbook')
    with backends.throwaway_database('mysql', tmp_path) as url:
        service = reserve_daemons.ReserveDaemons(
            url, openstack_cloud['compute'], openstack_cloud['placement'],
            reconcile_interval=playbook.INTERVAL, pending_create_timeout=6,
            extra_conf=playbook.EXTRA_CONF)
        try:
            service.start()
            service.enroll_computes()
            yield service
        finally:
            service.stop()


@pytest.fixture
def engine(daemons):
    engine = sa.create_engine(daemons.db_url)
    yield engine
    engine.dispose()


@pytest.fixture
def book(daemons, cleanup):
    """book(flavor, count, start_in, length) → the booking's id; each
    booking is cancelled (and its lease torn down) after the test."""
    made = []

    def cancel_all():
        for booking_id in made:
            resp = daemons.request('DELETE', '/v1/reservations/%s' %
                                   booking_id, project=PROJECT)
            assert resp.status_code in (204, 404, 409), resp.text
        for booking_id in made:
            cloud_mod.wait_for('the lease of %s torn down' % booking_id,
                               lambda: _torn_down(daemons, booking_id), 120)

    cleanup(cancel_all)

    def book_one(flavor, count=1, start_in=4, length=900):
        entry = daemons.catalogue_flavor(flavor.id, slots=8,
                                         name='playbook-%s-%s' % (
                                             flavor.name, TAG))
        resp = daemons.request('POST', '/v1/reservations', project=PROJECT,
                               json={'flavor_id': entry['id'],
                                     'instance_count': count,
                                     'start': playbook.iso(start_in),
                                     'end': playbook.iso(start_in +
                                                         length)})
        assert resp.status_code == 201, resp.text
        made.append(resp.json()['reservation']['id'])
        return made[-1]
    return book_one


def _torn_down(daemons, booking_id):
    resp = daemons.request('GET', '/v1/reservations/%s' % booking_id,
                           project=PROJECT)
    if resp.status_code == 404:
        return True
    lease_id = resp.json()['reservation']['lease_id']
    if lease_id is None:
        return True
    lease = daemons.admin('GET', '/v1/leases/%s' % lease_id)
    return lease.status_code == 404 or \
        lease.json()['lease']['status'] == 'TERMINATED'


def _status_is(daemons, booking_id, status):
    found = playbook.booking(daemons, booking_id, PROJECT)
    return found if found['status'] == status else None


def _active(daemons, booking_id, timeout=60):
    return cloud_mod.wait_for('%s ACTIVE' % booking_id, lambda: _status_is(
        daemons, booking_id, 'ACTIVE'), timeout)


def _named_then_whole(daemons, booking_id, symptom, layer, make, what,
                      timeout=TWO):
    """Make a drift by hand, see the diagnosis name it, then see it gone
    (repaired) within ``timeout`` of its making; returns the seconds the
    repair took. Made right after a run of the repair task (the previous
    repair), the drift is named before the next run puts it right."""
    make()
    made_at = time.monotonic()
    found = playbook.named(daemons, booking_id, PROJECT, symptom, layer)
    assert found is not None, (what, playbook.diagnosis(
        daemons, booking_id, PROJECT))
    assert found['repair'] == 'reserve', found
    cloud_mod.wait_for('%s repaired' % what, lambda: playbook.whole(
        daemons, booking_id, PROJECT), timeout, interval=0.1)
    took = time.monotonic() - made_at
    print('%-40s named: %s; repaired in %4.1f s' % (
        what, found['problem'], took))
    return took


# drift made by hand ---------------------------------------------------------

def test_each_drift_is_named_and_repaired(daemons, book, small_flavor,
                                          admin_nova):
    booking_id = book(small_flavor, count=2)
    found = _active(daemons, booking_id)
    rsv_id = found['reserved_flavor_id']
    rc = 'CUSTOM_RESERVATION_' + rsv_id.upper().replace('-', '_')
    cloud_mod.wait_for('whole', lambda: playbook.whole(
        daemons, booking_id, PROJECT), TWO)
    # In step with the repair task: one repair seen (the next drift is
    # made just after a run).
    admin_nova.flavor_access.remove_tenant_access(rsv_id, PROJECT)
    cloud_mod.wait_for('first repair', lambda: playbook.whole(
        daemons, booking_id, PROJECT), TWO, interval=0.1)

    def aggregate():
        return [a for a in admin_nova.aggregates.list()
                if a.name == rsv_id][0]

    def reserved_host():
        return aggregate().hosts[0]

    def inventory_url():
        child = playbook.child_provider(reserved_host())
        return '/resource_providers/%s/inventories/%s' % (child['uuid'], rc)

    def change_total():
        url = inventory_url()
        current = cloud_mod.placement_request('GET', url).json()
        current['total'] = current['total'] + 3
        resp = cloud_mod.placement_request('PUT', url, current)
        assert resp.status_code == 200, resp.text

    drifts = [
        ('flavor access removed', 'flavor',
         lambda: admin_nova.flavor_access.remove_tenant_access(
             rsv_id, PROJECT)),
        ('extra spec changed', 'flavor',
         lambda: admin_nova.flavors.get(rsv_id).set_keys(
             {'aggregate_instance_extra_specs:reservation': 'nobody'})),
        ('extra spec added', 'flavor',
         lambda: admin_nova.flavors.get(rsv_id).set_keys(
             {'hw:cpu_policy': 'dedicated'})),
        ('aggregate metadata deleted', 'aggregate',
         lambda: admin_nova.aggregates.set_metadata(
             aggregate(), {'filter_tenant_id': None})),
        ('host removed from the aggregate', 'aggregate',
         lambda: admin_nova.aggregates.remove_host(aggregate(),
                                                   reserved_host())),
        ('inventory deleted', 'providers',
         lambda: cloud_mod.placement_request('DELETE', inventory_url())),
        ('inventory total changed', 'providers', change_total),
    ]
    times = {}
    for what, layer, make in drifts:
        times[what] = _named_then_whole(daemons, booking_id, 'drift', layer,
                                        make, what)

    def delete_aggregate():
        agg = aggregate()
        for host in agg.hosts:
            admin_nova.aggregates.remove_host(agg, host)
        admin_nova.aggregates.delete(agg)
    times['aggregate deleted'] = _named_then_whole(
        daemons, booking_id, 'drift', 'aggregate', delete_aggregate,
        'aggregate deleted')
    delivery = playbook.booking(daemons, booking_id, PROJECT)['delivery']
    assert delivery['repairs'] >= len(times) + 1, delivery
    assert max(times.values()) <= TWO, times
    # What the repair put back works: the project boots on it.
    nova = cloud_mod.nova_client(PROJECT)
    server = nova.servers.create('playbook-%s' % TAG, cloud_mod.IMAGE_ID,
                                 rsv_id, nics='none')
    try:
        assert cloud_mod.wait_for_server(nova, server.id).status == 'ACTIVE'
    finally:
        server.delete()
        cloud_mod.wait_for_deleted(nova, [server.id])


def test_a_foreign_server_on_a_reserved_host_is_reported(
        daemons, book, small_flavor, admin_nova, cleanup):
    """Another project's flavor that asks for the fence's trait passes
    the fence: its server lands on a reserved host. reserve cannot take
    it away; diagnosis and doctor name it for the operator."""
    booking_id = book(small_flavor, count=1)
    _active(daemons, booking_id)
    sneaky = admin_nova.flavors.create('playbook-sneaky-%s' % TAG, ram=128,
                                       vcpus=1, disk=1)
    cleanup(sneaky.delete)
    sneaky.set_keys({'trait:CUSTOM_RESERVE_FENCED': 'required'})
    host = _hosts_of(admin_nova, _status_is(
        daemons, booking_id, 'ACTIVE')['reserved_flavor_id'])[0]
    # An administrator of the other project puts it there.
    other = cloud_mod.nova_client(OTHER, roles='admin')
    server = other.servers.create('foreign-%s' % TAG, cloud_mod.IMAGE_ID,
                                  sneaky.id, nics='none',
                                  availability_zone='nova:%s' % host)

    def delete_server():
        server.delete()
        cloud_mod.wait_for_deleted(other, [server.id])
    cleanup(delete_server)
    assert cloud_mod.wait_for_server(other, server.id).status == 'ACTIVE'
    found = cloud_mod.wait_for('foreign server named', lambda: playbook.named(
        daemons, booking_id, PROJECT, 'foreign_server'), TWO)
    playbook.transcript('foreign server', found)
    assert found['repair'] == 'operator'
    assert server.id in found['problem'] or host in found['problem'], found
    listed = playbook.doctor(daemons)
    assert booking_id in [d['reservation_id']
                          for d in listed['reservations']]
    print('foreign server %s named: %s' % (server.id, found['problem']))


# the six symptoms -----------------------------------------------------------

def test_a_cast_never_consumed_is_named_then_recast(daemons, book,
                                                    small_flavor):
    daemons.kill_daemon('worker')
    try:
        booking_id = book(small_flavor, start_in=600)
        subprocess.run(['rabbitmqctl', '-q', 'purge_queue', '-p',
                        daemons.vhost, 'reserve-worker'], check=True,
                       capture_output=True)
        found, took = playbook.timed('cast named', lambda: playbook.named(
            daemons, booking_id, PROJECT, 'cast_not_consumed'), 20)
        assert found['layer'] == 'booking', found
        playbook.transcript('cast never consumed', found)
    finally:
        daemons.start_daemon('worker')
    _, took = playbook.timed('ALLOCATED', lambda: _status_is(
        daemons, booking_id, 'ALLOCATED'), TWO + 6)
    print('lost cast: recast and ALLOCATED %.1f s after the worker came '
          'back' % took)
    assert playbook.whole(daemons, booking_id, PROJECT)


def test_events_overdue_are_named_then_run(daemons, book, small_flavor):
    booking_id = book(small_flavor, start_in=6)
    cloud_mod.wait_for('ALLOCATED', lambda: _status_is(
        daemons, booking_id, 'ALLOCATED'), 60)
    daemons.kill_daemon('manager')
    try:
        time.sleep(8)   # the start passes while no manager runs
        # The API answers the diagnosis without the manager: the layers
        # of the database, the cloud's marked as not read.
        resp = daemons.request(
            'GET', '/v1/reservations/%s/diagnosis' % booking_id,
            project=PROJECT, headers=playbook.V13)
        assert resp.status_code == 503, resp.text
        assert 'reserve-manager' in resp.json()['errors'][0]['detail']
        print('events overdue, no manager: %d %s' % (
            resp.status_code, resp.json()['errors'][0]['detail']))
    finally:
        daemons.start_daemon('manager')
    _, took = playbook.timed('ACTIVE', lambda: _status_is(
        daemons, booking_id, 'ACTIVE'), 40)
    print('overdue start run %.1f s after the manager came back' % took)


def test_a_failing_start_carries_its_reason(daemons, book, small_flavor):
    """The manager cannot reach nova (a wrong endpoint, as a broken
    keystone catalogue would give): the start fails, the lease and its
    event say why, the diagnosis names it and says what to check."""
    booking_id = book(small_flavor, start_in=8)
    cloud_mod.wait_for('ALLOCATED', lambda: _status_is(
        daemons, booking_id, 'ALLOCATED'), 60)
    broken = daemons.second_conf('broken-nova')
    with open(broken, 'a') as f:
        f.write('\n[nova]\nendpoint = http://127.0.0.1:9/v2.1\n')
    daemons.kill_daemon('manager')
    daemons.start_daemon('manager-broken-nova')
    try:
        found, took = playbook.timed('start failure named', lambda: (
            playbook.named(daemons, booking_id, PROJECT, 'status_reason') or
            playbook.named(daemons, booking_id, PROJECT, 'events_overdue')),
            60)
        assert found['layer'] in ('booking', 'lease', 'events'), found
        playbook.transcript('start failing', found)
        layers = {layer['layer']: layer for layer in playbook.diagnosis(
            daemons, booking_id, PROJECT)['layers']}
        assert 'start_lease failed' in str(layers['lease']['found'])
    finally:
        daemons.kill_daemon('manager-broken-nova')
        daemons.start_daemon('manager')
    _, took = playbook.timed('ACTIVE once nova answers', lambda: _status_is(
        daemons, booking_id, 'ACTIVE'), 90)
    print('failed start retried and ACTIVE %.1f s after nova came back' %
          took)


def test_a_booking_behind_its_lease_is_moved_on(daemons, book,
                                                small_flavor, engine):
    booking_id = book(small_flavor)
    _active(daemons, booking_id)
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE bookings SET status = 'ALLOCATED' "
                             "WHERE id = :id"), {'id': booking_id})
    found = playbook.named(daemons, booking_id, PROJECT,
                           'status_not_followed')
    assert found is not None, playbook.diagnosis(daemons, booking_id,
                                                 PROJECT)
    playbook.transcript('booking behind its lease', found)
    _, took = playbook.timed('moved on', lambda: _status_is(
        daemons, booking_id, 'ACTIVE'), TWO)
    print('booking behind its lease moved on in %.1f s' % took)


def test_a_lease_nobody_owns_is_listed_and_torn_down(
        daemons, book, small_flavor, engine, admin_nova):
    """The booking row is gone (as when a worker died before its commit):
    the doctor lists the lease, the reconciler tears it down."""
    booking_id = book(small_flavor)
    found = _active(daemons, booking_id)
    lease_id, rsv_id = found['lease_id'], found['reserved_flavor_id']
    with engine.begin() as conn:
        conn.execute(sa.text('DELETE FROM bookings WHERE id = :id'),
                     {'id': booking_id})
    listed = playbook.doctor(daemons)
    unknown = [d for d in listed['reservations']
               if d['mismatch']['symptom'] == 'unknown_lease']
    assert lease_id in str(unknown), listed
    playbook.transcript('lease nobody owns (doctor)', [
        d['mismatch'] for d in unknown if lease_id in str(d)][0])
    _, took = playbook.timed('lease torn down', lambda: daemons.admin(
        'GET', '/v1/leases/%s' % lease_id).status_code == 404, 60)
    assert rsv_id not in [f.id for f in admin_nova.flavors.list(
        is_public=None)]
    print('lease nobody owns torn down in %.1f s' % took)


def test_leftovers_of_an_ended_reservation_are_swept(daemons, admin_nova):
    """A reservation's flavor, aggregate and resource class left in the
    cloud with no lease behind them: the doctor lists them, the sweep
    takes them away."""
    ghost = str(uuid.uuid4())
    rc = 'CUSTOM_RESERVATION_' + ghost.upper().replace('-', '_')
    admin_nova.flavors.create('reservation:%s' % ghost, ram=128, vcpus=1,
                              disk=1, flavorid=ghost, is_public=False)
    aggregate = admin_nova.aggregates.create(ghost, None)
    admin_nova.aggregates.set_metadata(aggregate, {'reservation': ghost})
    assert cloud_mod.placement_request(
        'PUT', '/resource_classes/%s' % rc).status_code in (201, 204)
    try:
        listed = playbook.doctor(daemons)
        assert ghost in str(listed), listed
        playbook.transcript('leftovers (doctor)', [
            d['mismatch'] for d in listed['reservations']
            if d['reservation_id'] == ghost][0])
        _, took = playbook.timed('leftovers swept', lambda: not [
            line for line in cloud_mod.leftovers() if ghost in line or
            rc in line], TWO)
        print('leftovers of an ended reservation swept in %.1f s' % took)
    finally:
        cloud_mod.remove_reservation_artefacts(ghost)


def test_a_server_nova_cannot_delete_does_not_stop_the_teardown(
        daemons, book, small_flavor, admin_nova):
    """The server's compute is frozen when the booking ends: nova takes
    the delete and never finishes it. The teardown goes on (the lease
    TERMINATED, not ERROR), the server is named, and once nova-compute
    runs again the deletion goes through and the rest is swept."""
    booking_id = book(small_flavor, start_in=4, length=40)
    found = _active(daemons, booking_id)
    rsv_id = found['reserved_flavor_id']
    nova = cloud_mod.nova_client(PROJECT)
    server = nova.servers.create('stuck-%s' % TAG, cloud_mod.IMAGE_ID,
                                 rsv_id, nics='none')
    server = cloud_mod.wait_for_server(nova, server.id)
    assert server.status == 'ACTIVE'
    host = getattr(admin_nova.servers.get(server.id),
                   'OS-EXT-SRV-ATTR:host')
    with playbook.frozen_compute(host):
        stuck = cloud_mod.wait_for('server stuck at the end', lambda: (
            playbook.booking(daemons, booking_id, PROJECT)['delivery'][
                'stuck_servers']), 90)
        assert stuck == [server.id]
        lease = daemons.admin('GET', '/v1/leases/%s' %
                              found['lease_id']).json()['lease']
        assert lease['status'] == 'TERMINATED', lease
        found = playbook.named(daemons, booking_id, PROJECT, 'leftovers')
        assert found is not None, found
        # The server is named among the leftovers (its layer).
        servers = [layer for layer in playbook.diagnosis(
            daemons, booking_id, PROJECT)['layers']
            if layer['layer'] == 'servers'][0]
        assert server.id in str(servers['problems']), servers
        playbook.transcript('stuck server', found)
    thawed = time.monotonic()
    cloud_mod.wait_for_deleted(admin_nova, [server.id], 120)
    cloud_mod.wait_for('the rest swept', lambda: not playbook.booking(
        daemons, booking_id, PROJECT)['delivery']['stuck_servers'] and
        rsv_id not in [f.id for f in admin_nova.flavors.list(
            is_public=None)], 60)
    print('stuck server deleted and its leftovers swept %.1f s after '
          'nova-compute ran again' % (time.monotonic() - thawed))


# failed hosts ---------------------------------------------------------------

def _host(daemons, name):
    return playbook.get(daemons, '/v1/hosts/%s' % name, None,
                        admin=True)['host']


def _allocated_hosts(daemons, lease_id):
    return sorted(a['host'] for a in playbook.get(
        daemons, '/v1/allocations?lease_id=%s' % lease_id, None,
        admin=True)['allocations'])


def _hosts_of(admin_nova, rsv_id):
    return sorted([a for a in admin_nova.aggregates.list()
                   if a.name == rsv_id][0].hosts)


def _booked_hosts(daemons, booking_id):
    return _allocated_hosts(daemons, playbook.booking(
        daemons, booking_id, PROJECT)['lease_id'])


def test_a_disabled_host_is_replaced_under_a_running_booking(
        daemons, book, gpu_flavor, admin_nova):
    """One vGPU booked and running; its host's compute service disabled
    by hand. The diagnosis names the host at once; two health checks
    later the host is failed and the booking runs on the other host (its
    aggregate and inventory follow), whole, its delivery counting the
    host replaced. Enabled again, the host is reservable again."""
    booking_id = book(gpu_flavor, count=1)
    found = _active(daemons, booking_id)
    victim, = _booked_hosts(daemons, booking_id)
    other = [h for h in cloud_mod.COMPUTE_HOSTS if h != victim][0]
    playbook.set_compute_enabled(victim, False)
    try:
        named = playbook.named(daemons, booking_id, PROJECT, 'host_failed')
        assert named is not None and victim in named['problem'], named
        assert named['repair'] == 'reserve'
        playbook.transcript('host disabled', named)
        disabled_at = time.monotonic()
        cloud_mod.wait_for('moved', lambda: _booked_hosts(
            daemons, booking_id) == [other], TWO + playbook.INTERVAL)
        moved = time.monotonic() - disabled_at
        assert _host(daemons, victim)['failure']
        cloud_mod.wait_for('its objects follow', lambda: _hosts_of(
            admin_nova, found['reserved_flavor_id']) == [other] and
            playbook.whole(daemons, booking_id, PROJECT), TWO)
        delivery = playbook.booking(daemons, booking_id, PROJECT)['delivery']
        assert delivery['hosts_replaced'] == 1, delivery
        assert playbook.booking(daemons, booking_id,
                                PROJECT)['missing_capacity'] == []
        print('%s disabled: named at once, booking moved to %s in %.1f s' %
              (victim, other, moved))
    finally:
        playbook.set_compute_enabled(victim, True)
    _, took = playbook.timed('host back', lambda: not _host(
        daemons, victim)['failure'], TWO)
    print('%s enabled again: reservable in %.1f s' % (victim, took))


def test_a_booking_that_cannot_be_made_whole_is_flagged_until_its_host_is_back(
        daemons, book, gpu_flavor):
    """Every vGPU booked (two on each host); one host disabled: nothing
    has room, so nothing is cancelled: the booking carries the missing
    capacity (host, instances, since, reason) until the host is enabled
    again, and its delivery counts the instance-minutes it lacked."""
    booking_id = book(gpu_flavor, count=4)
    _active(daemons, booking_id)
    victim = cloud_mod.COMPUTE_HOSTS[0]
    playbook.set_compute_enabled(victim, False)
    try:
        missing, took = playbook.timed('flagged', lambda: playbook.booking(
            daemons, booking_id, PROJECT)['missing_capacity'],
            TWO + playbook.INTERVAL)
        assert [(m['host'], m['instances']) for m in missing] == [
            (victim, 2)], missing
        assert 'disabled' in missing[0]['reason']
        assert playbook.booking(daemons, booking_id,
                                PROJECT)['status'] == 'ACTIVE'
        print('%s disabled under a full booking: flagged in %.1f s' % (
            victim, took))
    finally:
        playbook.set_compute_enabled(victim, True)
    _, took = playbook.timed('flag cleared', lambda: not playbook.booking(
        daemons, booking_id, PROJECT)['missing_capacity'], TWO)
    delivery = playbook.booking(daemons, booking_id, PROJECT)['delivery']
    assert delivery['missing_instances'] == 0
    assert delivery['missing_instance_minutes'] > 0, delivery
    print('flag cleared %.1f s after the host was enabled; %.1f '
          'instance-minutes missing' % (took,
                                        delivery['missing_instance_minutes']))


def test_a_host_that_goes_down_before_the_start_is_replaced(
        daemons, book, gpu_flavor, admin_nova):
    """A booking of one vGPU starts in 10 minutes, inside the pre-start
    lead time; its host's nova-compute stops (frozen: nova sees its
    service down after service_down_time). The booking moves to the
    other host before it starts, its delivery counting the host
    replaced."""
    booking_id = book(gpu_flavor, count=1, start_in=600)
    cloud_mod.wait_for('ALLOCATED', lambda: _status_is(
        daemons, booking_id, 'ALLOCATED'), 60)
    lease_id = playbook.booking(daemons, booking_id, PROJECT)['lease_id']
    victim, = _allocated_hosts(daemons, lease_id)
    other = [h for h in cloud_mod.COMPUTE_HOSTS if h != victim][0]
    with playbook.frozen_compute(victim):
        _, took = playbook.timed('%s failed' % victim, lambda: _host(
            daemons, victim)['failure'], 120)
        print('%s down: seen failed %.1f s after nova-compute stopped' % (
            victim, took))
        cloud_mod.wait_for('moved', lambda: _allocated_hosts(
            daemons, lease_id) == [other], TWO)
        # The host replaced is counted in the move's transaction.
        assert playbook.booking(daemons, booking_id, PROJECT)['delivery'][
            'hosts_replaced'] == 1
    assert _allocated_hosts(daemons, lease_id) == [other]
    cloud_mod.wait_for('host back', lambda: not _host(
        daemons, victim)['failure'], 120)
