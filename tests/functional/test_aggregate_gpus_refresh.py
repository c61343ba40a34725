"""[gpu] source = aggregates in the manager: enrollment and the periodic
and on-demand capacity refresh read a host's GPUs from its nova
aggregates (the nova double) while placement (a real one) still gives
its vCPUs, memory and disk.

The engine is test_lease_lifecycle's: its two hosts have A100s in
placement, which count for nothing once the aggregates are the source.
"""
import uuid

from keystoneauth1 import exceptions as ks_exc
from oslo_config import cfg
import pytest

from reserve.common import context as reserve_context
from reserve.db import hosts as hosts_db
from tests.functional.test_lease_lifecycle import cloud  # noqa: F401
from tests.functional.test_lease_lifecycle import placement_server  # noqa

CONF = cfg.CONF


def _admin():
    return reserve_context.get_admin_context()


@pytest.fixture
def aggregates(cloud):  # noqa: F811
    CONF.set_override('source', 'aggregates', group='gpu')
    yield cloud
    CONF.clear_override('source', group='gpu')


def _gpu_aggregate(cloud, hosts, count, gpu_type='V100'):
    agg = cloud.nova.aggregates.create('GPU %s %s' % (
        gpu_type, uuid.uuid4().hex[:4]), None)
    cloud.nova.aggregates.set_metadata(agg, {
        'gpu': 'True', 'gpu_count': str(count), 'gpu_type': gpu_type})
    for host in hosts:
        cloud.nova.aggregates.add_host(agg, host)
    return agg


def test_enrollment_and_refresh_read_the_aggregates(aggregates, monkeypatch):
    cloud = aggregates
    name = 'host3-%s' % uuid.uuid4().hex[:6]
    rp = cloud.placement.add_compute_node(name, str(uuid.uuid4()),
                                          vcpus=8, memory_mb=16384)
    cloud.add_hypervisor(name, rp, vcpus=8, memory_mb=16384)
    agg = _gpu_aggregate(cloud, [name], 4)

    # Enrolled: the aggregate's GPUs, placement's vCPUs and memory.
    enrolled = cloud.lease_manager.create_host(_admin(), {'name': name})
    host = hosts_db.host_get(_admin(), enrolled['id'])
    assert host.gpus == {'alias:V100': 4}
    assert (host.vcpus, host.memory_mb) == (8, 16384)

    # The older hosts: their placement A100s give way to no GPUs at the
    # periodic refresh, and to the aggregate's once they are in one.
    older = sorted(cloud.hosts)
    _gpu_aggregate(cloud, older[:1], 2, gpu_type='T4')
    cloud.lease_manager._refresh_capacity(_admin())
    assert hosts_db.host_get(_admin(), older[0]).gpus == {'alias:T4': 2}
    assert hosts_db.host_get(_admin(), older[1]).gpus == {}

    # The aggregate changed: the on-demand refresh reads it again.
    cloud.nova.aggregates.set_metadata(agg, {'gpu_count': '1'})
    report = cloud.lease_manager.refresh_host(_admin(), enrolled['id'])
    assert report == {'capacity_changed': True}
    assert hosts_db.host_get(_admin(), name).gpus == {'alias:V100': 1}

    # nova not answering leaves the last records.
    cloud.nova.aggregates.set_metadata(agg, {'gpu_count': '3'})
    monkeypatch.setattr(cloud.nova.aggregates, 'list', _unreachable)
    assert cloud.lease_manager._refresh_capacity(_admin()) == 0
    assert cloud.lease_manager.refresh_host(_admin(), enrolled['id']) == {
        'capacity_changed': False}
    assert hosts_db.host_get(_admin(), name).gpus == {'alias:V100': 1}


def _unreachable():
    raise ks_exc.ConnectFailure('Unable to establish connection to '
                                'http://nova.example.org:8774')
