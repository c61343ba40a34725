"""Spot servers on fenced capacity, proven by nova and placement.

The loopback computes have two vGPUs each, the quick start's (VGPU on a
child provider of the compute node, which stays: tools/cloud/
quickstart_cloud.py); a host lends spot GPUs only when they are all of
one kind, so the test's flavors ask VGPU too. An administrator makes
a spot catalogue entry over a private nova flavor asking one GPU, and a
spot project opts in. Then, with the four daemons as processes:

1. Nothing is booked: spot servers fill the four GPUs; a fifth finds no
   host, and a project that did not opt in cannot boot the flavor.
2. A booking of every GPU starts in 70 s (lead time 40 s, warning 20 s):
   the spot servers are warned, then reclaimed before its start, which
   is not late because of them.
3. The booking is active and its owner has booted nothing: each host
   lends its idle seats less the margin (one), and spot servers take
   them. The owner then boots its four instances one after the other:
   every boot succeeds, and the spot servers are gone.
4. The same four boots with no spot server in the way, for comparison.

The figures (start lateness, owner boot to ACTIVE with and without spot
servers, owner boot to spot server gone) are printed.
"""
import datetime
import statistics
import time
import uuid

from novaclient import exceptions as nova_exc
import pytest

from tests.fixtures import backends
from tests.integration import cloud as cloud_mod
from tests.integration import reserve_daemons
from tools.cloud import quickstart_cloud

pytestmark = pytest.mark.integration

PROJECT = 'owner-%s' % uuid.uuid4().hex[:6]
SPOT_PROJECT = 'spot-%s' % uuid.uuid4().hex[:6]
STRANGER = 'stranger-%s' % uuid.uuid4().hex[:6]
GPU_CLASS = 'VGPU'
SPOT_CLASS = cloud_mod.SPOT_CLASS
VERSION = {'OpenStack-API-Version': 'reserve 1.4'}
LEAD, WARNING = 40, 20

SPOT_CONF = """
[spot]
interval = 1
idle_margin = 1
lead_time = %d
warning_time = %d
""" % (LEAD, WARNING)

_wait = cloud_mod.wait_for


def _iso(dt):
    return dt.replace(microsecond=0).isoformat() + 'Z'


@pytest.fixture
def daemons(openstack_cloud, tmp_path):
    with backends.throwaway_database('postgresql', tmp_path) as url:
        service = reserve_daemons.ReserveDaemons(
            url, openstack_cloud['compute'], openstack_cloud['placement'],
            extra_conf=SPOT_CONF)
        service.start()
        try:
            yield service
        finally:
            service.stop()


@pytest.fixture
def gpus(openstack_cloud):
    """The quick start's two vGPUs on each compute node."""
    return [quickstart_cloud.add_vgpus(h) for h in cloud_mod.COMPUTE_HOSTS]


@pytest.fixture
def flavors(openstack_cloud):
    """The owner's source flavor and the spot flavor (private), each one
    GPU; every server of the test's projects deleted at the end."""
    admin = cloud_mod.nova_client('admin', 'admin', 'admin')
    made = []
    try:
        for name, public in (('source', True), ('spot', False)):
            flavor = admin.flavors.create(
                '%s-itest-%s' % (name, uuid.uuid4().hex[:6]), ram=512,
                vcpus=1, disk=1, is_public=public)
            made.append(flavor)
            flavor.set_keys({'resources:%s' % GPU_CLASS: '1'})
        yield made
    finally:
        servers = [s for s in admin.servers.list(search_opts={
            'all_tenants': 1}) if s.tenant_id in (PROJECT, SPOT_PROJECT,
                                                  STRANGER)]
        for server in servers:
            admin.servers.delete(server.id)
        cloud_mod.wait_for_deleted(admin, [s.id for s in servers])
        for flavor in made:
            flavor.delete()


def _spot_capacity(host):
    """What the spot inventory of ``host``'s child provider lets new spot
    servers take (None: no such inventory)."""
    child = cloud_mod.placement_get('/resource_providers?name=%s%s' % (
        cloud_mod.RESERVATION_CHILD_PREFIX, host))['resource_providers']
    if not child:
        return None
    found = cloud_mod.placement_get('/resource_providers/%s/inventories' %
                                    child[0]['uuid'])['inventories']
    record = found.get(SPOT_CLASS)
    return record and record['total'] - record['reserved']


def _capacities():
    return [_spot_capacity(h) for h in cloud_mod.COMPUTE_HOSTS]


def _usage(provider_name, resource_class):
    found = cloud_mod.placement_get('/resource_providers?name=%s' %
                                    provider_name)['resource_providers']
    if not found:
        return 0
    return cloud_mod.placement_get('/resource_providers/%s/usages' % found[
        0]['uuid'])['usages'].get(resource_class, 0)


def _margin_kept(gpus):
    """Every host has a GPU free for its owner's next boot, or no spot
    server left to reclaim: what the spot task restores after a boot."""
    for host, pgpu in zip(cloud_mod.COMPUTE_HOSTS, gpus):
        free = quickstart_cloud.VGPUS_PER_HOST - _usage(pgpu, GPU_CLASS)
        if free < 1 and _usage(cloud_mod.RESERVATION_CHILD_PREFIX + host,
                               SPOT_CLASS):
            return False
    return True


def _boot(client, flavor_id, name):
    return client.servers.create(name, cloud_mod.IMAGE_ID, flavor_id,
                                 nics='none')


def _boot_active(client, flavor_id, name):
    """A server booted and waited for; (server, seconds to ACTIVE).
    Fails when it ends in ERROR."""
    began = time.monotonic()
    server = _boot(client, flavor_id, name)
    found = cloud_mod.wait_for_server(client, server.id, timeout=90)
    assert found.status == 'ACTIVE', (name, getattr(found, 'fault', None))
    return found, time.monotonic() - began


def _gone(client, server_ids):
    left = set()
    for server_id in server_ids:
        try:
            client.servers.get(server_id)
        except nova_exc.NotFound:
            continue
        left.add(server_id)
    return left


def _booking(daemons, booking_id):
    resp = daemons.request('GET', '/v1/reservations/%s' % booking_id,
                           project=PROJECT)
    assert resp.status_code == 200, resp.text
    booking = resp.json()['reservation']
    assert booking['status'] != 'ERROR', booking
    return booking


def test_spot_servers_use_idle_capacity_and_yield_to_owners(
        daemons, gpus, flavors):
    source, spot_flavor = flavors
    daemons.enroll_computes()
    admin_nova = cloud_mod.nova_client('admin', 'admin', 'admin')
    spot_nova = cloud_mod.nova_client(SPOT_PROJECT, 'sam', 'member')
    owner_nova = cloud_mod.nova_client(PROJECT, 'alice', 'member')
    entry = daemons.catalogue_flavor(source.id, slots=4,
                                     name='owner-%s' % source.id)
    resp = daemons.admin('POST', '/v1/flavors', headers=VERSION, json={
        'name': 'spot-%s' % spot_flavor.id, 'nova_flavor_id': spot_flavor.id,
        'slots': 0, 'spot': True})
    assert resp.status_code == 201, resp.text
    spot_entry = resp.json()['flavor']
    try:
        _run(daemons, admin_nova, spot_nova, owner_nova, entry, spot_entry,
             spot_flavor, gpus)
    finally:
        # No spot flavor left: the task takes its inventory away.
        daemons.admin('DELETE', '/v1/flavors/%s' % spot_entry['id'])


def _run(daemons, admin_nova, spot_nova, owner_nova, entry, spot_entry,
         spot_flavor, gpus):
    figures = {}
    resp = daemons.request('POST', '/v1/flavors/%s/opt-in' %
                           spot_entry['id'], project=SPOT_PROJECT,
                           headers=VERSION)
    assert resp.status_code == 204, resp.text

    # 1. Nothing booked: every GPU is lent, to the spot project only.
    _wait('spot access given', lambda: SPOT_PROJECT in {
        a.tenant_id for a in admin_nova.flavor_access.list(
            flavor=spot_flavor.id)}, 30)
    _wait('every GPU lent', lambda: _capacities() == [2, 2], 30)
    keys = admin_nova.flavors.get(spot_flavor.id).get_keys()
    assert keys['resources:%s' % SPOT_CLASS] == '1', keys
    with pytest.raises(nova_exc.ClientException):
        _boot(cloud_mod.nova_client(STRANGER, 'eve', 'member'),
              spot_flavor.id, 'stranger')
    spot = [_boot(spot_nova, spot_flavor.id, 'spot-%d' % i)
            for i in range(4)]
    for server in spot:
        assert cloud_mod.wait_for_server(
            spot_nova, server.id, timeout=90).status == 'ACTIVE'
    extra = _boot(spot_nova, spot_flavor.id, 'spot-extra')
    found = cloud_mod.wait_for_server(spot_nova, extra.id, timeout=90)
    assert found.status == 'ERROR'
    assert 'No valid host' in found.fault['message']
    spot_nova.servers.delete(extra.id)

    # 2. A booking of every GPU: the spot servers go before its start.
    start = datetime.datetime.utcnow() + datetime.timedelta(
        seconds=LEAD + WARNING + 10)
    resp = daemons.request('POST', '/v1/reservations', project=PROJECT,
                           json={'flavor_id': entry['name'],
                                 'instance_count': 4, 'start': _iso(start),
                                 'end': _iso(start + datetime.timedelta(
                                     minutes=15))})
    assert resp.status_code == 201, resp.text
    booking_id = resp.json()['reservation']['id']
    start = datetime.datetime.fromisoformat(
        resp.json()['reservation']['start'].rstrip('Z'))
    ids = [s.id for s in spot]
    _wait('spot servers reclaimed', lambda: not _gone(admin_nova, ids),
          LEAD + WARNING + 60)
    gone_at = datetime.datetime.utcnow()
    assert gone_at < start, (gone_at, start)
    booking = _wait('booking ACTIVE', lambda: (
        lambda b: b if b['status'] == 'ACTIVE' else None)(
            _booking(daemons, booking_id)), 120)
    active_at = datetime.datetime.utcnow()
    figures['spot gone before start (s)'] = (start - gone_at).total_seconds()
    figures['start lateness, polled (s)'] = (active_at -
                                             start).total_seconds()
    manager_log = daemons.logs('manager')
    assert manager_log.count('will be reclaimed by') >= 4, \
        'no warning before the reclaim'
    rsv_id = booking['compute_flavor']

    # 3. Active, nothing booted: each host lends 2 seats less the margin.
    _wait('idle seats lent', lambda: _capacities() == [1, 1], 30)
    spot = [_boot_active(spot_nova, spot_flavor.id, 'idle-%d' % i)[0]
            for i in range(2)]
    # The promise (doc/source/admin, [spot]idle_margin): idle_margin
    # boots on each host land at once, and the next run of the task
    # reclaims to restore the margin. So each boot here waits for the
    # margin to be back; a burst beyond it may meet "No valid host".
    asked = time.monotonic()
    boots, restores = [], []
    for i in range(4):
        boots.append(_boot_active(owner_nova, rsv_id, 'owner-%d' % i))
        landed = time.monotonic()
        _wait('margin restored', lambda: _margin_kept(gpus), 30)
        restores.append(time.monotonic() - landed)
    ids = [s.id for s in spot]
    _wait('spot servers gone', lambda: not _gone(admin_nova, ids), 60)
    figures['owner boots to spot servers gone (s)'] = \
        time.monotonic() - asked
    figures['owner boot to margin restored: max (s)'] = max(restores)
    with_spot = [seconds for _, seconds in boots]

    # 4. The same boots, no spot server in the way.
    for server, _ in boots:
        owner_nova.servers.delete(server.id)
    cloud_mod.wait_for_deleted(owner_nova, [s.id for s, _ in boots])
    resp = daemons.request('DELETE', '/v1/flavors/%s/opt-in' %
                           spot_entry['id'], project=SPOT_PROJECT,
                           headers=VERSION)
    assert resp.status_code == 204, resp.text
    without = [_boot_active(owner_nova, rsv_id, 'again-%d' % i)[1]
               for i in range(4)]

    for name, values in (('with spot servers', with_spot),
                         ('without spot servers', without)):
        figures['owner boot to ACTIVE %s: p50 / max (s)' % name] = \
            '%.1f / %.1f' % (statistics.median(values), max(values))
    print('\nspot on the loopback cloud:')
    for name, value in figures.items():
        print('  %-55s %s' % (name, value if isinstance(value, str)
                              else '%.1f' % value))

    # The end: the owner's servers and the booking's objects go.
    soon = datetime.datetime.utcnow() + datetime.timedelta(seconds=5)
    resp = daemons.request('PATCH', '/v1/reservations/%s' % booking_id,
                           project=PROJECT, json={'end': _iso(soon)})
    assert resp.status_code == 200, resp.text
    _wait('COMPLETE', lambda: _booking(daemons, booking_id)['status'] ==
          'COMPLETE', 90)
