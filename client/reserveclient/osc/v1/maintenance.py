"""openstack reserve maintenance window create/list/show/set/delete

A maintenance window closes some flavors (or all of them) for a time: no
reservation of those flavors may overlap it.
"""
from cliff import columns
from osc_lib.command import command
from osc_lib import exceptions

from reserveclient.osc import utils
from reserveclient.osc.v1 import base

SHOW_FIELDS = ('id', 'start', 'end', 'note', 'all_flavors', 'flavors',
               'created_at', 'updated_at')


class FlavorsColumn(columns.FormattableColumn):
    """The flavors a window closes; 'all' when it closes every flavor."""

    def __init__(self, value, all_flavors=False):
        super().__init__(value)
        self.all_flavors = all_flavors

    def human_readable(self):
        if self.all_flavors:
            return 'all'
        return ', '.join(self._value or [])

    def machine_readable(self):
        return list(self._value or [])


def _show(window):
    keys, values = utils.show_fields(window, SHOW_FIELDS)
    values = tuple(
        FlavorsColumn(window.get('flavors'), window.get('all_flavors'))
        if key == 'flavors' else value for key, value in zip(keys, values))
    return keys, values


def _add_window_arguments(parser, create):
    parser.add_argument(
        '--start', metavar='<date>', type=utils.parse_date,
        required=create,
        help='Start of the maintenance: ' + utils.DATE_HELP)
    parser.add_argument(
        '--end', metavar='<date>', type=utils.parse_date, required=create,
        help='End of the maintenance: ' + utils.DATE_HELP)
    parser.add_argument(
        '--note', metavar='<text>',
        help='What the maintenance is about')
    which = parser.add_mutually_exclusive_group(required=create)
    which.add_argument(
        '--flavor', metavar='<flavor>', dest='flavors', action='append',
        help='Flavor closed by the maintenance (name or ID; repeat for '
             'several%s)' % ('' if create else '; replaces the list'))
    which.add_argument(
        '--all-flavors', action='store_true', default=None,
        help='The maintenance closes every flavor')
    parser.add_argument(
        '--force', action='store_true', default=False,
        help='Even if live reservations overlap the window (they are not '
             'cancelled)')


def _body(parsed_args):
    body = {}
    for key in ('start', 'end', 'note'):
        value = getattr(parsed_args, key)
        if value is not None:
            body[key] = value
    if parsed_args.all_flavors:
        body['all_flavors'] = True
    elif parsed_args.flavors:
        body['flavors'] = parsed_args.flavors
        body['all_flavors'] = False
    if parsed_args.force:
        body['force'] = True
    return body


class CreateMaintenanceWindow(base.ReserveCommand, command.ShowOne):
    """Close flavors for a maintenance (admin)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        _add_window_arguments(parser, create=True)
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        body = _body(parsed_args)
        if body.get('all_flavors') is False:
            del body['all_flavors']
        return _show(client.maintenance_windows.create(**body))


class ListMaintenanceWindow(base.ReserveCommand, command.Lister):
    """List maintenance windows (those not over yet, unless --all)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--flavor', metavar='<flavor>',
            help='Only windows closing this flavor (name or ID)')
        parser.add_argument(
            '--all', dest='include_past', action='store_true',
            default=False, help='Include windows that are over')
        utils.add_paging_arguments(parser, 'maintenance windows')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        filters = {'flavor_id': parsed_args.flavor}
        if parsed_args.include_past:
            filters['include_past'] = 'true'
        items = client.maintenance_windows.list(
            limit=parsed_args.limit, marker=parsed_args.marker, **filters)
        fields = [('ID', 'id'), ('Start', 'start'), ('End', 'end'),
                  ('Flavors', 'flavors'), ('Note', 'note')]
        headings, rows = utils.list_rows(items, fields)
        rows = [tuple(FlavorsColumn(value, item.get('all_flavors'))
                      if heading == 'Flavors' else value
                      for heading, value in zip(headings, row))
                for item, row in zip(items, rows)]
        return headings, rows


class ShowMaintenanceWindow(base.ReserveCommand, command.ShowOne):
    """Show a maintenance window."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('window', metavar='<window>',
                            help='Maintenance window ID')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        return _show(client.maintenance_windows.get(parsed_args.window))


class SetMaintenanceWindow(base.ReserveCommand, command.Command):
    """Change a maintenance window (admin)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('window', metavar='<window>',
                            help='Maintenance window ID')
        _add_window_arguments(parser, create=False)
        return parser

    def take_action(self, parsed_args):
        body = _body(parsed_args)
        if not set(body) - {'force'}:
            raise exceptions.CommandError(
                'Nothing to change: give --start, --end, --note, --flavor '
                'or --all-flavors')
        client = base.reserve_client(self)
        client.maintenance_windows.update(parsed_args.window, **body)


class DeleteMaintenanceWindow(base.ReserveCommand, command.Command):
    """Delete maintenance windows (admin)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('windows', metavar='<window>', nargs='+',
                            help='Maintenance window ID(s)')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        base.delete_all(self, parsed_args.windows, 'maintenance window',
                        client.maintenance_windows.delete)
