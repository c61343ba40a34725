"""openstack reserve allocation list"""
from osc_lib.command import command

from reserveclient.osc import utils
from reserveclient.osc.v1 import base
from reserveclient.v1 import names

# The columns shown; --long adds the rest (the lease reservation's ID
# among them), whatever the server returns.
COLUMNS = ('host', 'booking_id', 'lease_id', 'amount', 'start', 'end',
           'status')


class ListAllocation(base.ReserveCommand, command.Lister):
    """List which hosts back which reservations.

    Booking ID is the ID of the reservation as "openstack reserve
    reservation create" gave it; with --long, Lease Reservation ID is the
    reservation inside its lease (also the reserved flavor's ID). Amount
    is what the allocation holds on its host. Administrators see the
    allocations of every project, others those of their own project's
    leases.
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--host', metavar='<host>',
            help='Only allocations on this host (name or ID)')
        parser.add_argument(
            '--reservation-id', metavar='<reservation-id>',
            help='Only allocations of this lease reservation (its '
                 'lease_reservation_id, which is also the reserved flavor '
                 'ID)')
        parser.add_argument(
            '--lease', metavar='<lease>',
            help='Only allocations of this lease (ID)')
        parser.add_argument(
            '--long', action='store_true',
            help='Every field (host, lease reservation and project IDs, '
                 'resource type, times)')
        utils.add_paging_arguments(parser, 'allocations')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        host_id = None
        if parsed_args.host:
            host_id = client.hosts.get(parsed_args.host)['id']
        items = client.allocations.list(
            limit=parsed_args.limit, marker=parsed_args.marker,
            host_id=host_id,
            lease_reservation_id=parsed_args.reservation_id,
            lease_id=parsed_args.lease)
        # Count before API 1.2.
        keys = [names.name(client.http, names.ALLOCATION, k)
                for k in COLUMNS]
        if parsed_args.long:
            keys += sorted({k for i in items for k in i} - set(keys))
        return utils.list_rows(items, [(utils.heading(k), k) for k in keys])
