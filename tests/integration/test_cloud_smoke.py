"""The loopback OpenStack harness works: real nova + placement.

A reservation fence by hand: a child resource provider under host2's
compute-node provider with CUSTOM_RESERVATION_<X> (total 2, max_unit 1), a
private flavor asking for one device of it and pinned to an aggregate with
reservation=<X> holding host2. Two servers land on host2, the third finds no
valid host.
"""
import os
import sys
import uuid

import pytest

try:
    from . import cloud
except ImportError:  # tests/integration is not a package
    if os.path.dirname(os.path.abspath(__file__)) not in sys.path:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import cloud

pytestmark = pytest.mark.integration


def test_both_computes_registered(openstack_cloud):
    admin = cloud.nova_client(uuid.uuid4().hex, user_id='admin',
                              roles='admin')
    hypervisors = {h.hypervisor_hostname: h for h in admin.hypervisors.list()}
    assert set(cloud.COMPUTE_HOSTS) <= set(hypervisors)
    for host in cloud.COMPUTE_HOSTS:
        assert hypervisors[host].state == 'up'
        assert hypervisors[host].status == 'enabled'
        # the hypervisor id is the compute node's resource provider uuid
        assert hypervisors[host].id == cloud.provider_uuid(host)
    computes = {s.host: s for s in admin.services.list(binary='nova-compute')}
    assert set(cloud.COMPUTE_HOSTS) <= set(computes)
    assert all(computes[h].state == 'up' for h in cloud.COMPUTE_HOSTS)


def test_reserved_flavor_fenced_to_host2(openstack_cloud, cleanup):
    tag = uuid.uuid4().hex[:8].upper()
    rc = 'CUSTOM_RESERVATION_' + tag
    project = uuid.uuid4().hex
    admin = cloud.nova_client(project, user_id='operator', roles='admin')
    member = cloud.nova_client(project, user_id='user1', roles='member')

    # placement: child provider with the reservation inventory under host2
    host2 = cloud.provider_uuid('host2')
    resp = cloud.placement_request('PUT', '/resource_classes/' + rc)
    assert resp.status_code in (201, 204), resp.text
    cleanup(lambda: cloud.placement_request('DELETE',
                                            '/resource_classes/' + rc))
    # The child is kept between runs, its inventory is not (see
    # cloud.kept_child_provider); the cleanups run last in, first out.
    provider = cloud.kept_child_provider('host2', 'smoke_reservation')
    child = provider['uuid']
    cleanup(lambda: cloud.clear_inventory(child))
    resp = cloud.placement_request(
        'PUT', '/resource_providers/%s/inventories' % child, {
            'resource_provider_generation': provider['generation'],
            'inventories': {rc: {'total': 2, 'max_unit': 1}}})
    assert resp.status_code == 200, resp.text

    # nova: private flavor asking for the reservation, aggregate holding host2
    flavor = admin.flavors.create('reserved-' + tag, ram=256, vcpus=1, disk=1,
                                  is_public=False)
    cleanup(lambda: admin.flavors.delete(flavor))
    flavor.set_keys({'resources:%s' % rc: '1',
                     'aggregate_instance_extra_specs:reservation': tag})
    admin.flavor_access.add_tenant_access(flavor, project)
    aggregate = admin.aggregates.create('reservation-' + tag, None)
    cleanup(lambda: admin.aggregates.delete(aggregate))
    admin.aggregates.set_metadata(aggregate, {'reservation': tag})
    admin.aggregates.add_host(aggregate, 'host2')
    cleanup(lambda: admin.aggregates.remove_host(aggregate, 'host2'))

    servers = []
    cleanup(lambda: _delete_servers(admin, servers))

    def boot(i):
        server = member.servers.create('reserved-%s-%d' % (tag, i),
                                       image=cloud.IMAGE_ID, flavor=flavor.id,
                                       nics='none')
        servers.append(server.id)
        return server

    first = [boot(0), boot(1)]
    for server in first:
        server = cloud.wait_for_server(member, server.id)
        assert server.status == 'ACTIVE', getattr(server, 'fault', None)
        seen = admin.servers.get(server.id)
        assert getattr(seen, 'OS-EXT-SRV-ATTR:host') == 'host2'
        assert getattr(seen, 'OS-EXT-SRV-ATTR:hypervisor_hostname') == 'host2'
        allocations = cloud.placement_get(
            '/allocations/%s' % server.id)['allocations']
        assert allocations[child]['resources'] == {rc: 1}
        assert set(allocations) == {child, host2}
    usages = cloud.placement_get('/resource_providers/%s/usages' % child)
    assert usages['usages'] == {rc: 2}

    third = cloud.wait_for_server(member, boot(2).id)
    assert third.status == 'ERROR'
    assert 'No valid host' in third.fault['message'], third.fault


def test_aggregate_extra_specs_filter_enabled(openstack_cloud, cleanup):
    """AggregateInstanceExtraSpecsFilter is on: a flavor pinned by
    aggregate_instance_extra_specs goes to the matching aggregate only, and
    nowhere when no aggregate matches."""
    tag = uuid.uuid4().hex[:8]
    project = uuid.uuid4().hex
    admin = cloud.nova_client(project, user_id='operator', roles='admin')
    member = cloud.nova_client(project, user_id='user1', roles='member')
    flavor = admin.flavors.create('pinned-' + tag, ram=256, vcpus=1, disk=1,
                                  is_public=False)
    cleanup(lambda: admin.flavors.delete(flavor))
    flavor.set_keys({'aggregate_instance_extra_specs:reservation': tag})
    admin.flavor_access.add_tenant_access(flavor, project)
    aggregate = admin.aggregates.create('pinned-' + tag, None)
    cleanup(lambda: admin.aggregates.delete(aggregate))
    admin.aggregates.set_metadata(aggregate, {'reservation': tag})
    admin.aggregates.add_host(aggregate, 'host1')
    servers = []
    cleanup(lambda: _delete_servers(admin, servers))

    def boot(name):
        server = member.servers.create(name, image=cloud.IMAGE_ID,
                                       flavor=flavor.id, nics='none')
        servers.append(server.id)
        return cloud.wait_for_server(member, server.id)

    pinned = boot('pinned-%s-1' % tag)
    assert pinned.status == 'ACTIVE', getattr(pinned, 'fault', None)
    assert getattr(admin.servers.get(pinned.id),
                   'OS-EXT-SRV-ATTR:host') == 'host1'
    admin.aggregates.remove_host(aggregate, 'host1')
    homeless = boot('pinned-%s-2' % tag)
    assert homeless.status == 'ERROR'
    assert 'No valid host' in homeless.fault['message'], homeless.fault


def _delete_servers(admin, server_ids):
    for sid in server_ids:
        admin.servers.delete(sid)
    cloud.wait_for_deleted(admin, server_ids)
