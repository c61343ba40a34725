"""Options telling reserve which flavor extra specs ask for GPUs.

Flavor bookings count GPUs against each host's GPUs, so reserve must read
a flavor the way nova does: ``pci_passthrough:alias`` names aliases that
only the operator's configuration maps to devices (the same JSON as
nova's ``[pci] alias``), and a PCI device reported to placement under an
operator-chosen resource class is a GPU only if the operator says so.
"""
from oslo_config import cfg

pci_group = cfg.OptGroup(
    'pci', title='PCI aliases',
    help='The PCI aliases flavors name in pci_passthrough:alias, as nova '
         'knows them: copy the [pci] alias lines of nova.conf here.')

pci_opts = [
    cfg.MultiStrOpt(
        'alias', default=[],
        sample_default=['{"name": "a100", "vendor_id": "10de", '
                        '"product_id": "20b0", "device_type": "type-PCI"}'],
        help='A PCI alias, as a JSON object with "name", "vendor_id" and '
             '"product_id" (and optionally "device_type", "numa_policy" '
             'and "resource_class", as in nova). Repeat the option for '
             'several aliases; entries sharing a name match any of their '
             'devices. A flavor asking pci_passthrough:alias=<name>:<n> '
             'needs n such devices per instance, counted against the '
             'placement class CUSTOM_PCI_<VENDOR>_<PRODUCT> (or the '
             'alias\'s resource_class) of each host.'),
]

gpu_group = cfg.OptGroup(
    'gpu', title='GPU capacity of flavor bookings',
    help='How flavor bookings count GPUs against the hosts\' GPUs.')

gpu_opts = [
    cfg.ListOpt(
        'resource_classes', default=[],
        sample_default='CUSTOM_A100,CUSTOM_NVIDIA_T4',
        help='Placement resource classes, besides VGPU, PGPU and '
             'CUSTOM_PCI_*, that are GPUs: the classes the operator set '
             'with resource_class in nova\'s [pci] device_spec. A flavor '
             'asking resources:<class>=<n> for one of them is counted '
             'against each host\'s inventory of that class.'),
    cfg.StrOpt(
        'source', default='placement',
        choices=[('placement', 'a host\'s GPUs are its provider tree\'s '
                               'GPU inventories; pci_passthrough:alias '
                               'names a [pci] alias'),
                 ('aggregates', 'the de.NBI flavor exporter\'s '
                                'convention: a host\'s GPUs are the '
                                'metadata gpu=True, gpu_count=<n>, '
                                'gpu_type=<alias> of its nova aggregates, '
                                'and pci_passthrough:alias=<alias>:<n> '
                                'asks n of gpu_type <alias>')],
        help='Where the capacity record of a nova host (read by the '
             'manager\'s capacity refresh) takes the host\'s GPUs from, '
             'and how a flavor\'s pci_passthrough:alias is counted '
             'against them. With aggregates, [pci] alias is not used: an '
             'alias matches the aggregates whose gpu_type has its name; '
             'the vCPUs, memory and disk still come from placement, and '
             'GPUs used by servers other than reserve\'s are not seen '
             '(placement does not track passthrough devices there).'),
]


def register_opts(conf):
    conf.register_group(pci_group)
    conf.register_opts(pci_opts, group=pci_group)
    conf.register_group(gpu_group)
    conf.register_opts(gpu_opts, group=gpu_group)


def list_opts():
    return {pci_group: pci_opts, gpu_group: gpu_opts}
