"""openstack reserve device reservation create/list/show/set/affirm/cancel"""
from osc_lib.command import command
from osc_lib import exceptions

from reserveclient import exceptions as rc_exceptions
from reserveclient.osc import utils
from reserveclient.osc.v1 import base
from reserveclient.osc.v1 import device_refusals
from reserveclient.osc.v1 import devices
from reserveclient.v1 import names

STATUSES = ('pending', 'active', 'expired', 'cancelled', 'needs-review')

# unit_ids and units: the names of device_ids and devices before API 1.2;
# missing_capacity: from 1.3; released_device_ids: from 1.4.
SHOW_FIELDS = ('id', 'status', 'status_reason', 'missing_capacity', 'host',
               'host_id', 'project_id', 'user_id', 'allowed_projects',
               'managing_projects', 'device_ids', 'unit_ids',
               'released_device_ids', 'devices', 'units', 'mdev_type',
               'start', 'end', 'domains', 'attachments', 'contract_ref',
               'reason', 'request', 'lease_id', 'topology_generation',
               'released_at', 'created_at', 'updated_at')

DRY_RUN_FIELDS = ('fits', 'reason', 'host', 'host_id', 'device_ids',
                  'unit_ids', 'devices', 'units', 'start', 'end',
                  'attachments')


class DevicesColumn(utils.ListColumn):
    """Devices of a reservation, one 'pci_address model (NUMA n)' a line."""

    def human_readable(self):
        return '\n'.join(
            '%s %s (NUMA %s)' % (u.get('pci_address'), u.get('model'),
                                 u.get('numa_node'))
            for u in self._value or [])


class AttachmentsColumn(utils.ListColumn):
    """Attachments, one 'domain: pci_address kind state' a line."""

    def human_readable(self):
        lines = []
        for a in self._value or []:
            line = '%s: %s %s' % (a.get('domain'), a.get('pci_address'),
                                  a.get('kind'))
            if a.get('state'):
                line += ' %s' % a['state']
            lines.append(line)
        return '\n'.join(lines)


FORMATTERS = {'devices': DevicesColumn, 'units': DevicesColumn,
              'attachments': AttachmentsColumn}


def _show(item, fields=SHOW_FIELDS):
    return utils.show_fields(item, fields, FORMATTERS)


def _projects(command_, refs):
    return [base.resolve_project(command_, ref) for ref in refs]


def _add_project_arguments(parser, create):
    parser.add_argument(
        '--allowed-project', metavar='<project>', dest='allowed_projects',
        action='append', default=[],
        help='Project that may use the devices (name or ID; repeat for '
             'several%s)' % ('; default: yours' if create else
                             '; replaces the list'))
    parser.add_argument(
        '--managing-project', metavar='<project>',
        dest='managing_projects', action='append', default=[],
        help='Project that may also act on the reservation (name or ID; '
             'repeat for several%s)' % ('' if create else
                                        '; replaces the list'))


def _add_note_arguments(parser):
    parser.add_argument(
        '--contract-ref', metavar='<reference>',
        help='Reference of the agreement the devices are reserved under')
    parser.add_argument(
        '--reason', metavar='<text>', help='Why the devices are reserved')


class CreateDeviceReservation(base.ReserveCommand, command.ShowOne):
    """Reserve GPU devices of a libvirt host for a set of projects.

    Name the devices (--device) or ask for a number of devices of a model
    (--count and --model). The reservation starts now unless --start is
    given and is open-ended (until cancelled) unless --end is given.
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        what = parser.add_mutually_exclusive_group(required=True)
        what.add_argument(
            '--device', metavar='<device>', dest='devices', action='append',
            help='GPU device to reserve: ID, PCI address or node device name '
                 '(repeat for several)')
        what.add_argument(
            '--count', metavar='<count>', type=utils.positive_int,
            help='Number of devices to reserve (with --model)')
        parser.add_argument(
            '--model', metavar='<model>',
            help='Model of the devices to reserve, with --count (e.g. '
                 '"A100 SXM4 80GB")')
        devices.add_host_argument(
            parser, 'Host to take the devices from (name or ID)')
        parser.add_argument(
            '--numa-local', action='store_true', default=False,
            help='All devices on one NUMA node (with --count)')
        parser.add_argument(
            '--mdev-type', metavar='<type>',
            help='Reserve a mediated device (vGPU) slice of this type '
                 'instead of whole devices (e.g. nvidia-222)')
        _add_project_arguments(parser, create=True)
        parser.add_argument(
            '--start', metavar='<date>', type=utils.parse_date,
            help='Start (default: now): ' + utils.DATE_HELP)
        parser.add_argument(
            '--end', metavar='<date>', type=utils.parse_date,
            help='End (default: none, until cancelled): ' + utils.DATE_HELP)
        parser.add_argument(
            '--domain', metavar='<domain>', dest='domains',
            action='append', default=[],
            help='libvirt domain to attach the devices to at the start '
                 '(repeat for several)')
        _add_note_arguments(parser)
        parser.add_argument(
            '--dry-run', action='store_true', default=False,
            help='Only say whether and which devices would fit; reserve '
                 'nothing')
        return parser

    def take_action(self, parsed_args):
        if parsed_args.count and not parsed_args.model:
            raise exceptions.CommandError('--count needs --model')
        if parsed_args.devices and (parsed_args.model or
                                    parsed_args.numa_local):
            raise exceptions.CommandError(
                '--model and --numa-local go with --count, not --device')
        client = base.reserve_client(self)
        device_ids = None
        if parsed_args.devices:
            device_ids = [client.devices.find(ref, host=parsed_args.host)['id']
                          for ref in parsed_args.devices]
        # The manager sends them under the names of the version spoken.
        values = dict(
            device_ids=device_ids, device_count=parsed_args.count,
            model=parsed_args.model, host=parsed_args.host,
            numa_local=parsed_args.numa_local or None,
            mdev_type=parsed_args.mdev_type,
            allowed_projects=_projects(self, parsed_args.allowed_projects)
            or None,
            managing_projects=_projects(self, parsed_args.managing_projects)
            or None,
            start=parsed_args.start, end=parsed_args.end,
            domains=parsed_args.domains or None,
            contract_ref=parsed_args.contract_ref,
            reason=parsed_args.reason)
        if parsed_args.dry_run:
            answer = client.device_reservations.create(dry_run=True,
                                                       **values)
            return _show(answer, DRY_RUN_FIELDS)
        try:
            return _show(client.device_reservations.create(**values))
        except rc_exceptions.Conflict as exc:
            if exc.counter_offer is None:
                raise
            raise exceptions.CommandError(device_refusals.refusal_message(
                exc, parsed_args)) from None


class ListDeviceReservation(base.ReserveCommand, command.Lister):
    """List device reservations (those of your project unless told
    otherwise)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--all-projects', action='store_true', default=False,
            help='List the reservations of every project (admin)')
        parser.add_argument(
            '--project', metavar='<project>',
            help='List the reservations of this project (name or ID; admin '
                 'for projects other than yours)')
        parser.add_argument(
            '--status', metavar='<status>', choices=STATUSES,
            help='Only reservations in this status (%s)' %
                 ', '.join(STATUSES))
        devices.add_host_argument(
            parser, 'Only reservations of devices of this host (name or ID)')
        parser.add_argument(
            '--long', action='store_true', default=False,
            help='Show more columns')
        utils.add_paging_arguments(parser, 'device reservations')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        items = client.device_reservations.list(
            all_projects=parsed_args.all_projects,
            project_id=base.resolve_project(self, parsed_args.project),
            status=parsed_args.status, host=parsed_args.host,
            limit=parsed_args.limit, marker=parsed_args.marker)
        ids = utils.renamed_column(client, names.DEVICE_RESERVATION,
                                   'device_ids', 'Device IDs', 'Units')
        fields = [('ID', 'id'), ('Host', 'host'), ids,
                  ('Start', 'start'), ('End', 'end'), ('Status', 'status')]
        formatters = {ids[1]: utils.ListColumn}
        if parsed_args.long:
            fields += [('Project ID', 'project_id'),
                       ('Allowed Projects', 'allowed_projects'),
                       ('Domains', 'domains'),
                       ('Contract Ref', 'contract_ref'),
                       ('Status Reason', 'status_reason')]
            formatters.update(allowed_projects=utils.ListColumn,
                              domains=utils.ListColumn)
        return utils.list_rows(items, fields, formatters)


class ShowDeviceReservation(base.ReserveCommand, command.ShowOne):
    """Show a device reservation."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('reservation', metavar='<reservation>',
                            help='Device reservation (ID)')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        return _show(client.device_reservations.get(parsed_args.reservation))


class SetDeviceReservation(base.ReserveCommand, command.ShowOne):
    """Change a device reservation: its end, projects, notes or the
    domains its devices are attached to."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('reservation', metavar='<reservation>',
                            help='Device reservation (ID)')
        end = parser.add_mutually_exclusive_group()
        end.add_argument(
            '--end', metavar='<date>', type=utils.parse_date,
            help='New end (administrators): ' + utils.DATE_HELP)
        end.add_argument(
            '--no-end', action='store_true', default=False,
            help='Make the reservation open-ended (administrators)')
        _add_project_arguments(parser, create=False)
        _add_note_arguments(parser)
        domains = parser.add_mutually_exclusive_group()
        domains.add_argument(
            '--domain', metavar='<domain>', dest='domains',
            action='append',
            help='Attach the devices to exactly these domains (repeat for '
                 'several; domains left out are detached)')
        domains.add_argument(
            '--no-domain', action='store_true', default=False,
            help='Detach the devices from every domain')
        return parser

    def take_action(self, parsed_args):
        values = {}
        if parsed_args.end:
            values['end'] = parsed_args.end
        elif parsed_args.no_end:
            values['end'] = None
        if parsed_args.allowed_projects:
            values['allowed_projects'] = _projects(
                self, parsed_args.allowed_projects)
        if parsed_args.managing_projects:
            values['managing_projects'] = _projects(
                self, parsed_args.managing_projects)
        for name in ('contract_ref', 'reason'):
            if getattr(parsed_args, name) is not None:
                values[name] = getattr(parsed_args, name)
        domains = None
        if parsed_args.domains is not None:
            domains = parsed_args.domains
        elif parsed_args.no_domain:
            domains = []
        if not values and domains is None:
            raise exceptions.CommandError(
                'Nothing to change: give --end, --no-end, --allowed-project, '
                '--managing-project, --contract-ref, --reason, --domain or '
                '--no-domain')
        client = base.reserve_client(self)
        manager = client.device_reservations
        item = None
        # The API takes the domains on their own.
        if values:
            try:
                item = manager.update(parsed_args.reservation, **values)
            except rc_exceptions.Conflict as exc:
                if exc.counter_offer is None:
                    raise
                raise exceptions.CommandError(
                    device_refusals.later_end_message(
                        exc, parsed_args.reservation)) from None
        if domains is not None:
            item = manager.update(parsed_args.reservation, domains=domains)
        return _show(item)


class AffirmDeviceReservation(base.ReserveCommand, command.ShowOne):
    """Re-affirm a reservation left in needs-review after its host's GPU
    topology changed (admin)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('reservation', metavar='<reservation>',
                            help='Device reservation (ID)')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        return _show(client.device_reservations.affirm(
            parsed_args.reservation))


class CancelDeviceReservation(base.ReserveCommand, command.Command):
    """Cancel device reservations: their devices are detached and given
    back (one that is over is removed)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('reservations', metavar='<reservation>',
                            nargs='+', help='Device reservation(s) (ID)')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        base.delete_all(self, parsed_args.reservations, 'device reservation',
                        client.device_reservations.cancel)
