"""A host's GPUs from the de.NBI exporter's aggregate metadata."""
import types

from reserve.capacity import aggregate_gpus


def _aggregate(hosts, **metadata):
    return types.SimpleNamespace(hosts=list(hosts), metadata=metadata)


def test_gpu_aggregates_give_their_hosts_gpus():
    found = aggregate_gpus.by_host([
        _aggregate(['h1', 'h2'], gpu='True', gpu_count='2', gpu_type='V100'),
        # The same GPUs told twice are not twice as many.
        _aggregate(['h2'], gpu='true', gpu_count='2', gpu_type='V100'),
        _aggregate(['h2'], gpu='True', gpu_count='1', gpu_type='T4'),
        _aggregate(['h3'], gpu='False', gpu_count='4', gpu_type='V100'),
        _aggregate(['h4'], gpu='True', gpu_count='many', gpu_type='V100'),
        _aggregate(['h5'], availability_zone='nova'),
    ])
    assert found == {'h1': {'alias:V100': 2},
                     'h2': {'alias:V100': 2, 'alias:T4': 1}}


def test_a_host_is_found_by_its_service_then_hypervisor_name():
    found = {'h1': {'alias:V100': 2}, 'h1.example.org': {'alias:T4': 1}}
    assert aggregate_gpus.of_host(found, 'h1', 'h1.example.org') == {
        'alias:V100': 2}
    assert aggregate_gpus.of_host(found, None, 'h1.example.org') == {
        'alias:T4': 1}
    assert aggregate_gpus.of_host(found, 'h9', 'h9.example.org') == {}
