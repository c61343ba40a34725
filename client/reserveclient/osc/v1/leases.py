"""openstack reserve lease list/show"""
from osc_lib.command import command

from reserveclient.osc import utils
from reserveclient.osc.v1 import base

STATUSES = ('CREATING', 'PENDING', 'STARTING', 'ACTIVE', 'TERMINATING',
            'TERMINATED', 'DELETING', 'ERROR')

SHOW_FIELDS = ('id', 'name', 'project_id', 'user_id', 'start', 'end',
               'status', 'status_reason', 'degraded', 'reservations',
               'events', 'created_at', 'updated_at')

FORMATTERS = {
    'reservations': utils.LeaseReservationsColumn,
    'events': utils.EventsColumn,
}


class ListLease(base.ReserveCommand, command.Lister):
    """List leases (of your project unless told otherwise)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--all-projects', action='store_true', default=False,
            help='List the leases of every project (admin)')
        parser.add_argument(
            '--project', metavar='<project>',
            help='List the leases of this project (name or ID)')
        parser.add_argument(
            '--status', metavar='<status>', choices=STATUSES,
            help='Only leases in this status (%s)' % ', '.join(STATUSES))
        parser.add_argument(
            '--long', action='store_true', default=False,
            help='Show more columns')
        utils.add_paging_arguments(parser, 'leases')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        project_id = base.resolve_project(self, parsed_args.project)
        items = client.leases.list(
            all_projects=parsed_args.all_projects, project_id=project_id,
            status=parsed_args.status, limit=parsed_args.limit,
            marker=parsed_args.marker)
        fields = [('ID', 'id'), ('Name', 'name')]
        if parsed_args.all_projects or project_id or parsed_args.long:
            fields.append(('Project ID', 'project_id'))
        fields += [('Start', 'start'), ('End', 'end'), ('Status', 'status')]
        formatters = {}
        if parsed_args.long:
            fields += [('Degraded', 'degraded'),
                       ('Status Reason', 'status_reason'),
                       ('Reservations', 'reservations')]
            formatters['reservations'] = ReservationIdsColumn
        return utils.list_rows(items, fields, formatters)


class ReservationIdsColumn(utils.ListColumn):
    """The reservations of a lease as their ids (full dicts in json)."""

    def human_readable(self):
        return ', '.join(r.get('id', '') for r in self._value or [])

    def machine_readable(self):
        return [dict(r) for r in self._value or []]


class ShowLease(base.ReserveCommand, command.ShowOne):
    """Show a lease with its reservations, allocations and events."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'lease', metavar='<lease>',
            help='Lease ID or name, or the ID of the reservation (booking) '
                 'it serves, or of a reservation inside it (the reserved '
                 'flavor ID)')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        lease = client.leases.find(parsed_args.lease)
        return utils.show_fields(lease, SHOW_FIELDS, FORMATTERS)
