"""reserve.capacity.gpus: GPUs a flavor asks for, GPUs a host has."""
import datetime

import pytest

from reserve.capacity import gpus
from reserve.capacity import maths
from reserve.common import exception

A100 = '{"name": "a100", "vendor_id": "10de", "product_id": "20b0", ' \
       '"device_type": "type-PCI"}'
A100_80 = '{"name": "a100", "vendor_id": "10de", "product_id": "20b5"}'
T4 = '{"name": "t4", "vendor_id": "10DE", "product_id": "1EB8"}'
OWN_CLASS = '{"name": "h100", "resource_class": "h100-sxm"}'
ALIASES = gpus.parse_aliases([A100, A100_80, T4, OWN_CLASS])


# Aliases -------------------------------------------------------------------

def test_aliases_map_to_the_class_nova_reports_devices_under():
    assert ALIASES == {
        'a100': ['CUSTOM_PCI_10DE_20B0', 'CUSTOM_PCI_10DE_20B5'],
        't4': ['CUSTOM_PCI_10DE_1EB8'],
        'h100': ['CUSTOM_H100_SXM'],
    }


@pytest.mark.parametrize('line', [
    'not json', '["a100"]', '{"vendor_id": "10de", "product_id": "20b0"}',
    '{"name": "x", "vendor_id": "10de"}',
    '{"name": "x", "vendor_id": "nvidia", "product_id": "20b0"}'])
def test_bad_alias_lines_are_refused_by_name(line):
    with pytest.raises(exception.Invalid) as err:
        gpus.parse_aliases([line])
    assert '[pci] alias' in str(err.value)


# Demand ----------------------------------------------------------------------

def test_flavor_without_gpus_asks_nothing():
    assert gpus.demand({'hw:cpu_policy': 'dedicated',
                        'resources:VCPU': '4',
                        'resources:CUSTOM_RESERVATION_X': '1'}, ALIASES) == {}


def test_alias_counts_in_the_devices_it_matches():
    assert gpus.demand({'pci_passthrough:alias': 't4:2'}, ALIASES) == {
        'CUSTOM_PCI_10DE_1EB8': 2}
    # a name matching two products: either will do
    assert gpus.demand({'pci_passthrough:alias': 'a100:1, t4'}, ALIASES) == {
        'CUSTOM_PCI_10DE_20B0|CUSTOM_PCI_10DE_20B5': 1,
        'CUSTOM_PCI_10DE_1EB8': 1}


def test_unconfigured_alias_is_kept_by_name():
    assert gpus.demand({'pci_passthrough:alias': 'v100:2'}) == {
        'alias:v100': 2}


def test_resource_classes_in_every_request_group_add_up():
    specs = {'resources:VGPU': '1', 'resources1:VGPU': '2',
             'resources_big:CUSTOM_PCI_10DE_20B0': '1',
             'resources2:PGPU': '0', 'resources:CUSTOM_A100': '3'}
    assert gpus.demand(specs) == {'VGPU': 3, 'CUSTOM_PCI_10DE_20B0': 1}
    # an operator-set class counts once configured
    assert gpus.demand(specs, extra_classes=('CUSTOM_A100',)) == {
        'VGPU': 3, 'CUSTOM_PCI_10DE_20B0': 1, 'CUSTOM_A100': 3}


@pytest.mark.parametrize('specs', [{'resources:VGPU': 'two'},
                                   {'resources:VGPU': '-1'},
                                   {'pci_passthrough:alias': 'a100:x'}])
def test_bad_counts_are_refused(specs):
    with pytest.raises(exception.Invalid):
        gpus.demand(specs, ALIASES)


# A host's GPUs ----------------------------------------------------------

def test_inventories_of_the_tree_count_what_can_be_allocated():
    root = {'VCPU': {'total': 64, 'reserved': 0, 'allocation_ratio': 16.0}}
    pgpu0 = {'VGPU': {'total': 16, 'reserved': 2, 'allocation_ratio': 1.0}}
    pgpu1 = {'VGPU': {'total': 16, 'reserved': 0, 'allocation_ratio': 1.0}}
    pci = {'CUSTOM_PCI_10DE_20B0': {'total': 4, 'reserved': 0,
                                    'allocation_ratio': 1.0}}
    reservation = {'CUSTOM_RESERVATION_X': {'total': 2, 'reserved': 0,
                                            'allocation_ratio': 1.0}}
    assert gpus.from_inventories([root, pgpu0, pgpu1, pci, reservation]) \
        == {'VGPU': 30, 'CUSTOM_PCI_10DE_20B0': 4}
    assert gpus.from_inventories(root) == {}


def test_discovered_devices_count_by_product_and_vgpu_slices():
    devices = [
        {'vendor_id': '0x10de', 'product_id': '0x20b0', 'state': 'PRESENT',
         'mdev_types': [], 'mdevs': []},
        {'vendor_id': '0x10de', 'product_id': '0x20b0', 'state': 'MISSING'},
        {'vendor_id': '0x10de', 'product_id': '0x1eb8', 'state': 'PRESENT',
         'mdev_types': [{'id': 'nvidia-222', 'available_instances': 3},
                        {'id': 'nvidia-223', 'available_instances': 1}],
         'mdevs': [{'uuid': 'u1', 'type_id': 'nvidia-222'}]},
    ]
    assert gpus.from_devices(devices) == {
        'CUSTOM_PCI_10DE_20B0': 1, 'CUSTOM_PCI_10DE_1EB8': 1, 'VGPU': 4}


def test_capabilities_in_the_aggregate_metadata_form():
    caps = {'gpu': 'True', 'gpu_count': '2', 'gpu_type': 'V100'}
    assert gpus.from_capabilities(caps) == {'alias:V100': 2}
    assert gpus.from_capabilities(dict(caps, gpu_type='t4'), ALIASES) == {
        'CUSTOM_PCI_10DE_1EB8': 2}
    assert gpus.from_capabilities(dict(caps, gpu_type='VGPU')) == {'VGPU': 2}
    assert gpus.from_capabilities(dict(caps, gpu='False')) == {}
    assert gpus.from_capabilities({'gpu_type': 'V100'}) == {}
    assert gpus.from_capabilities(dict(caps, gpu_count='many')) == {}


def test_first_source_that_knows_wins():
    assert gpus.host_gpus({'VGPU': 4}, {'VGPU': 8}, {'alias:x': 1}) == (
        {'VGPU': 4}, 'placement')
    assert gpus.host_gpus({}, {'VGPU': 8}, {'alias:x': 1}) == (
        {'VGPU': 8}, 'libvirt')
    assert gpus.host_gpus({}, {}, {'alias:x': 1}) == (
        {'alias:x': 1}, 'capabilities')
    assert gpus.host_gpus({}, {}, {}) == ({}, None)


# Fitting ---------------------------------------------------------------

def test_fit_counts_the_scarcest_gpu():
    host = {'VGPU': 8, 'CUSTOM_PCI_10DE_20B0': 2}
    assert gpus.fit(host, {}, {'VGPU': 2}) == 4
    assert gpus.fit(host, {'VGPU': 5}, {'VGPU': 2}) == 1
    assert gpus.fit(host, {}, {'VGPU': 1, 'CUSTOM_PCI_10DE_20B0': 1}) == 2
    assert gpus.fit(host, {}, {'CUSTOM_PCI_10DE_1EB8': 1}) == 0
    assert gpus.fit(host, {}, {}) is None
    assert gpus.fit({}, {}, {'VGPU': 1}) == 0


def test_alias_of_two_products_uses_both_and_never_overcounts():
    host = {'CUSTOM_PCI_10DE_20B0': 2, 'CUSTOM_PCI_10DE_20B5': 1}
    either = 'CUSTOM_PCI_10DE_20B0|CUSTOM_PCI_10DE_20B5'
    assert gpus.fit(host, {}, {either: 1}) == 3
    # a use of either may have taken the only 20B5
    assert gpus.fit(host, {either: 1}, {'CUSTOM_PCI_10DE_20B5': 1}) == 0
    assert gpus.fit(host, {'CUSTOM_PCI_10DE_20B0': 2}, {either: 1}) == 1


T0 = datetime.datetime(2030, 1, 1, 8, 0)


def _at(minute):
    return T0 + datetime.timedelta(minutes=minute)


def _slots(capacity, allocations, need, start, end):
    return min(fit for _, fit in maths.steps(capacity, allocations, need,
                                             _at(start), _at(end)))


def test_host_slots_stop_at_the_gpus_when_cpus_are_plenty():
    host = {'vcpus': 1000, 'memory_mb': 10 ** 6, 'disk_gb': 10 ** 5,
            'gpus': {'VGPU': 2}}
    need = {'vcpus': 1, 'memory_mb': 512, 'disk_gb': 1,
            'gpus': {'VGPU': 1}}
    assert _slots(host, [], need, 0, 60) == 2
    assert maths.empty_fit(host, need) == 2
    used = [maths.Allocation(_at(30), _at(90), 1, need)]
    assert _slots(host, used, need, 0, 60) == 1
    assert _slots(host, used, need, 90, 120) == 2
    # an instance without GPUs is not held back by them
    cpu_only = dict(need, gpus={})
    assert _slots(host, used * 2, cpu_only, 0, 60) == 998
    # nor is one asking for none of them
    assert _slots(host, used * 2, dict(need, gpus={'VGPU': 0}), 0,
                  60) == 998
    # a host without GPUs takes no GPU instance
    assert _slots(dict(host, gpus={}), [], need, 0, 60) == 0
