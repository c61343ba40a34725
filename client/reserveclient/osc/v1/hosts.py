"""openstack reserve host create/list/show/set/delete"""
from osc_lib.command import command
from osc_lib import exceptions

from reserveclient.osc import utils
from reserveclient.osc.v1 import base

# failure and failed_at: from API 1.3.
SHOW_FIELDS = ('id', 'name', 'service_name', 'kind', 'provider_uuid',
               'vcpus', 'memory_mb', 'local_gb', 'reservable', 'properties',
               'gpus', 'gpu_source', 'uri', 'topology_generation',
               'refreshed_at', 'refresh_error', 'failure', 'failed_at',
               'created_at', 'updated_at')


def _show(host):
    host = dict(host)
    # The API calls them capabilities; the CLI sets them with --property.
    host['properties'] = host.pop('capabilities', None) or {}
    return utils.show_fields(host, SHOW_FIELDS,
                             {'properties': utils.DictColumn})


def _add_reservable_arguments(parser, create):
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        '--reservable', dest='reservable', action='store_true',
        default=None,
        help='New reservations may use the host%s' %
             (' (default)' if create else ''))
    group.add_argument(
        '--not-reservable', dest='reservable', action='store_false',
        help='New reservations may not use the host (existing ones keep '
             'it)')


class CreateHost(base.ReserveCommand, command.ShowOne):
    """Enroll a hypervisor for reservations (admin)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'name', metavar='<name>',
            help='Hypervisor host name, as nova knows it (with --uri: '
                 'any name for the libvirt host)')
        parser.add_argument(
            '--uri', metavar='<uri>',
            help='Enroll a GPU host run without nova, through libvirt at '
                 'this URI (qemu+tls://<host>/system, qemu+ssh://...)')
        parser.add_argument(
            '--property', metavar='<key=value>', dest='properties',
            action='append', type=utils.key_value, default=[],
            help='Capability of the host that flavors can match on '
                 '(repeat for several)')
        _add_reservable_arguments(parser, create=True)
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        host = client.hosts.create(
            parsed_args.name, capabilities=dict(parsed_args.properties),
            reservable=parsed_args.reservable, uri=parsed_args.uri)
        return _show(host)


class ListHost(base.ReserveCommand, command.Lister):
    """List the hosts enrolled for reservations (admin)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        group = parser.add_mutually_exclusive_group()
        group.add_argument(
            '--reservable', dest='reservable', action='store_true',
            default=None, help='Only hosts new reservations may use')
        group.add_argument(
            '--not-reservable', dest='reservable', action='store_false',
            help='Only hosts taken out of new reservations')
        parser.add_argument(
            '--long', action='store_true', default=False,
            help='Show more columns')
        utils.add_paging_arguments(parser, 'hosts')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        items = client.hosts.list(reservable=parsed_args.reservable,
                                  limit=parsed_args.limit,
                                  marker=parsed_args.marker)
        fields = [('ID', 'id'), ('Name', 'name'), ('Kind', 'kind'),
                  ('vCPUs', 'vcpus'), ('Memory MB', 'memory_mb'),
                  ('Reservable', 'reservable')]
        formatters = {}
        if parsed_args.long:
            fields += [('Service Name', 'service_name'),
                       ('Local GB', 'local_gb'),
                       ('Provider UUID', 'provider_uuid'),
                       ('Properties', 'capabilities')]
            formatters['capabilities'] = utils.DictColumn
        return utils.list_rows(items, fields, formatters)


class ShowHost(base.ReserveCommand, command.ShowOne):
    """Show an enrolled host (admin)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('host', metavar='<host>',
                            help='Host (name or ID)')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        return _show(client.hosts.get(parsed_args.host))


class SetHost(base.ReserveCommand, command.Command):
    """Change the properties of a host or whether it is reservable."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('host', metavar='<host>',
                            help='Host (name or ID)')
        parser.add_argument(
            '--property', metavar='<key=value>', dest='properties',
            action='append', type=utils.key_value, default=[],
            help='Add or change a property (repeat for several)')
        parser.add_argument(
            '--unset-property', metavar='<key>', dest='unset_properties',
            action='append', default=[],
            help='Remove a property (repeat for several)')
        _add_reservable_arguments(parser, create=False)
        return parser

    def take_action(self, parsed_args):
        capabilities = dict(parsed_args.properties)
        for key in parsed_args.unset_properties:
            if key in capabilities:
                raise exceptions.CommandError(
                    'Property %r is both set and unset' % key)
            capabilities[key] = None
        if not capabilities and parsed_args.reservable is None:
            raise exceptions.CommandError(
                'Nothing to change: give --property, --unset-property, '
                '--reservable or --not-reservable')
        client = base.reserve_client(self)
        client.hosts.update(parsed_args.host, capabilities=capabilities,
                            reservable=parsed_args.reservable)


class DeleteHost(base.ReserveCommand, command.Command):
    """Take hosts out of the reservation service (admin)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('hosts', metavar='<host>', nargs='+',
                            help='Host(s) (name or ID)')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        base.delete_all(self, parsed_args.hosts, 'host',
                        client.hosts.delete)
