"""reserve.fence.fence: reservable hosts kept off on-demand boots.

nova is the double of tests.fakes.nova; placement is the real one (the
openstack-placement package under gunicorn), as the fence's trait calls
depend on its generations and on what it keeps of a provider's traits.
"""
import logging
import uuid

import pytest

from reserve.common import exception
from reserve.common import nova
from reserve.common import placement
from reserve.db import hosts as hosts_db
from reserve.fence import fence
from reserve.manager import manager
from tests.fakes import nova as fake_nova
from tests.fixtures.placement import placement_server  # noqa: F401

AGGREGATE = 'reserve-fenced-hosts'
TRAIT = 'CUSTOM_RESERVE_FENCED'
# What nova's resource tracker puts on a compute node provider.
NOVA_TRAITS = ['COMPUTE_NODE', 'OWNER_NOVA']


class Cloud:
    """A fake nova and a real placement with computes, as nova has them:
    VCPU and MEMORY_MB on the compute node provider, nova's traits on
    it, a VGPU child."""

    def __init__(self, server):
        self.server = server
        self.fake = fake_nova.FakeCloud()
        self.nova = nova.NovaClient(client=self.fake.nova)
        self.placement = placement.PlacementClient(server.adapter())
        self.tag = uuid.uuid4().hex[:6]

    def compute(self, name, service=None):
        """A compute node (hypervisor ``name``-tag) in nova and placement;
        returns the row values reserve enrolls it with."""
        name = '%s-%s' % (name, self.tag)
        rp = self.server.add_compute_node(name, str(uuid.uuid4()))
        self._vgpus(rp, name + '_pgpu')
        self.set_traits(rp, NOVA_TRAITS)
        self.fake.add_hypervisor(name, rp, service_host=service)
        return {'name': name, 'kind': 'nova', 'provider_uuid': rp,
                'service_name': service or name}

    def _vgpus(self, parent, name):
        # add_device_provider makes custom classes only; VGPU is standard.
        child = self.server.request('POST', '/resource_providers', {
            'name': name, 'parent_provider_uuid': parent}).json()
        resp = self.server.request(
            'PUT', '/resource_providers/%s/inventories' % child['uuid'],
            {'resource_provider_generation': child['generation'],
             'inventories': {'VGPU': {'total': 2, 'max_unit': 2}}})
        assert resp.status_code == 200, resp.text

    def traits(self, uuid_):
        return set(self.server.request(
            'GET', '/resource_providers/%s/traits' % uuid_).json()['traits'])

    def set_traits(self, uuid_, traits):
        """What an operator (or nova) does: PUT the whole set."""
        self.server.request('PUT', '/traits/%s' % TRAIT)
        current = self.server.request(
            'GET', '/resource_providers/%s/traits' % uuid_).json()
        resp = self.server.request(
            'PUT', '/resource_providers/%s/traits' % uuid_,
            {'resource_provider_generation':
             current['resource_provider_generation'],
             'traits': sorted(traits)})
        assert resp.status_code == 200, resp.text

    def aggregate(self):
        return self.nova.find_aggregate(AGGREGATE)


@pytest.fixture
def cloud(placement_server, db):
    cloud = Cloud(placement_server)
    yield cloud
    # The placement server outlives the test: its hosts must not be
    # strangers holding the trait in the next test's cloud.
    for provider in cloud.placement.get_providers_with_trait(TRAIT):
        cloud.placement.remove_provider_trait(provider['uuid'], TRAIT)


def _host(ctx, values, reservable=True):
    return hosts_db.host_create(ctx, dict(values, reservable=reservable))


def test_specs_follow_the_config(override):
    assert fence.specs() == {'trait:%s' % TRAIT: 'required'}
    override('trait', 'CUSTOM_GPU_POOL', group='fence')
    assert fence.specs() == {'trait:CUSTOM_GPU_POOL': 'required'}
    override('enabled', False, group='fence')
    assert fence.specs() == {}


def test_fence_host_puts_the_trait_on_the_compute_node_only(cloud, ctx):
    values = cloud.compute('host1', service='svc1-' + cloud.tag)
    host = _host(ctx, values)

    done = fence.fence_host(cloud.nova, cloud.placement, host)

    assert done == ['aggregate %s created' % AGGREGATE,
                    '%s: trait %s set' % (host.name, TRAIT),
                    '%s: added to aggregate %s' % (host.name, AGGREGATE)]
    aggregate = cloud.aggregate()
    assert aggregate.metadata == {'trait:%s' % TRAIT: 'required'}
    # Aggregates take the service host, not the hypervisor name.
    assert aggregate.hosts == [values['service_name']]
    # nova's own traits stay; the device child gets nothing.
    assert cloud.traits(host.provider_uuid) == set(NOVA_TRAITS + [TRAIT])
    child = cloud.server.provider_by_name(host.name + '_pgpu')
    assert cloud.traits(child['uuid']) == set()
    # Again: nothing to do.
    assert fence.fence_host(cloud.nova, cloud.placement, host) == []


def test_fence_host_finds_the_provider_by_name_when_not_recorded(
        cloud, ctx):
    values = cloud.compute('host1')
    host = _host(ctx, dict(values, provider_uuid=None))
    fence.fence_host(cloud.nova, cloud.placement, host)
    assert TRAIT in cloud.traits(values['provider_uuid'])


def test_fence_host_of_a_host_nova_lost_is_a_cloud_error(cloud, ctx):
    values = cloud.compute('host1')
    cloud.fake.hypervisors.clear()  # nova: "Compute host ... not found"
    host = _host(ctx, values)
    with pytest.raises(exception.CloudError) as caught:
        fence.fence_host(cloud.nova, cloud.placement, host)
    assert 'could not be found' in caught.value.message
    # The trait went first: harmless without the aggregate.
    assert TRAIT in cloud.traits(values['provider_uuid'])


def test_trait_write_retries_on_a_generation_conflict(cloud, ctx):
    values = cloud.compute('host1')
    rp = values['provider_uuid']
    real_put = cloud.placement.adapter.put
    raced = []

    def put_after_nova(url, **kwargs):
        if not raced:  # nova writes the set between our GET and PUT
            raced.append(url)
            cloud.set_traits(rp, NOVA_TRAITS + ['COMPUTE_STATUS_DISABLED'])
        return real_put(url, **kwargs)

    cloud.placement.adapter.put = put_after_nova
    assert cloud.placement.add_provider_trait(rp, TRAIT) is True
    assert raced
    assert cloud.traits(rp) == set(
        NOVA_TRAITS + ['COMPUTE_STATUS_DISABLED', TRAIT])
    assert cloud.placement.add_provider_trait(rp, TRAIT) is False
    assert cloud.placement.remove_provider_trait(rp, TRAIT) is True
    assert cloud.placement.remove_provider_trait(rp, TRAIT) is False
    assert cloud.traits(rp) == set(NOVA_TRAITS + ['COMPUTE_STATUS_DISABLED'])


def test_trait_write_on_a_provider_gone_is_a_cloud_error(cloud):
    with pytest.raises(exception.CloudError) as caught:
        cloud.placement.add_provider_trait(str(uuid.uuid4()), TRAIT)
    assert 'is gone' in caught.value.message
    assert cloud.placement.get_provider_traits(str(uuid.uuid4())) is None


def test_unfence_host_gives_it_back(cloud, ctx):
    host = _host(ctx, cloud.compute('host1'))
    fence.fence_host(cloud.nova, cloud.placement, host)

    assert fence.unfence_host(cloud.nova, cloud.placement, host) == [
        '%s: taken out of aggregate %s' % (host.name, AGGREGATE),
        '%s: trait %s removed' % (host.name, TRAIT)]
    assert cloud.aggregate().hosts == []
    assert cloud.traits(host.provider_uuid) == set(NOVA_TRAITS)
    assert fence.unfence_host(cloud.nova, cloud.placement, host) == []


def test_unfence_keeps_the_trait_while_reservations_hold_the_host(
        cloud, ctx):
    host = _host(ctx, cloud.compute('host1'))
    fence.fence_host(cloud.nova, cloud.placement, host)
    # An active reservation: its inventory on the child reserve_<host>.
    rc = placement.reservation_resource_class(str(uuid.uuid4()))
    cloud.placement.ensure_resource_class(rc)
    child = cloud.placement.ensure_child_provider(host.provider_uuid,
                                                  host.name)
    cloud.placement.set_inventory(child['uuid'], rc, 1)

    assert fence.unfence_host(cloud.nova, cloud.placement, host) == [
        '%s: taken out of aggregate %s' % (host.name, AGGREGATE)]
    # Its reserved flavor requires the trait to boot there.
    assert TRAIT in cloud.traits(host.provider_uuid)

    cloud.placement.delete_inventory(child['uuid'], rc)
    host = hosts_db.host_update(ctx, host.id, {'reservable': False})
    assert fence.sync(ctx, cloud.nova, cloud.placement) == [
        '%s: trait %s removed' % (host.name, TRAIT)]


def test_a_host_no_longer_enrolled_is_given_back_whole(cloud, ctx):
    # A host removed from reserve is left as it was found: out of the
    # aggregate and without the trait.
    gone = _host(ctx, cloud.compute('host1'))
    kept = _host(ctx, cloud.compute('host2'))
    fence.sync(ctx, cloud.nova, cloud.placement)
    hosts_db.host_destroy(ctx, gone.id)
    problems = fence.check(cloud.nova, cloud.placement,
                           hosts_db.host_list(ctx))
    assert problems == ['resource provider %s holds trait %s but is no '
                        'enrolled host' % (gone.name, TRAIT)]

    assert sorted(fence.sync(ctx, cloud.nova, cloud.placement)) == sorted([
        '%s: not enrolled, taken out of aggregate %s' % (gone.service_name,
                                                         AGGREGATE),
        '%s: not enrolled, trait %s removed' % (gone.name, TRAIT)])
    assert cloud.traits(gone.provider_uuid) == set(NOVA_TRAITS)
    assert TRAIT in cloud.traits(kept.provider_uuid)
    assert cloud.aggregate().hosts == [kept.service_name]
    assert fence.check(cloud.nova, cloud.placement,
                       hosts_db.host_list(ctx)) == []
    assert fence.sync(ctx, cloud.nova, cloud.placement) == []


def test_a_host_no_longer_enrolled_keeps_the_trait_its_reservations_need(
        cloud, ctx):
    gone = _host(ctx, cloud.compute('host1'))
    fence.sync(ctx, cloud.nova, cloud.placement)
    rc = placement.reservation_resource_class(str(uuid.uuid4()))
    cloud.placement.ensure_resource_class(rc)
    child = cloud.placement.ensure_child_provider(gone.provider_uuid,
                                                  gone.name)
    cloud.placement.set_inventory(child['uuid'], rc, 1)
    hosts_db.host_destroy(ctx, gone.id)

    assert fence.sync(ctx, cloud.nova, cloud.placement) == [
        '%s: not enrolled, taken out of aggregate %s' % (gone.service_name,
                                                         AGGREGATE)]
    assert TRAIT in cloud.traits(gone.provider_uuid)
    cloud.placement.delete_inventory(child['uuid'], rc)
    assert fence.sync(ctx, cloud.nova, cloud.placement) == [
        '%s: not enrolled, trait %s removed' % (gone.name, TRAIT)]


def test_sync_repairs_hand_edits(cloud, ctx):
    one = _host(ctx, cloud.compute('host1'))
    two = _host(ctx, cloud.compute('host2'))
    off = _host(ctx, cloud.compute('host3'), reservable=False)
    stranger = cloud.compute('host4')['service_name']
    hosts_db.host_create(ctx, {'name': 'gpu-box', 'kind': 'libvirt',
                               'uri': 'test:///default'})
    assert sorted(fence.sync(ctx, cloud.nova, cloud.placement)) == sorted([
        'aggregate %s created' % AGGREGATE,
        '%s: trait %s set' % (one.name, TRAIT),
        '%s: added to aggregate %s' % (one.name, AGGREGATE),
        '%s: trait %s set' % (two.name, TRAIT),
        '%s: added to aggregate %s' % (two.name, AGGREGATE)])
    assert fence.sync(ctx, cloud.nova, cloud.placement) == []

    # An operator's edits: a host out, a trait gone, the metadata gone,
    # the non-reservable host and a host never enrolled put in.
    agg = cloud.aggregate()
    cloud.fake.nova.aggregates.remove_host(agg, one.service_name)
    cloud.set_traits(two.provider_uuid, NOVA_TRAITS)
    cloud.fake.nova.aggregates.set_metadata(agg, {'trait:%s' % TRAIT: None})
    cloud.fake.nova.aggregates.add_host(agg, off.service_name)
    cloud.set_traits(off.provider_uuid, NOVA_TRAITS + [TRAIT])
    cloud.fake.nova.aggregates.add_host(agg, stranger)
    problems = fence.check(cloud.nova, cloud.placement,
                           hosts_db.host_list(ctx))
    assert sorted(problems) == sorted([
        'aggregate %s lacks the metadata trait:%s=required' % (AGGREGATE,
                                                               TRAIT),
        'host %s is not in aggregate %s' % (one.name, AGGREGATE),
        'the resource provider of host %s lacks trait %s' % (two.name,
                                                             TRAIT),
        'host %s is not reservable but is still in aggregate %s' % (
            off.name, AGGREGATE)])

    assert sorted(fence.sync(ctx, cloud.nova, cloud.placement)) == sorted([
        'aggregate %s metadata set' % AGGREGATE,
        '%s: added to aggregate %s' % (one.name, AGGREGATE),
        '%s: trait %s set' % (two.name, TRAIT),
        '%s: taken out of aggregate %s' % (off.name, AGGREGATE),
        '%s: trait %s removed' % (off.name, TRAIT),
        '%s: not enrolled, taken out of aggregate %s' % (stranger,
                                                         AGGREGATE)])
    assert sorted(cloud.aggregate().hosts) == sorted([one.service_name,
                                                      two.service_name])
    assert fence.check(cloud.nova, cloud.placement,
                       hosts_db.host_list(ctx)) == []
    assert fence.sync(ctx, cloud.nova, cloud.placement) == []


def test_sync_goes_on_past_a_host_it_cannot_repair(cloud, ctx, caplog):
    lost = _host(ctx, dict(cloud.compute('host1'), provider_uuid=None,
                           name='gone-' + cloud.tag))
    kept = _host(ctx, cloud.compute('host2'))
    with caplog.at_level(logging.WARNING):
        done = fence.sync(ctx, cloud.nova, cloud.placement)
    assert '%s: added to aggregate %s' % (kept.name, AGGREGATE) in done
    assert 'Fence of host %s not repaired' % lost.name in caplog.text
    assert fence.check(cloud.nova, cloud.placement,
                       hosts_db.host_list(ctx)) == [
        'host %s is not in aggregate %s' % (lost.name, AGGREGATE),
        'host %s has no resource provider in placement' % lost.name]


def test_check_without_hosts_needs_no_aggregate(cloud, ctx):
    assert fence.check(cloud.nova, cloud.placement, []) == []
    host = _host(ctx, cloud.compute('host1'))
    assert 'aggregate %s does not exist' % AGGREGATE in fence.check(
        cloud.nova, cloud.placement, [host])


def test_everything_is_a_no_op_when_disabled(cloud, ctx, override):
    override('enabled', False, group='fence')
    host = _host(ctx, cloud.compute('host1'))
    assert fence.fence_host(cloud.nova, cloud.placement, host) == []
    assert fence.sync(ctx, cloud.nova, cloud.placement) == []
    assert fence.check(cloud.nova, cloud.placement, [host]) == []
    assert fence.unfence_host(cloud.nova, cloud.placement, host) == []
    assert cloud.aggregate() is None
    assert cloud.traits(host.provider_uuid) == set(NOVA_TRAITS)


def test_enrolment_fences_reservable_hosts_and_survives_a_failure(
        cloud, ctx, caplog, monkeypatch):
    lease_manager = manager.LeaseManager(nova_client=cloud.nova,
                                         placement_client=cloud.placement)
    one = cloud.compute('host1')
    off = cloud.compute('host2')
    lease_manager.create_host(ctx, {'name': one['name']})
    lease_manager.create_host(ctx, {'name': off['name'],
                                    'reservable': False})
    assert cloud.aggregate().hosts == [one['service_name']]
    assert TRAIT in cloud.traits(one['provider_uuid'])
    assert TRAIT not in cloud.traits(off['provider_uuid'])

    # placement refuses the trait: enrolled all the same, repaired later.
    late = cloud.compute('host3')

    def refuse(uuid_, trait):
        raise exception.CloudError(service='placement', reason='down')

    monkeypatch.setattr(cloud.placement, 'add_provider_trait', refuse)
    with caplog.at_level(logging.WARNING):
        host = lease_manager.create_host(ctx, {'name': late['name']})
    assert host['name'] == late['name']
    assert 'Host %s not fenced yet: placement: down' % late['name'] in \
        caplog.text
    monkeypatch.undo()
    assert lease_manager.sync_fence(ctx) == [
        '%s: trait %s set' % (late['name'], TRAIT),
        '%s: added to aggregate %s' % (late['name'], AGGREGATE)]
