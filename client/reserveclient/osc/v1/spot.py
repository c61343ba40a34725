"""openstack reserve device reservation release/reclaim and device
attach/detach (API microversion 1.4): spot devices."""
from osc_lib.command import command
from osc_lib import exceptions

from reserveclient.osc import utils
from reserveclient.osc.v1 import base
from reserveclient.osc.v1 import devices as device_cmds
from reserveclient.v1 import devices as devices_api

SHOW_FIELDS = ('id', 'status', 'host', 'device_ids',
               'released_device_ids', 'domains', 'attachments', 'start',
               'end')


def device_ids(client, reservation_id, refs):
    """The IDs of the reservation's devices ``refs`` names (ID or PCI
    address); a ref that is none of them is refused."""
    reservation = client.device_reservations.get(reservation_id)
    devices = reservation.get('devices') or reservation.get('units') or []
    found = []
    for ref in refs:
        matches = [d['id'] for d in devices
                   if ref in (d.get('id'), d.get('pci_address'))]
        if not matches:
            raise exceptions.CommandError(
                '%s is not a device of device reservation %s' % (
                    ref, reservation_id))
        found.append(matches[0])
    return found


def _add_reservation_argument(parser):
    parser.add_argument('reservation', metavar='<reservation>',
                        help='Device reservation (ID)')


class ReleaseDevices(base.ReserveCommand, command.ShowOne):
    """Put devices of an active device reservation on the spot market
    (none of its domains may be using them); they stay the reservation's
    and can be reclaimed at any time."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        _add_reservation_argument(parser)
        parser.add_argument(
            'devices', metavar='<device>', nargs='+',
            help='Device of the reservation to release (ID or PCI '
                 'address; several may be given)')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        ids = device_ids(client, parsed_args.reservation,
                         parsed_args.devices)
        return utils.show_fields(
            client.device_reservations.release(parsed_args.reservation,
                                               ids), SHOW_FIELDS)


class ReclaimDevices(base.ReserveCommand, command.Lister):
    """Take devices a device reservation lent out back from the spot
    domains using them (all it lent unless devices are given). With
    --dry-run, only list what it would terminate and skip."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        _add_reservation_argument(parser)
        parser.add_argument(
            'devices', metavar='<device>', nargs='*',
            help='Device to reclaim (ID or PCI address; default: every '
                 'device it lent out)')
        parser.add_argument(
            '--dry-run', action='store_true', default=False,
            help='Only say which spot domains it would terminate; change '
                 'nothing')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        ids = device_ids(client, parsed_args.reservation,
                         parsed_args.devices) if parsed_args.devices \
            else None
        answer = client.device_reservations.reclaim(
            parsed_args.reservation, ids, dry_run=parsed_args.dry_run)
        if parsed_args.dry_run:
            verbs = ('would terminate', 'would skip')
            lists = (answer.get('would_terminate'),
                     answer.get('would_skip'))
        else:
            verbs = ('terminated', 'skipped')
            lists = (answer.get('terminated'), answer.get('skipped'))
        rows = [(e.get('device_id'), e.get('domain'), verbs[0],
                 e.get('project_id')) for e in lists[0] or []]
        rows += [(e.get('device_id'), e.get('domain'), verbs[1],
                  e.get('reason')) for e in lists[1] or []]
        return ('Device ID', 'Domain', 'Action', 'Project or Reason'), rows


class _SpotDeviceCommand(base.ReserveCommand, command.ShowOne):

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        device_cmds.add_device_arguments(parser)
        parser.add_argument(
            '--domain', metavar='<domain>', required=True,
            help=self._domain_help)
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        device = client.devices.find(parsed_args.device,
                                     host=parsed_args.host,
                                     version=devices_api.SPOT_VERSION)
        shown = self._act(client, device['id'], parsed_args.domain)
        return utils.show_fields(shown, device_cmds.SHOW_FIELDS)


class AttachSpotDevice(_SpotDeviceCommand):
    """Attach a device on the spot market to a domain of the project (a
    spot domain), until the device reservation that lent it reclaims it."""

    _domain_help = 'Domain of the project to attach it to (libvirt name)'

    def _act(self, client, device_id, domain):
        return client.devices.attach_spot(device_id, domain)


class DetachSpotDevice(_SpotDeviceCommand):
    """Give a spot device back before any reclaim: detach it from the
    project's spot domain (the domain keeps running); it is on the spot
    market again."""

    _domain_help = 'The spot domain that holds it (libvirt name)'

    def _act(self, client, device_id, domain):
        return client.devices.detach_spot(device_id, domain)
