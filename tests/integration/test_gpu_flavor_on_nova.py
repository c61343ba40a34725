"""A GPU flavor booked end to end, its GPUs counted and proven by nova.

The loopback computes run nova's fake driver, which reports no devices:
the test gives each compute one GPU the way nova reports PCI devices in
placement, as inventory of a PCI class on a child provider of the
compute node (nova leaves alone the children it did not create). The
class is the test's own (CUSTOM_PCI_10DE_<random>), so GPUs others gave
the cloud (the quick start's vGPUs) do not count. The nova flavor asks
one, so both hosts together hold two instances however many CPUs they
have:

* the catalogue entry of 4 slots offers 2 (its GPUs cap the calendar),
  and a booking of 3 is refused at once;
* a second entry of the same flavor has a calendar of its own, but host
  selection counts the GPUs the first booking holds and refuses it;
* while the lease is active, two servers of the reserved flavor boot
  with a GPU allocation each, on the GPU providers; a third finds no
  host; after the end the artefacts are gone and the GPUs free.
"""
import datetime
import uuid

from novaclient import exceptions as nova_exc
import pytest

from tests.integration import cloud as cloud_mod
from tests.integration.test_booking_on_nova import _booking
from tests.integration.test_booking_on_nova import _enroll_hosts
from tests.integration.test_booking_on_nova import _iso
from tests.integration.test_booking_on_nova import _placement
from tests.integration.test_booking_on_nova import _server_status
from tests.integration.test_booking_on_nova import _wait
from tests.integration.test_booking_on_nova import admin_nova  # noqa: F401
from tests.integration.test_booking_on_nova import daemons  # noqa: F401

pytestmark = pytest.mark.integration

PROJECT = 'gpu-%s' % uuid.uuid4().hex[:6]
GPU_CLASS = 'CUSTOM_PCI_10DE_%s' % uuid.uuid4().hex[:4].upper()


def _status(daemons, booking_id, wanted):
    booking = _booking(daemons, booking_id, project=PROJECT)
    return booking if booking['status'] == wanted else None


def _active_or_error(daemons, booking_id, wanted):
    booking = _booking(daemons, booking_id, project=PROJECT)
    assert booking['status'] != 'ERROR', booking
    return booking if booking['status'] == wanted else None


@pytest.fixture
def vgpus(openstack_cloud):
    """One GPU_CLASS device on a child provider of each compute node."""
    with cloud_mod.gpu_providers(GPU_CLASS, 1, 'pgpu_0000_3b_00_0_itest') \
            as children:
        yield children


def test_gpu_flavor_booked_and_booted(daemons, admin_nova, vgpus):  # noqa
    source = admin_nova.flavors.create('gpu-itest-%s' % uuid.uuid4().hex[:6],
                                       ram=512, vcpus=1, disk=1)
    try:
        source.set_keys({'resources:%s' % GPU_CLASS: '1'})
        _run(daemons, admin_nova, source, vgpus)
    finally:
        source.delete()


def _run(daemons, admin_nova, source, vgpus):
    hosts = _enroll_hosts(daemons)
    # The hosts' GPUs as placement reported them at enrollment.
    for name in cloud_mod.COMPUTE_HOSTS:
        host = daemons.admin('GET', '/v1/hosts/%s' %
                             hosts[name]['id']).json()['host']
        assert host['gpus'].get(GPU_CLASS) == 1, host
        assert host['gpu_source'] == 'placement'

    entry = daemons.catalogue_flavor(source.id, slots=4,
                                     name='gpu-desk-%s' % source.id)
    assert entry['gpus'] == {GPU_CLASS: 1}
    shown = daemons.admin('GET', '/v1/flavors/%s' % entry['id']).json()
    assert shown['flavor']['gpu_slots'] == 2
    availability = daemons.request('GET', '/v1/flavors/availability',
                                   project=PROJECT).json()['availability']
    assert [(a['slots'], a['total'], a['available']) for a in availability
            if a['flavor_id'] == entry['id']] == [(4, 2, 2)]

    # A long window (servers boot slowly on a busy machine), shortened
    # once they have been seen.
    now = datetime.datetime.utcnow()
    start, end = now + datetime.timedelta(seconds=10), \
        now + datetime.timedelta(minutes=10)
    window = {'start': _iso(start), 'end': _iso(end)}

    # The calendar offers what the GPUs hold: 3 is refused at once.
    resp = daemons.request('POST', '/v1/reservations', project=PROJECT,
                           json=dict(window, flavor_id=entry['name'],
                                     instance_count=3))
    assert resp.status_code == 409, resp.text

    resp = daemons.request('POST', '/v1/reservations', project=PROJECT,
                           json=dict(window, flavor_id=entry['name'],
                                     instance_count=2))
    assert resp.status_code == 201, resp.text
    booking_id = resp.json()['reservation']['id']
    booking = _wait('ALLOCATED', lambda: _active_or_error(
        daemons, booking_id, 'ALLOCATED'), 30)
    rsv_id = booking['compute_flavor']
    lease = daemons.request('GET', '/v1/leases/%s' % booking['lease_id'],
                            project=PROJECT).json()['lease']
    assert sorted((a['host'], a['count']) for a in
                  lease['reservations'][0]['allocations']) == \
        [('host1', 1), ('host2', 1)]

    # Another entry of the same nova flavor: its own slots are free, but
    # the hosts' GPUs of the window are taken (CPUs are plenty): refused
    # at once, never a 201 that fails later.
    other = daemons.catalogue_flavor(source.id, slots=4,
                                     name='gpu-other-%s' % source.id)
    resp = daemons.request('POST', '/v1/reservations', project=PROJECT,
                           json=dict(window, flavor_id=other['name'],
                                     instance_count=1))
    assert resp.status_code == 409, resp.text
    detail = resp.json()['errors'][0]['detail']
    assert 'the enrolled hosts hold 0 more' in detail, detail

    # The reserved flavor keeps the GPU extra spec, so nova attaches it.
    flavor = admin_nova.flavors.get(rsv_id)
    assert flavor.get_keys()['resources:%s' % GPU_CLASS] == '1'

    _wait('ACTIVE', lambda: _active_or_error(daemons, booking_id, 'ACTIVE'),
          40)
    member = cloud_mod.nova_client(PROJECT, 'alice', 'member')
    servers = [member.servers.create('gpu-%d' % i, cloud_mod.IMAGE_ID,
                                     rsv_id, nics='none') for i in range(2)]
    used = set()
    for server in servers:
        _wait('server ACTIVE', lambda: _server_status(member, server.id) ==
              'ACTIVE', 60)
        allocations = _placement('/allocations/%s' % server.id).json()[
            'allocations']
        gpu = [rp for rp, a in allocations.items()
               if a['resources'].get(GPU_CLASS) == 1]
        assert len(gpu) == 1 and gpu[0] in vgpus.values(), allocations
        used.add(gpu[0])
    assert used == set(vgpus.values())
    extra = member.servers.create('gpu-extra', cloud_mod.IMAGE_ID, rsv_id,
                                  nics='none')
    _wait('extra server ERROR', lambda: _server_status(member, extra.id) ==
          'ERROR', 60)
    assert 'No valid host' in member.servers.get(extra.id).fault['message']
    member.servers.delete(extra.id)

    # The end, brought forward: servers gone, flavor gone, the GPUs free.
    soon = datetime.datetime.utcnow() + datetime.timedelta(seconds=5)
    resp = daemons.request('PATCH', '/v1/reservations/%s' % booking_id,
                           project=PROJECT, json={'end': _iso(soon)})
    assert resp.status_code == 200, resp.text
    _wait('COMPLETE', lambda: _active_or_error(daemons, booking_id,
                                               'COMPLETE'), 90)
    assert admin_nova.servers.list(search_opts={
        'flavor': rsv_id, 'all_tenants': 1}) == []
    with pytest.raises(nova_exc.NotFound):
        admin_nova.flavors.get(rsv_id)
    assert rsv_id not in [a.name for a in admin_nova.aggregates.list()]
    rc = 'CUSTOM_RESERVATION_' + rsv_id.upper().replace('-', '_')
    assert _placement('/resource_classes/%s' % rc).status_code == 404
    # nova's computes kept the GPU providers they did not create through
    # their periodic updates (a minute and more), and the GPUs are free.
    for host, child in vgpus.items():
        provider = _placement('/resource_providers/%s' % child)
        assert provider.status_code == 200, provider.text
        assert provider.json()['parent_provider_uuid'] == \
            cloud_mod.provider_uuid(host)
        usages = _placement('/resource_providers/%s/usages' %
                            child).json()['usages']
        assert usages == {GPU_CLASS: 0}
