"""reserve.diagnosis.host_checks: what nova and placement say of a host.

nova is the double of tests.fakes.nova (os-services, hypervisors that
disappear, a nova that does not answer); placement is the real one.
"""
import types
import uuid

import pytest

from reserve.common import nova
from reserve.common import placement
from reserve.diagnosis import host_checks
from tests.fakes import nova as fake_nova
from tests.fixtures.placement import placement_server  # noqa: F401


class Cloud:
    def __init__(self, server):
        self.server = server
        self.fake = fake_nova.FakeCloud()
        self.nova = nova.NovaClient(client=self.fake.nova)
        self.placement = placement.PlacementClient(server.adapter())

    def compute(self):
        """A compute node in nova and placement, as reserve enrolls it."""
        name = 'cn-%s' % uuid.uuid4().hex[:6]
        rp = self.server.add_compute_node(name, str(uuid.uuid4()))
        self.fake.add_hypervisor(name, rp, service_host='svc-' + name)
        return types.SimpleNamespace(name=name, service_name='svc-' + name,
                                     provider_uuid=rp)

    def check(self, host, closely=False):
        return host_checks.nova_host(self.nova, self.placement, host,
                                     closely)


@pytest.fixture
def cloud(placement_server):
    return Cloud(placement_server)


def test_a_host_nova_runs_is_fine(cloud):
    host = cloud.compute()
    assert cloud.check(host) is None
    assert cloud.check(host, closely=True) is None


def test_a_compute_service_down_or_disabled_fails_it(cloud):
    host = cloud.compute()
    cloud.fake.set_service(host.service_name, state='down')
    assert cloud.check(host) == ('the compute service of host %s is down'
                                 % host.service_name)
    cloud.fake.set_service(host.service_name, state='up',
                           status='disabled', reason='disk replacement')
    assert cloud.check(host) == (
        'the compute service of host %s is disabled (disk replacement)'
        % host.service_name)
    cloud.fake.set_service(host.service_name, status='enabled')
    assert cloud.check(host) is None


def test_a_hypervisor_gone_fails_it(cloud):
    host = cloud.compute()
    other = cloud.compute()
    cloud.fake.remove_hypervisor(host.name)
    # Its service went with its only compute node.
    assert cloud.check(host) == ('nova has no compute service on host %s'
                                 % host.service_name)
    assert cloud.check(other) is None
    # A service whose hypervisor is gone (renamed, say).
    cloud.fake.hypervisors[-1].hypervisor_hostname += '-renamed'
    assert cloud.check(other) == ('nova has no hypervisor %s any more'
                                  % other.name)


def test_every_failure_in_order_the_hypervisor_asked_last():
    host = types.SimpleNamespace(name='cn-1', service_name='svc-cn-1')
    asked = []

    def find_hypervisor():
        asked.append(host.name)

    failures = host_checks.compute_failures(host, [
        {'state': 'down', 'forced_down': False, 'status': 'disabled',
         'disabled_reason': None}], find_hypervisor)
    # The health check takes the first: nova is asked no more.
    assert next(failures) == 'the compute service of host svc-cn-1 is down'
    assert asked == []
    # The diagnosis takes them all.
    assert list(failures) == [
        'the compute service of host svc-cn-1 is disabled',
        'nova has no hypervisor cn-1 any more']
    assert asked == ['cn-1']
    # No service: nothing more is asked.
    assert list(host_checks.compute_failures(host, [], find_hypervisor)) == [
        'nova has no compute service on host svc-cn-1']
    assert asked == ['cn-1']


def test_silence_concludes_nothing(cloud):
    host = cloud.compute()
    cloud.fake.down = True
    with pytest.raises(host_checks.NoAnswer) as caught:
        cloud.check(host)
    assert 'nova' in str(caught.value)


def test_closely_the_providers_are_checked_too(cloud):
    host = cloud.compute()
    server = cloud.server
    # The child reserve_<host> is made at the first start: none is fine.
    child = cloud.placement.ensure_child_provider(host.provider_uuid,
                                                  host.name)
    assert cloud.check(host, closely=True) is None
    server.request('DELETE', '/resource_providers/%s/inventories/VCPU'
                   % host.provider_uuid)
    assert cloud.check(host) is None   # not closely: nova alone
    assert cloud.check(host, closely=True) == (
        'the resource provider of compute node %s has no VCPU inventory'
        % host.name)
    assert server.request('DELETE', '/resource_providers/%s' %
                          child['uuid']).status_code == 204
    assert server.request('DELETE', '/resource_providers/%s' %
                          host.provider_uuid).status_code == 204
    assert cloud.check(host, closely=True) == (
        'placement has no resource provider for compute node %s'
        % host.name)
