"""A shared booking, proven by nova: a project it is shared with boots
its reserved flavor on its hosts while it runs, a project it is not
shared with cannot, and once the share is taken back the project boots
no new server of it (the one it has keeps running).

Real placement and nova (tools/cloud/), the four reserve daemons over
RabbitMQ on MariaDB and on PostgreSQL: the fixtures and helpers of
test_guarantee_on_nova.py (host1 and host2 enrolled, a catalogue entry
of 4 slots on the quick start's g1.vgpu).
"""
import datetime
import uuid

from novaclient import exceptions as nova_exc
import pytest

from tests.integration import cloud as cloud_mod
from tests.integration.test_guarantee_on_nova import _cancel
from tests.integration.test_guarantee_on_nova import _create
from tests.integration.test_guarantee_on_nova import _iso
from tests.integration.test_guarantee_on_nova import _lease_hosts
from tests.integration.test_guarantee_on_nova import _now
from tests.integration.test_guarantee_on_nova import _placed
from tests.integration.test_guarantee_on_nova import _servers
from tests.integration.test_guarantee_on_nova import _status
from tests.integration.test_guarantee_on_nova import _wait
from tests.integration.test_guarantee_on_nova import admin_nova  # noqa
from tests.integration.test_guarantee_on_nova import desk  # noqa: F401
from tests.integration.test_guarantee_on_nova import gpu_flavor  # noqa
from tests.integration.test_guarantee_on_nova import PROJECT

pytestmark = pytest.mark.integration

V19 = {'OpenStack-API-Version': 'reserve 1.9'}


def _booked_shared(daemons, cleanup, entry, shared):
    """A booking of 2 for ten minutes from now, shared with ``shared``
    at its creation, cancelled at the end of the test; once ACTIVE."""
    now = _now()
    resp = daemons.request('POST', '/v1/reservations', project=PROJECT,
                           headers=V19, json={
                               'flavor_id': entry['name'],
                               'start': _iso(now + datetime.timedelta(
                                   seconds=8)),
                               'end': _iso(now + datetime.timedelta(
                                   minutes=10)),
                               'instance_count': 2,
                               'shared_project_ids': [shared]})
    assert resp.status_code == 201, resp.text
    booking_id = resp.json()['reservation']['id']
    cleanup(lambda: _cancel(daemons, booking_id))
    return _wait('ACTIVE', lambda: _status(daemons, booking_id, 'ACTIVE'),
                 60)


def _access(admin, rsv_id):
    return {a.tenant_id for a in admin.flavor_access.list(flavor=rsv_id)}


def _tenant_keys(admin, rsv_id):
    [aggregate] = [a for a in admin.aggregates.list() if a.name == rsv_id]
    return {k: v for k, v in aggregate.metadata.items()
            if k.startswith('filter_tenant_id')}


def test_a_shared_project_boots_the_reserved_flavor(  # noqa: F811
        desk, admin_nova, cleanup):  # noqa: F811
    daemons, entry = desk.daemons, desk.entry
    shared, stranger = uuid.uuid4().hex, uuid.uuid4().hex
    booking = _booked_shared(daemons, cleanup, entry, shared)
    servers = _servers(cleanup)  # deleted before the booking is cancelled
    rsv_id = booking['compute_flavor']
    reserved_hosts = _lease_hosts(daemons, booking)
    assert _access(admin_nova, rsv_id) == {PROJECT, shared}
    assert _tenant_keys(admin_nova, rsv_id) == {
        'filter_tenant_id': PROJECT, 'filter_tenant_id_' + shared: shared}

    # The shared project reads the booking, and boots on its hosts.
    resp = daemons.request('GET', '/v1/reservations/%s' % booking['id'],
                           project=shared, roles='reader', headers=V19)
    assert resp.status_code == 200, resp.text
    seen = resp.json()['reservation']
    assert (seen['reserved_flavor_id'], seen['shared_project_ids']) == (
        rsv_id, [shared])
    member = cloud_mod.nova_client(shared, 'sam', 'member')
    server_id = _create(member, 'shared-0', rsv_id, servers)
    status, host, fault = _placed(admin_nova, member, server_id)
    assert status == 'ACTIVE', fault
    assert host in reserved_hosts, (host, reserved_hosts)

    # A project it is not shared with does not even see the flavor.
    other = cloud_mod.nova_client(stranger, 'olga', 'member')
    with pytest.raises((nova_exc.BadRequest, nova_exc.NotFound)):
        _create(other, 'stranger-0', rsv_id, servers)
    assert daemons.request('GET', '/v1/reservations/%s' % booking['id'],
                           project=stranger, roles='reader',
                           headers=V19).status_code == 404

    # The share taken back reaches nova at once: no new server.
    resp = daemons.request(
        'DELETE', '/v1/reservations/%s/shared-projects/%s' % (
            booking['id'], shared), project=PROJECT, headers=V19)
    assert resp.status_code == 204, resp.text
    _wait('access of %s taken back' % shared,
          lambda: _access(admin_nova, rsv_id) == {PROJECT}, 30)
    assert _tenant_keys(admin_nova, rsv_id) == {
        'filter_tenant_id': PROJECT}
    with pytest.raises((nova_exc.BadRequest, nova_exc.NotFound)):
        _create(member, 'shared-1', rsv_id, servers)
    assert admin_nova.servers.get(server_id).status == 'ACTIVE'
