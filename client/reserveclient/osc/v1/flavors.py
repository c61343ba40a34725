"""openstack reserve flavor ...: the reservable flavor catalogue, access
to private flavors and the availability calendar.

The API finds a flavor by its id or its name everywhere, so names typed
by users are passed on as they are.
"""
from osc_lib.command import command
from osc_lib import exceptions

from reserveclient.osc import utils
from reserveclient.osc.v1 import base
from reserveclient.osc.v1 import flavor_fields


class CreateFlavor(base.ReserveCommand, command.ShowOne):
    """Add a flavor to the reservable catalogue (admin)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'name', metavar='<name>',
            help='Name users book the flavor by (not a UUID)')
        flavor_fields.add_field_arguments(parser, create=True)
        parser.add_argument(
            '--project', metavar='<project>', dest='projects',
            action='append', default=[],
            help='Grant this project access to the (private) flavor '
                 '(name or ID; repeat for several)')
        return parser

    def take_action(self, parsed_args):
        if parsed_args.slots is None and not parsed_args.spot:
            raise exceptions.CommandError(
                '--slots is required, but for a spot flavor (--spot), '
                'which is never booked')
        client = base.reserve_client(self)
        body = flavor_fields.request_body(parsed_args)
        if parsed_args.projects:
            body['projects'] = [base.resolve_project(self, p)
                                for p in parsed_args.projects]
        return flavor_fields.show(
            client.flavors.create(name=parsed_args.name, **body))


class ListFlavor(base.ReserveCommand, command.Lister):
    """List the reservable flavors you may book (admins see all)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--category', metavar='<category>',
            help='Only flavors of this category')
        parser.add_argument(
            '--availability-zone', metavar='<zone>',
            help='Only flavors of this availability zone')
        public = parser.add_mutually_exclusive_group()
        public.add_argument(
            '--public', dest='is_public', action='store_true', default=None,
            help='Only public flavors')
        public.add_argument(
            '--private', dest='is_public', action='store_false',
            help='Only private flavors')
        active = parser.add_mutually_exclusive_group()
        active.add_argument(
            '--enabled', dest='active', action='store_true', default=None,
            help='Only flavors that can be booked')
        active.add_argument(
            '--disabled', dest='active', action='store_false',
            help='Only disabled flavors (admin)')
        parser.add_argument(
            '--long', action='store_true', default=False,
            help='Show more columns')
        utils.add_paging_arguments(parser, 'flavors')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        filters = {'category': parsed_args.category,
                   'availability_zone': parsed_args.availability_zone}
        for name in ('is_public', 'active'):
            value = getattr(parsed_args, name)
            if value is not None:
                filters[name] = 'true' if value else 'false'
        items = client.flavors.list(limit=parsed_args.limit,
                                    marker=parsed_args.marker, **filters)
        fields = [('ID', 'id'), ('Name', 'name'),
                  ('Nova Flavor ID', 'nova_flavor_id'), ('Slots', 'slots'),
                  ('Max Length Hours', 'max_length_hours'),
                  ('Is Public', 'is_public'), ('Active', 'active')]
        formatters = {}
        if parsed_args.long:
            fields += [('Start', 'start'), ('End', 'end'),
                       ('Category', 'category'),
                       ('Availability Zone', 'availability_zone'),
                       ('Description', 'description')]
            if any('projects' in item for item in items):
                fields.append(('Projects', 'projects'))
                formatters['projects'] = utils.ListColumn
        return utils.list_rows(items, fields, formatters)


class ShowFlavor(base.ReserveCommand, command.ShowOne):
    """Show a reservable flavor."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('flavor', metavar='<flavor>',
                            help='Flavor (name or ID)')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        return flavor_fields.show(client.flavors.get(parsed_args.flavor))


class SetFlavor(base.ReserveCommand, command.Command):
    """Change a reservable flavor (admin)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('flavor', metavar='<flavor>',
                            help='Flavor (name or ID)')
        parser.add_argument('--name', metavar='<name>', help='New name')
        flavor_fields.add_field_arguments(parser, create=False)
        return parser

    def take_action(self, parsed_args):
        body = flavor_fields.request_body(parsed_args)
        if parsed_args.name is not None:
            body['name'] = parsed_args.name
        if not body:
            raise exceptions.CommandError(
                'Nothing to change: give at least one option')
        client = base.reserve_client(self)
        client.flavors.update(parsed_args.flavor, **body)


class DeleteFlavor(base.ReserveCommand, command.Command):
    """Remove flavors from the reservable catalogue (admin).

    A flavor that reservations refer to cannot be deleted: disable it
    instead (openstack reserve flavor set --disable).
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('flavors', metavar='<flavor>', nargs='+',
                            help='Flavor(s) (name or ID)')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        base.delete_all(self, parsed_args.flavors, 'flavor',
                        client.flavors.delete)


class GrantFlavorAccess(base.ReserveCommand, command.Command):
    """Let projects book a private flavor (admin)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('flavor', metavar='<flavor>',
                            help='Flavor (name or ID)')
        parser.add_argument('projects', metavar='<project>', nargs='+',
                            help='Project(s) (name or ID)')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        failures = []
        for ref in parsed_args.projects:
            try:
                client.flavors.grant_access(
                    parsed_args.flavor, base.resolve_project(self, ref))
            except Exception as exc:  # noqa: BLE001 - report all
                failures.append('%s: %s' % (ref, exc))
        if failures:
            raise exceptions.CommandError(
                'Failed to grant access to %d of %d projects:\n%s' % (
                    len(failures), len(parsed_args.projects),
                    '\n'.join(failures)))


class RevokeFlavorAccess(base.ReserveCommand, command.Command):
    """Stop projects from booking a private flavor (admin).

    Their existing reservations stay.
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('flavor', metavar='<flavor>',
                            help='Flavor (name or ID)')
        parser.add_argument('projects', metavar='<project>', nargs='+',
                            help='Project(s) (name or ID)')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        failures = []
        for ref in parsed_args.projects:
            try:
                client.flavors.revoke_access(
                    parsed_args.flavor, base.resolve_project(self, ref))
            except Exception as exc:  # noqa: BLE001 - report all
                failures.append('%s: %s' % (ref, exc))
        if failures:
            raise exceptions.CommandError(
                'Failed to revoke access of %d of %d projects:\n%s' % (
                    len(failures), len(parsed_args.projects),
                    '\n'.join(failures)))


class ListFlavorAccess(base.ReserveCommand, command.Lister):
    """List the projects granted a private flavor (admin)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('flavor', metavar='<flavor>',
                            help='Flavor (name or ID)')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        flavor = client.flavors.get(parsed_args.flavor)
        grants = client.flavors.list_access(flavor['id'])
        rows = [{'flavor_id': flavor['id'], 'flavor': flavor['name'],
                 'project_id': grant.get('project_id')} for grant in grants]
        return utils.list_rows(rows, [('Flavor ID', 'flavor_id'),
                                      ('Flavor', 'flavor'),
                                      ('Project ID', 'project_id')])


class _SpotOptCommand(base.ReserveCommand, command.Command):

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('flavor', metavar='<flavor>',
                            help='Spot flavor (name or ID)')
        parser.add_argument(
            '--project', metavar='<project>',
            help='Another project than yours (name or ID; admin)')
        return parser

    def _project(self, parsed_args):
        return base.resolve_project(self, parsed_args.project)


class OptInFlavor(_SpotOptCommand):
    """Opt your project in to a spot flavor: it may then boot the spot
    flavor's nova flavor, whose servers run on idle reserved GPUs and are
    taken back when those are needed (API 1.4)."""

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        client.flavors.opt_in(parsed_args.flavor,
                              self._project(parsed_args))


class OptOutFlavor(_SpotOptCommand):
    """Opt your project out of a spot flavor: its access to the nova
    flavor is taken away (API 1.4)."""

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        client.flavors.opt_out(parsed_args.flavor,
                               self._project(parsed_args))


class FlavorFreeSlots(base.ReserveCommand, command.Lister):
    """List the windows in which a flavor can still be booked.

    Each row is a window in which the asked number of instances fits
    from its start to its end; a reservation fits when it lies inside
    one (and is no longer than the flavor allows).
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('flavor', metavar='<flavor>',
                            help='Flavor (name or ID)')
        parser.add_argument(
            '--start', metavar='<date>', type=utils.parse_date,
            help='Look from this moment (default: now): ' + utils.DATE_HELP)
        parser.add_argument(
            '--end', metavar='<date>', type=utils.parse_date,
            help='Look until this moment (default: the server\'s [booking] '
                 'free_slots_default_days after the start): ' +
                 utils.DATE_HELP)
        parser.add_argument(
            '--instance-count', metavar='<count>', type=utils.positive_int,
            help='Windows with room for this many instances (default: 1)')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        doc = client.flavors.free_slots(
            parsed_args.flavor, start=parsed_args.start, end=parsed_args.end,
            instance_count=parsed_args.instance_count)
        return utils.list_rows(doc.get('free_slots') or [],
                               [('Start', 'start'), ('End', 'end')])


class FlavorAvailability(base.ReserveCommand, command.Lister):
    """Show how many instances of each flavor are free.

    Without a window: free now. With --start and --end: the fewest free
    at any moment of the window. A server that speaks API 1.4 also tells,
    in the Spot column, how many instances of each spot flavor the GPUs
    lent now still hold.
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--start', metavar='<date>', type=utils.parse_date,
            help='Start of the window (with --end): ' + utils.DATE_HELP)
        parser.add_argument(
            '--end', metavar='<date>', type=utils.parse_date,
            help='End of the window (with --start): ' + utils.DATE_HELP)
        parser.add_argument(
            '--flavor', metavar='<flavor>', dest='flavors', action='append',
            default=[],
            help='Only this flavor (name or ID; repeat for several)')
        parser.add_argument(
            '--category', metavar='<category>',
            help='Only flavors of this category')
        parser.add_argument(
            '--availability-zone', metavar='<zone>',
            help='Only flavors of this availability zone')
        parser.add_argument(
            '--long', action='store_true', default=False,
            help='Show more columns')
        return parser

    def take_action(self, parsed_args):
        if (parsed_args.start is None) != (parsed_args.end is None):
            raise exceptions.CommandError(
                '--start and --end go together: give both for a window, '
                'or neither for now')
        client = base.reserve_client(self)
        doc = client.flavors.availability(
            start=parsed_args.start, end=parsed_args.end,
            category=parsed_args.category,
            availability_zone=parsed_args.availability_zone)
        rows = doc.get('availability') or []
        if parsed_args.flavors:
            wanted = set(parsed_args.flavors)
            rows = [r for r in rows
                    if r.get('flavor_id') in wanted or r.get('name') in wanted]
            missing = wanted - {r.get('flavor_id') for r in rows} - {
                r.get('name') for r in rows}
            if missing:
                raise exceptions.CommandError(
                    'No flavor you may see has the name or ID %s' %
                    ', '.join(sorted(missing)))
        fields = [('Flavor ID', 'flavor_id'), ('Name', 'name'),
                  ('Total', 'total'), ('Available', 'available')]
        if client.flavors.shows_spot():
            fields.append(('Spot', 'spot_available'))
        if parsed_args.long:
            fields += [('Slots', 'slots'), ('GPUs', 'gpus'),
                       ('Nova Flavor ID', 'nova_flavor_id'),
                       ('Category', 'category'),
                       ('Availability Zone', 'availability_zone'),
                       ('Active', 'active')]
        return utils.list_rows(rows, fields, {'gpus': utils.DictColumn})
