"""The fence of reservable hosts, proven by nova's scheduler.

With host1 and host2 fenced by reserve.fence.fence (in an aggregate
with trait:<T>=required, <T> on their compute node providers), a third
project's boot of the public g1.vgpu finds no valid host, while a flavor
shaped like a reserved one boots: it requires <T>, VGPU from the VGPU
child and CUSTOM_RESERVATION_<X> from the child reserve_<host>, with <T>
on the root provider only. Once the hosts are unfenced, g1.vgpu boots
again (so the ERROR was the fence).

Needs ``[scheduler] enable_isolated_aggregate_filtering = True`` in the
cloud's nova.conf (tools/cloud/etc/nova.conf): a cloud brought up before
that is skipped (run tools/cloud/up.sh again). The aggregate and the
trait are this test's own, and what it makes is removed at the end,
failure or not: servers, flavors, aggregate, traits, inventories. Child
providers stay, as reserve leaves its reserve_<host> children: deleted
under a running nova-compute, they stay in its provider tree cache and
fail its next builds ("Failed to retrieve allocations for resource
provider", until [compute]resource_provider_association_refresh).
"""
import configparser
import os
import types
import uuid

from keystoneauth1 import adapter as ks_adapter
from novaclient import exceptions as nova_exc
from oslo_config import cfg
import pytest

from reserve import conf as reserve_conf  # noqa: F401 (registers options)
from reserve.common import nova
from reserve.common import placement
from reserve.fence import fence
from tests.integration import cloud as cloud_mod
from tools.cloud import quickstart_cloud

pytestmark = pytest.mark.integration

CONF = cfg.CONF
TAG = uuid.uuid4().hex[:6].upper()
TRAIT = 'CUSTOM_RESERVE_FENCED_ITEST_' + TAG
THIRD_PROJECT = 'third-%s' % TAG.lower()


@pytest.fixture
def isolating_cloud(openstack_cloud):
    """The cloud, if its nova-scheduler isolates aggregates."""
    nova_conf = configparser.ConfigParser(strict=False, interpolation=None)
    nova_conf.read(os.path.join(openstack_cloud['state_dir'], 'etc', 'nova',
                                'nova.conf'))
    if not nova_conf.getboolean('scheduler',
                                'enable_isolated_aggregate_filtering',
                                fallback=False):
        pytest.skip('the running loopback cloud was brought up without '
                    '[scheduler] enable_isolated_aggregate_filtering: run '
                    'tools/cloud/up.sh again')
    return openstack_cloud


@pytest.fixture
def fence_conf(cleanup):
    CONF.set_override('aggregate', 'reserve-fence-itest-' + TAG,
                      group='fence')
    CONF.set_override('trait', TRAIT, group='fence')
    cleanup(lambda: CONF.clear_override('aggregate', group='fence'))
    cleanup(lambda: CONF.clear_override('trait', group='fence'))


def _hosts():
    return [types.SimpleNamespace(
        name=name, service_name=name, kind='nova', reservable=True,
        provider_uuid=cloud_mod.provider_uuid(name))
        for name in cloud_mod.COMPUTE_HOSTS]


def _quickstart_gpus(admin, cleanup):
    """The quick start's vGPUs and g1.vgpu (a flavor made here goes
    again; the vGPU providers stay, see the module's docstring)."""
    for host in cloud_mod.COMPUTE_HOSTS:
        quickstart_cloud.add_vgpus(host)
    if quickstart_cloud.GPU_FLAVOR not in [
            f.name for f in admin.flavors.list(is_public=None)]:
        flavor = quickstart_cloud.add_gpu_flavor(admin)
        cleanup(flavor.delete)
    return admin.flavors.find(name=quickstart_cloud.GPU_FLAVOR)


def _check(resp):
    assert resp.status_code < 400 or resp.status_code == 404, resp.text


def _boot(client, name, flavor, servers):
    server = client.servers.create(name, cloud_mod.IMAGE_ID, flavor,
                                   nics='none')
    servers.append(server.id)
    return cloud_mod.wait_for_server(client, server.id)


def _reservation(placement_client, hosts, cleanup):
    """A reservation's inventory on reserve_<host> under each host."""
    rc = placement.reservation_resource_class(str(uuid.uuid4()))
    placement_client.ensure_resource_class(rc)
    cleanup(lambda: placement_client.delete_resource_class(rc))
    for host in hosts:
        child = placement_client.ensure_child_provider(host.provider_uuid,
                                                       host.name)
        placement_client.set_inventory(child['uuid'], rc, 1)
        cleanup(lambda u=child['uuid']: placement_client.delete_inventory(
            u, rc))
    return rc


def test_fenced_hosts_take_only_flavors_that_require_the_trait(
        isolating_cloud, fence_conf, cleanup):
    admin = cloud_mod.nova_client('admin', 'admin', 'admin')
    third = cloud_mod.nova_client(THIRD_PROJECT, 'carol', 'member')
    nova_client = nova.NovaClient(client=admin)
    placement_client = placement.PlacementClient(ks_adapter.Adapter(
        cloud_mod.placement_session(), service_type='placement'))
    servers = []

    def delete_servers():
        for server_id in servers:
            try:
                admin.servers.delete(server_id)
            except nova_exc.NotFound:
                pass
        cloud_mod.wait_for_deleted(admin, servers)

    public = _quickstart_gpus(admin, cleanup)
    hosts = _hosts()

    def unfence():
        for host in hosts:
            fence.unfence_host(nova_client, placement_client, host)
            placement_client.remove_provider_trait(host.provider_uuid, TRAIT)
        nova_client.delete_aggregate(CONF.fence.aggregate)
        _check(cloud_mod.placement_request('DELETE', '/traits/' + TRAIT))

    cleanup(unfence)
    for host in hosts:
        fence.fence_host(nova_client, placement_client, host)
    rc = _reservation(placement_client, hosts, cleanup)
    reserved = admin.flavors.create('fence-itest-%s' % TAG, ram=512,
                                    vcpus=1, disk=1)
    cleanup(reserved.delete)
    reserved.set_keys(dict(fence.specs(), **{'resources:VGPU': '1',
                                             'resources:%s' % rc: '1'}))
    cleanup(delete_servers)  # before the flavors and inventories go

    # The trait is on the compute node providers only.
    for host in hosts:
        assert TRAIT in placement_client.get_provider_traits(
            host.provider_uuid)
        for child in placement_client.get_tree(host.provider_uuid)[1:]:
            assert TRAIT not in placement_client.get_provider_traits(
                child['uuid'])

    blocked = _boot(third, 'on-demand', public, servers)
    assert blocked.status == 'ERROR'
    assert 'No valid host' in admin.servers.get(blocked.id).fault[
        'message']

    booted = admin.servers.get(_boot(third, 'reserved', reserved,
                                     servers).id)
    assert booted.status == 'ACTIVE', getattr(booted, 'fault', None)
    assert getattr(booted, 'OS-EXT-SRV-ATTR:host') in \
        cloud_mod.COMPUTE_HOSTS

    # Unfenced, the hosts take on-demand boots again. (The trait stays
    # while reservations hold inventory on reserve_<host>, here or of
    # other tests: it keeps nothing away out of the aggregate.)
    delete_servers()
    for host in hosts:
        fence.unfence_host(nova_client, placement_client, host)
    assert nova_client.find_aggregate(CONF.fence.aggregate).hosts == []
    again = _boot(third, 'on-demand-again', public, servers)
    assert again.status == 'ACTIVE', getattr(
        admin.servers.get(again.id), 'fault', None)
