"""What moves the topology generation, and what does not."""
import dataclasses

from reserve.virt import discovery
from reserve.virt import topology


def _gpu(address, **changes):
    values = dict(
        name='pci_' + address.replace(':', '_').replace('.', '_'),
        address=address, pci_class='0x030200', vendor_id='0x10de',
        product_id='0x1eb8', vendor_name='NVIDIA Corporation',
        product_name='TU104GL [Tesla T4]', iommu_group=50,
        iommu_group_members=(address,), numa_node=0, physical_function=None,
        virtual_functions=(), max_virtual_functions=None,
        mdev_types=(discovery.MdevType('nvidia-222', 'GRID T4-1B', 16,
                                       'vfio-pci'),),
        driver='nvidia')
    values.update(changes)
    return discovery.GPU(**values)


HOST = [_gpu('0000:3b:00.0'), _gpu('0000:d8:00.0', numa_node=1,
                                   iommu_group=160)]
BASE = topology.generation(HOST)


def test_generation_is_a_sha256_hex_digest_independent_of_order():
    assert len(BASE) == 64 and int(BASE, 16) >= 0
    assert topology.generation(list(reversed(HOST))) == BASE
    assert topology.generation(iter(HOST)) == BASE


def _with(index, **changes):
    gpus = list(HOST)
    gpus[index] = dataclasses.replace(gpus[index], **changes)
    return topology.generation(gpus)


def test_moves_with_the_layout():
    changed = [
        topology.generation(HOST[:1]),                       # GPU gone
        topology.generation(HOST + [_gpu('0000:af:00.0')]),  # GPU added
        _with(1, numa_node=0),
        _with(0, iommu_group=51),
        _with(0, iommu_group_members=('0000:3b:00.0', '0000:3b:00.1')),
        _with(0, product_id='0x20b2'),
        _with(0, pci_class='0x030000'),
        _with(0, virtual_functions=('0000:3b:00.4',),
              max_virtual_functions=16),
        _with(0, physical_function='0000:3a:00.0'),
        _with(0, mdev_types=()),
        _with(0, mdev_types=(discovery.MdevType(
            'nvidia-223', 'GRID T4-2B', 8, 'vfio-pci'),)),
    ]
    assert BASE not in changed
    assert len(set(changed)) == len(changed)


def test_ignores_what_moves_in_normal_operation():
    assert _with(0, mdev_types=(discovery.MdevType(
        'nvidia-222', 'GRID T4-1B', 3, 'vfio-pci'),)) == BASE
    assert _with(0, driver='vfio-pci') == BASE
    assert _with(0, vendor_name='NVIDIA Corp.',
                 product_name='TU104GL') == BASE


def test_description_is_versioned():
    assert topology.describe(HOST)['format'] == 'v1'
    assert [g['address'] for g in topology.describe(HOST)['gpus']] == [
        '0000:3b:00.0', '0000:d8:00.0']
