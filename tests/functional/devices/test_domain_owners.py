"""Who owns a domain, as the manager reads it (reserve.devices.owners),
and what the lease engine does with it: an attach checks it, the start,
the end and a review touch a domain only while its owner is the one its
attachment recorded. The API over HTTP is tests/functional/hostile/
test_domain_owners.py's."""
import logging
import re

from oslo_config import cfg
import pytest

from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import policy
from reserve.db import domain_owners as owners_db
from reserve.db import hosts as hosts_db
from reserve.devices import owners
from reserve.devices import refresh
from reserve.virt import domains as virt_domains
from tests.functional.devices.gpu_cloud import A100_MODEL

CONF = cfg.CONF

NOVA = ('<domain><name>vm</name><metadata><nova:instance xmlns:nova='
        '"http://openstack.org/xmlns/libvirt/nova/1.1"><nova:owner>'
        '<nova:user uuid="u">alice</nova:user><nova:project uuid="%s">'
        'a</nova:project></nova:owner></nova:instance></metadata></domain>')


def member(project):
    return reserve_context.RequestContext(
        user_id='someone', project_id=project, roles=['member', 'reader'])


@pytest.mark.parametrize('xml, owner', [
    (NOVA % '3f1c9d0e5a2b4c6d8e0f1a2b3c4d5e6f',
     '3f1c9d0e5a2b4c6d8e0f1a2b3c4d5e6f'),
    (NOVA % ' ', None),
    ('<domain><name>vm</name></domain>', None),
    # Another namespace is not nova's.
    (NOVA.replace('openstack.org', 'example.org') % 'p', None),
    ('<domain><name>vm', None),
])
def test_novas_owner_is_read_from_the_metadata(xml, owner):
    assert virt_domains.nova_owner(xml) == owner


def test_a_libvirt_host_is_run_by_nova_when_nova_has_the_machine(cloud):
    host = cloud.enroll('a100-host.xml', name='gpu-a100-01')
    remote = hosts_db.host_create(cloud.ctx, {
        'name': 'ssh-host', 'kind': 'libvirt',
        'uri': 'qemu+ssh://compute-7.example.org/system'})
    assert not owners.run_by_nova(cloud.ctx, host)
    assert not owners.run_by_nova(cloud.ctx, remote)
    # By the host of its URI: nova's hypervisor hostname...
    nova = hosts_db.host_create(cloud.ctx, {
        'name': 'compute-7.example.org', 'service_name': 'compute-7',
        'kind': 'nova'})
    assert owners.run_by_nova(cloud.ctx, remote)
    hosts_db.host_destroy(cloud.ctx, nova.id)
    # ...or its service host; and a test:/// host by its name.
    hosts_db.host_create(cloud.ctx, {
        'name': 'c7.example.org', 'service_name': 'compute-7.example.org',
        'kind': 'nova'})
    assert owners.run_by_nova(cloud.ctx, remote)
    hosts_db.host_create(cloud.ctx, {
        'name': 'a100.example.org', 'service_name': 'gpu-a100-01',
        'kind': 'nova'})
    assert owners.run_by_nova(cloud.ctx, host)
    # There, the records are not read: gpu-vm-2 has no nova owner.
    owners_db.owner_set(cloud.ctx, host.id, 'gpu-vm-2', 'project-a')
    found = owners.read(cloud.ctx, host, cloud.conn(host))
    assert found == dict.fromkeys(
        ('gpu-vm-1', 'gpu-vm-2', 'gpu-vm-3', 'transient-vm'))


@pytest.fixture
def policy_conf():
    """oslo.policy reads the parsed configuration (the manager's)."""
    CONF([], project='reserve', default_config_files=[])
    yield
    policy.reset()


def test_an_attach_by_a_member_checks_the_owner(cloud, policy_conf):
    host = cloud.enroll('a100-host.xml')
    owners_db.owner_set(cloud.ctx, host.id, 'gpu-vm-2', 'project-a')
    owners_db.owner_set(cloud.ctx, host.id, 'gpu-vm-3', 'project-b')
    rsv_id = cloud.reserve(
            device_count=1, model=A100_MODEL, project='project-b')
    cloud.tick()
    for name in ('gpu-vm-2', 'gpu-vm-1', 'no-such-vm'):
        with pytest.raises(exception.DomainNotFound) as caught:
            cloud.manager.attach_device_domain(
                member('project-b'), rsv_id, name, None, 'project-b')
        assert caught.value.message == (
            'Domain %s does not exist on host %s.' % (name, host.name))
    cloud.manager.attach_device_domain(member('project-b'), rsv_id,
                                       'gpu-vm-3', None, 'project-b')
    [attachment] = cloud.reservation(rsv_id).attachments
    assert (attachment.domain, attachment.state, attachment.domain_owner) \
        == ('gpu-vm-3', 'ATTACHED', 'project-b')


def test_a_start_leaves_a_domain_that_changed_hands(cloud, caplog):
    host = cloud.enroll('a100-host.xml')
    # An administrator's reservation names gpu-vm-2, which has no owner.
    rsv_id = cloud.reserve(
            device_count=1, model=A100_MODEL, domains=['gpu-vm-2'])
    assert [a.domain_owner for a in cloud.reservation(rsv_id).attachments] \
        == [None]
    # Before its start, gpu-vm-2 becomes project-b's.
    owners_db.owner_set(cloud.ctx, host.id, 'gpu-vm-2', 'project-b')
    with caplog.at_level(logging.WARNING, logger=owners.__name__):
        cloud.tick()
    rsv = cloud.reservation(rsv_id)
    assert rsv.status == 'ACTIVE'
    assert [a.state for a in rsv.attachments] == ['PLANNED']
    assert cloud.hostdevs(host)['gpu-vm-2'] == []
    assert ['not attached' in r.getMessage() for r in caplog.records
            if 'changed owner' in r.getMessage()] == [True]


def test_a_review_leaves_a_domain_that_changed_hands(cloud):
    host = cloud.enroll('a100-host.xml')
    owners_db.owner_set(cloud.ctx, host.id, 'gpu-vm-2', 'project-a')
    rsv_id = cloud.reserve(device_ids=[cloud.device(host, '0000:17:00.0').id],
                           domains=['gpu-vm-2'])
    cloud.tick()
    assert ('pci', '0000:17:00.0') in cloud.hostdevs(host)['gpu-vm-2']
    owners_db.owner_set(cloud.ctx, host.id, 'gpu-vm-2', 'project-b')
    cloud.topology_change(host, lambda text: re.sub(
        r"(<name>pci_0000_ca_00_0</name>.*?)<numa node='1'/>",
        r"\1<numa node='0'/>", text, count=1, flags=re.S))
    cloud.conn(host).attach('gpu-vm-2', '0000:17:00.0')  # reopened host
    assert refresh.refresh(cloud.ctx, host.id)['needs_review'] == [rsv_id]
    # Not detached from project-b's domain; let go of in the records.
    assert ('pci', '0000:17:00.0') in cloud.hostdevs(host)['gpu-vm-2']
    assert [a.state for a in cloud.reservation(rsv_id).attachments] == [
        'PLANNED']
    # Re-affirmed, it does not go back into it either.
    cloud.conn(host).detach('gpu-vm-2', '0000:17:00.0')
    cloud.manager.affirm_device_reservation(cloud.ctx, rsv_id, 'root')
    assert cloud.hostdevs(host)['gpu-vm-2'] == []


def test_an_end_takes_back_from_its_own_domains_only(cloud):
    host = cloud.enroll('a100-host.xml')
    for name in ('gpu-vm-2', 'gpu-vm-3'):
        owners_db.owner_set(cloud.ctx, host.id, name, 'project-a')
    rsv_id = cloud.reserve(device_count=2, model=A100_MODEL, numa_local=True,
                           domains=['gpu-vm-2', 'gpu-vm-3'])
    cloud.tick()
    held = cloud.hostdevs(host)
    assert held['gpu-vm-2'] and held['gpu-vm-3']
    owners_db.owner_delete(cloud.ctx, host.id, 'gpu-vm-3')
    cloud.cancel(rsv_id)
    cloud.tick()
    rsv = cloud.reservation(rsv_id)
    assert rsv.released_at is not None
    assert {a.domain: a.state for a in rsv.attachments} == {
        'gpu-vm-2': 'DETACHED', 'gpu-vm-3': 'DETACHED'}
    after = cloud.hostdevs(host)
    assert after['gpu-vm-2'] == []
    assert after['gpu-vm-3'] == held['gpu-vm-3']
