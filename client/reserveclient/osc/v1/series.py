"""openstack reserve series show/list/delete (API microversion 1.7), and
what ``openstack reserve reservation create --recurrence`` shows: a
booking repeated by a recurrence rule, each occurrence a reservation of
its own."""
from cliff import columns
from osc_lib.command import command
from osc_lib import exceptions

from reserveclient import exceptions as rc_exceptions
from reserveclient.osc import utils
from reserveclient.osc.v1 import base

SHOW_FIELDS = ('id', 'project_id', 'user_id', 'flavor_id', 'instance_count',
               'recurrence', 'series_policy', 'start', 'end', 'occurrences',
               'refused', 'created_at', 'updated_at')

RECURRENCE_HELP = (
    'Repeat the booking: an iCalendar RRULE of FREQ=DAILY or WEEKLY, '
    'INTERVAL=<n>, COUNT=<n> or UNTIL=<date> (20270131 or '
    '20270131T090000Z) and, weekly, BYDAY=MO,TU,...; e.g. '
    '"FREQ=WEEKLY;COUNT=4". --start and --end are the first occurrence. '
    'Every occurrence is booked, or none')


class OccurrencesColumn(columns.FormattableColumn):
    """A series' occurrences, one a line: its window, status and
    reservation ID."""

    def human_readable(self):
        return '\n'.join('%s - %s  %s  %s' % (
            o.get('start'), o.get('end'), o.get('status'), o.get('id'))
            for o in self._value or [])

    def machine_readable(self):
        return self._value


class RefusedColumn(columns.FormattableColumn):
    """The occurrences that do not fit, one a line, with why."""

    def human_readable(self):
        return '\n'.join('%s - %s  %s: %s' % (
            o.get('start'), o.get('end'), o.get('code'), o.get('detail'))
            for o in self._value or [])

    def machine_readable(self):
        return self._value


FORMATTERS = {'occurrences': OccurrencesColumn, 'refused': RefusedColumn}


def show(series):
    return utils.show_fields(series, SHOW_FIELDS, FORMATTERS)


def add_create_arguments(parser):
    """reservation create's --recurrence and --as-many-as-fit."""
    parser.add_argument(
        '--recurrence', metavar='<rrule>', help=RECURRENCE_HELP)
    parser.add_argument(
        '--as-many-as-fit', action='store_true', default=False,
        help='With --recurrence: book the occurrences that fit and list '
             'those that do not, instead of booking none')


def refusal_message(error):
    """A series refused whole, with each occurrence that does not fit."""
    lines = [error.detail or 'The series does not fit.']
    for refused in error.occurrences or ():
        lines.append('  %s - %s: %s' % (refused.get('start'),
                                        refused.get('end'),
                                        refused.get('code')))
    lines.append('  book those that fit: add --as-many-as-fit')
    return error.worded('\n'.join(lines))


def create(command_, parsed_args):
    """reservation create --recurrence: the series, as show() has it."""
    if parsed_args.wait or parsed_args.wait_timeout is not None:
        raise exceptions.CommandError(
            '--wait is for one reservation: follow the occurrences of a '
            'series with openstack reserve series show <id>')
    client = base.reserve_client(command_)
    try:
        series = client.series.create(
            parsed_args.flavor, parsed_args.start, parsed_args.end,
            parsed_args.recurrence,
            instance_count=parsed_args.instance_count,
            as_many_as_fit=parsed_args.as_many_as_fit)
    except rc_exceptions.Conflict as exc:
        if exc.occurrences is None:
            raise
        raise exceptions.CommandError(refusal_message(exc)) from None
    return show(series)


class ShowSeries(base.ReserveCommand, command.ShowOne):
    """Show a series of reservations and the status of each occurrence
    (API 1.7)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('series', metavar='<series>', help='Series ID')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        return show(client.series.get(parsed_args.series))


class ListSeries(base.ReserveCommand, command.Lister):
    """List series of reservations (of your project unless told
    otherwise; API 1.7)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--all-projects', action='store_true', default=False,
            help='List the series of every project (admin)')
        parser.add_argument(
            '--project', metavar='<project>',
            help='List the series of this project (name or ID; admin for '
                 'projects other than yours)')
        utils.add_paging_arguments(parser, 'series')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        project_id = base.resolve_project(self, parsed_args.project)
        items = client.series.list(
            all_projects=parsed_args.all_projects, project_id=project_id,
            limit=parsed_args.limit, marker=parsed_args.marker)
        for item in items:
            item['booked'] = len(item.get('occurrences') or ())
            item['not_fitting'] = len(item.get('refused') or ())
        fields = [('ID', 'id')]
        if parsed_args.all_projects or project_id:
            fields.append(('Project ID', 'project_id'))
        fields += [('Flavor ID', 'flavor_id'),
                   ('Instance Count', 'instance_count'),
                   ('Recurrence', 'recurrence'), ('Start', 'start'),
                   ('Occurrences', 'booked'), ('Refused', 'not_fitting')]
        return utils.list_rows(items, fields)


class DeleteSeries(base.ReserveCommand, command.Command):
    """Cancel the occurrences of a series not yet ended (API 1.7).

    Every occurrence still pending, allocated or running is cancelled as
    "reservation delete" cancels one (a running one ends now); with
    --from, only that occurrence and those after it. One occurrence alone
    is cancelled with openstack reserve reservation delete <id>.
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('series', metavar='<series>', help='Series ID')
        parser.add_argument(
            '--from', metavar='<occurrence>', dest='from_occurrence',
            help='Cancel from this occurrence (its reservation ID) on')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        client.series.delete(parsed_args.series,
                             from_occurrence=parsed_args.from_occurrence)
