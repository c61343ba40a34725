"""openstack reserve host domain owner list/show/set/delete (admin)

The project that owns each domain of a libvirt host not run by nova:
GPU devices of a reservation go only into domains of its projects. A host
run by nova needs none (nova's metadata names each domain's owner).
"""
from osc_lib.command import command

from reserveclient import exceptions as rc_exceptions
from reserveclient.osc import utils
from reserveclient.osc.v1 import base

SHOW_FIELDS = ('host_id', 'domain', 'project_id', 'created_at',
               'updated_at')


def _host_argument(parser):
    parser.add_argument('host', metavar='<host>',
                        help='libvirt host (name or ID)')


class ListDomainOwner(base.ReserveCommand, command.Lister):
    """List the owners recorded for a libvirt host's domains (admin)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        _host_argument(parser)
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        return utils.list_rows(
            client.domain_owners.list(parsed_args.host),
            [('Domain', 'domain'), ('Project', 'project_id'),
             ('Updated At', 'updated_at')])


class ShowDomainOwner(base.ReserveCommand, command.ShowOne):
    """Show the owner recorded for a domain (admin)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        _host_argument(parser)
        parser.add_argument('domain', metavar='<domain>',
                            help='libvirt domain name')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        return utils.show_fields(
            client.domain_owners.get(parsed_args.host, parsed_args.domain),
            SHOW_FIELDS)


class SetDomainOwner(base.ReserveCommand, command.ShowOne):
    """Record (or change) the project that owns a domain (admin)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        _host_argument(parser)
        parser.add_argument('domain', metavar='<domain>',
                            help='libvirt domain name (it may not exist '
                                 'yet)')
        parser.add_argument('--project', metavar='<project-id>',
                            required=True,
                            help='The owning project (its ID)')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        owners = client.domain_owners
        try:
            found = owners.create(parsed_args.host, parsed_args.domain,
                                  parsed_args.project)
        except rc_exceptions.Conflict:
            found = owners.update(parsed_args.host, parsed_args.domain,
                                  parsed_args.project)
        return utils.show_fields(found, SHOW_FIELDS)


class DeleteDomainOwner(base.ReserveCommand, command.Command):
    """Forget the owners of domains: only administrators' reservations
    may then give them devices (admin)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        _host_argument(parser)
        parser.add_argument('domains', metavar='<domain>', nargs='+',
                            help='libvirt domain name(s)')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        base.delete_all(
            self, parsed_args.domains, 'domain owner',
            lambda domain: client.domain_owners.delete(parsed_args.host,
                                                       domain))
