"""openstack reserve reservation create/list/show/set/delete"""
from osc_lib.command import command
from osc_lib import exceptions

from reserveclient.osc import utils
from reserveclient.osc.v1 import base

STATUSES = ('PENDING_CREATE', 'ALLOCATED', 'ACTIVE', 'COMPLETE', 'ERROR')

SHOW_FIELDS = ('id', 'project_id', 'user_id', 'flavor_id', 'instance_count',
               'start', 'end', 'status', 'status_reason', 'lease_id',
               'compute_flavor', 'created_at', 'updated_at')


def _show(item):
    return utils.show_fields(item, SHOW_FIELDS)


class CreateReservation(command.ShowOne):
    """Book a flavor for a time window.

    The booking is accepted (PENDING_CREATE) at once when there is room; it
    becomes ALLOCATED when its lease is built and ACTIVE at its start.
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--flavor', metavar='<flavor>', required=True,
            help='Flavor to book (name or ID)')
        parser.add_argument(
            '--start', metavar='<date>', required=True,
            type=utils.parse_date,
            help='Start of the reservation: ' + utils.DATE_HELP)
        parser.add_argument(
            '--end', metavar='<date>', required=True,
            type=utils.parse_date,
            help='End of the reservation: ' + utils.DATE_HELP)
        parser.add_argument(
            '--instance-count', metavar='<count>', type=utils.positive_int,
            help='Number of instances to book (default: 1)')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        # The API takes the flavor's name or id.
        booking = client.reservations.create(
            parsed_args.flavor, parsed_args.start, parsed_args.end,
            instance_count=parsed_args.instance_count)
        return _show(booking)


class ListReservation(command.Lister):
    """List reservations (of your project unless told otherwise)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--all-projects', action='store_true', default=False,
            help='List the reservations of every project (admin)')
        parser.add_argument(
            '--project', metavar='<project>',
            help='List the reservations of this project (name or ID; '
                 'admin for projects other than yours)')
        parser.add_argument(
            '--flavor', metavar='<flavor>',
            help='Only reservations of this flavor (name or ID)')
        parser.add_argument(
            '--status', metavar='<status>', choices=STATUSES,
            help='Only reservations in this status (%s)' %
                 ', '.join(STATUSES))
        parser.add_argument(
            '--long', action='store_true', default=False,
            help='Show more columns')
        utils.add_paging_arguments(parser, 'reservations')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        project_id = base.resolve_project(self, parsed_args.project)
        items = client.reservations.list(
            all_projects=parsed_args.all_projects, project_id=project_id,
            flavor_id=parsed_args.flavor, status=parsed_args.status,
            limit=parsed_args.limit, marker=parsed_args.marker)
        fields = [('ID', 'id')]
        if parsed_args.all_projects or project_id or parsed_args.long:
            fields.append(('Project ID', 'project_id'))
        fields += [('Flavor ID', 'flavor_id'),
                   ('Instance Count', 'instance_count'),
                   ('Start', 'start'), ('End', 'end'), ('Status', 'status')]
        if parsed_args.long:
            fields += [('Status Reason', 'status_reason'),
                       ('Lease ID', 'lease_id'),
                       ('Compute Flavor', 'compute_flavor')]
        return utils.list_rows(items, fields)


class ShowReservation(command.ShowOne):
    """Show a reservation."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('reservation', metavar='<reservation>',
                            help='Reservation ID')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        return _show(client.reservations.get(parsed_args.reservation))


class SetReservation(command.Command):
    """Change the end of a reservation (extend or shorten it)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('reservation', metavar='<reservation>',
                            help='Reservation ID')
        parser.add_argument(
            '--end', metavar='<date>', type=utils.parse_date,
            help='New end of the reservation: ' + utils.DATE_HELP)
        return parser

    def take_action(self, parsed_args):
        if parsed_args.end is None:
            raise exceptions.CommandError(
                'Nothing to change: give --end <date>')
        client = base.reserve_client(self)
        client.reservations.update(parsed_args.reservation, parsed_args.end)


class DeleteReservation(command.Command):
    """Cancel or delete reservations.

    A pending, allocated or active reservation is cancelled: its lease and
    instances are torn down and it stays listed as COMPLETE. One that is
    already over (COMPLETE or ERROR) is removed.
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('reservations', metavar='<reservation>',
                            nargs='+', help='Reservation ID(s)')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        base.delete_all(self, parsed_args.reservations, 'reservation',
                        client.reservations.delete)
