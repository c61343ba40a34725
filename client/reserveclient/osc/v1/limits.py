"""openstack reserve limits show"""
from cliff import columns
from osc_lib.command import command

from reserveclient.osc import utils
from reserveclient.osc.v1 import base


class LimitColumn(columns.FormattableColumn):
    """A limit: -1 reads 'unlimited' in a table (stays -1 in json)."""

    def human_readable(self):
        if self._value is not None and self._value < 0:
            return 'unlimited'
        return str(self._value)

    def machine_readable(self):
        return self._value


class ShowLimits(base.ReserveCommand, command.Lister):
    """Show the reservation limits of a project and what it uses of them.

    reservations counts live reservations (PENDING_CREATE, ALLOCATED,
    ACTIVE); instance_hours is instance count x started hours of each.
    device_reservations counts live device reservations, device_hours is
    devices x started hours of each (unit_reservations and unit_hours
    before API 1.2).
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--project', metavar='<project>',
            help='Project to show (name or ID; default: yours; admin for '
                 'other projects)')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        project_id = base.resolve_project(self, parsed_args.project)
        limits = client.limits.get(project_id=project_id)
        rows = []
        for name, entry in sorted((limits.get('resources') or {}).items()):
            limit = entry.get('limit')
            in_use = entry.get('in_use')
            remaining = None
            if limit is not None and in_use is not None:
                remaining = -1 if limit < 0 else max(limit - in_use, 0)
            rows.append({'resource': name, 'limit': limit,
                         'in_use': in_use, 'remaining': remaining,
                         'project_id': limits.get('project_id')})
        return utils.list_rows(
            rows, [('Resource', 'resource'), ('Limit', 'limit'),
                   ('In Use', 'in_use'), ('Remaining', 'remaining'),
                   ('Project ID', 'project_id')],
            {'limit': LimitColumn, 'remaining': LimitColumn})
