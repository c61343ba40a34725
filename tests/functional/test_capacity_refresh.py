"""A nova host's capacity record, read from the real placement.

What can be allocated (allocation ratios and reserved amounts applied),
the GPUs of its provider tree, and what other consumers use of it: an
instance that was on the host before it was enrolled counts, a reserved
server (it holds a CUSTOM_RESERVATION_* class) does not, since its
booking's allocation counts it already.
"""
import uuid

import requests

from reserve.capacity import refresh
from reserve import conf as reserve_conf  # noqa: F401 (registers options)
from reserve.common import placement
from tests.fixtures import placement as placement_fixture
from tests.fixtures.placement import placement_server  # noqa: F401


def _allocate(server, consumer, allocations):
    resp = requests.put(
        server.url + '/allocations/%s' % consumer,
        json={'allocations': {rp: {'resources': r}
                              for rp, r in allocations.items()},
              'project_id': 'p', 'user_id': 'u',
              'consumer_generation': None},
        headers=dict(placement_fixture.HEADERS,
                     **{'OpenStack-API-Version': 'placement 1.28'}),
        timeout=10)
    assert resp.status_code == 204, resp.text


def test_the_record_counts_other_consumers_not_reserved_servers(
        placement_server):
    root = placement_server.add_compute_node(
        'cn-%s' % uuid.uuid4().hex[:6], str(uuid.uuid4()), vcpus=16,
        memory_mb=65536, disk_gb=500, cpu_ratio=4.0)
    gpus = placement_server.add_device_provider(
        root, 'vgpu-%s' % uuid.uuid4().hex[:6], 'CUSTOM_PCI_10DE_20B5', 4)
    rc = 'CUSTOM_RESERVATION_%s' % uuid.uuid4().hex.upper()
    child = placement_server.add_device_provider(
        root, 'reserve_%s' % uuid.uuid4().hex[:6], rc, 2)
    # On-demand, there before enrollment: 4 vCPUs, 8 GB, 20 GB, a GPU.
    _allocate(placement_server, str(uuid.uuid4()), {
        root: {'VCPU': 4, 'MEMORY_MB': 8192, 'DISK_GB': 20},
        gpus: {'CUSTOM_PCI_10DE_20B5': 1}})
    # A reserved server: its booking's allocation counts it, not this.
    _allocate(placement_server, str(uuid.uuid4()), {
        root: {'VCPU': 2, 'MEMORY_MB': 4096, 'DISK_GB': 10},
        gpus: {'CUSTOM_PCI_10DE_20B5': 1}, child: {rc: 1}})

    record = refresh.read(
        placement.PlacementClient(placement_server.adapter()), root)

    assert (record['vcpus'], record['memory_mb'], record['local_gb']) == (
        64, 65536, 500)
    assert record['gpus'] == {'CUSTOM_PCI_10DE_20B5': 4}
    assert record['foreign_usage'] == {
        'vcpus': 4, 'memory_mb': 8192, 'disk_gb': 20,
        'gpus': {'CUSTOM_PCI_10DE_20B5': 1}}
