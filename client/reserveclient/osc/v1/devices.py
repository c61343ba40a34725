"""openstack reserve device list/show"""
from osc_lib.command import command

from reserveclient.osc import utils
from reserveclient.osc.v1 import base
from reserveclient.v1 import names

STATES = ('available', 'reserved', 'in-use', 'missing', 'spot')

# reservation_id: the name of device_reservation_id before API 1.2
# (shown beside it in 1.1).
SHOW_FIELDS = ('id', 'host', 'host_id', 'pci_address', 'node_device',
               'model', 'vendor_id', 'vendor_name', 'product_id',
               'product_name', 'numa_node', 'iommu_group',
               'iommu_group_members', 'state', 'device_reservation_id',
               'reservation_id', 'driver', 'mdev_types', 'mdevs',
               'in_use_by', 'sriov', 'address', 'pci_class', 'created_at',
               'updated_at')


def add_host_argument(parser, help_text):
    parser.add_argument('--host', metavar='<host>', help=help_text)


def add_device_arguments(parser):
    """The <device> a command names, and --host to tell a PCI address
    apart."""
    parser.add_argument(
        'device', metavar='<device>',
        help='GPU device: ID, PCI address (0000:3b:00.0) or node device '
             'name (pci_0000_3b_00_0)')
    add_host_argument(parser, 'Host of the device (name or ID), when a '
                              'PCI address is not unique')


class ListDevice(base.ReserveCommand, command.Lister):
    """List the GPU devices of the libvirt hosts."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        add_host_argument(parser, 'Only the devices of this host (name or ID)')
        parser.add_argument(
            '--model', metavar='<model>',
            help='Only devices of this model (e.g. "A100 SXM4 80GB", or '
                 '<vendor_id>:<product_id>)')
        parser.add_argument(
            '--state', metavar='<state>', choices=STATES,
            help='Only devices in this state (%s)' % ', '.join(STATES))
        parser.add_argument(
            '--numa-node', metavar='<node>', type=utils.non_negative_int,
            help='Only devices on this NUMA node')
        parser.add_argument(
            '--spot', action='store_true', default=False,
            help='Only the devices on the spot market: lent out by a '
                 'device reservation (API 1.4)')
        parser.add_argument(
            '--long', action='store_true', default=False,
            help='Show more columns')
        utils.add_paging_arguments(parser, 'devices')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        items = client.devices.list(
            host=parsed_args.host, model=parsed_args.model,
            state=parsed_args.state, numa_node=parsed_args.numa_node,
            spot=parsed_args.spot, limit=parsed_args.limit,
            marker=parsed_args.marker)
        fields = [('ID', 'id'), ('Host', 'host'),
                  ('PCI Address', 'pci_address'), ('Model', 'model'),
                  ('NUMA Node', 'numa_node'), ('State', 'state')]
        formatters = {}
        if parsed_args.long:
            fields += [utils.renamed_column(
                           client, names.DEVICE, 'device_reservation_id',
                           'Device Reservation ID', 'Reservation ID'),
                       ('IOMMU Group', 'iommu_group'),
                       ('Driver', 'driver'), ('mdev Types', 'mdev_types')]
            formatters['mdev_types'] = utils.ListColumn
        return utils.list_rows(items, fields, formatters)


class ShowDevice(base.ReserveCommand, command.ShowOne):
    """Show a GPU device."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        add_device_arguments(parser)
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        device = client.devices.find(parsed_args.device,
                                     host=parsed_args.host)
        return utils.show_fields(device, SHOW_FIELDS)
