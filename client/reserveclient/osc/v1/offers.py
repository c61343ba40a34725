"""openstack reserve offer list (API microversion 1.10): windows in which
a booking of a shape is admitted now, each bookable as is with
``openstack reserve reservation create --offer <id>`` until it lapses."""
from osc_lib.command import command

from reserveclient.osc import utils
from reserveclient.osc.v1 import base

LENGTH_HELP = ('an ISO 8601 duration (PT4H, P1DT2H, P2W) or a number of '
               'hours (4, 1.5)')
SORTS = ('start', 'hosts')
COLUMNS = (('ID', 'id'), ('Flavor', 'flavor_name'),
           ('Instances', 'instance_count'), ('Start', 'start'),
           ('End', 'end'), ('Hosts', 'hosts'), ('Expires', 'expires_at'))


def _is_length(text):
    """Whether --latest-start gives a length (the API reads it) rather
    than a date (read here, as every date of the CLI)."""
    text = text.strip().upper()
    return text.startswith('P') or text.replace('.', '', 1).isdigit()


class ListOffer(base.ReserveCommand, command.Lister):
    """Search offers: windows to book a flavor in.

    Each row is a window in which --count instances of the flavor, for
    --duration, starting between --earliest-start and --latest-start,
    are admitted now. Book one as it is, until it expires (a few
    minutes), with: openstack reserve reservation create --offer <id>.
    An offer holds nothing meanwhile: another booking may take its
    window first.
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('--flavor', metavar='<flavor>', required=True,
                            help='Flavor (name or ID)')
        parser.add_argument(
            '--duration', metavar='<length>', required=True,
            help='How long each offer is: ' + LENGTH_HELP)
        parser.add_argument(
            '--count', metavar='<count>', type=utils.positive_int,
            help='Instances (default: 1)')
        parser.add_argument(
            '--earliest-start', metavar='<date>', type=utils.parse_date,
            help='Start no sooner than this (default: now): ' +
                 utils.DATE_HELP)
        parser.add_argument(
            '--latest-start', metavar='<date or length>',
            help='Start no later than this date, or this long after the '
                 'earliest start: %s (default: 14 days)' % LENGTH_HELP)
        parser.add_argument(
            '--any-flavor-with', metavar='gpu_model',
            choices=('gpu_model',),
            help='Also offer every flavor whose instances ask for the same '
                 'GPUs (gpu_model)')
        parser.add_argument(
            '--sort', metavar='<key>', choices=SORTS,
            help='start (default): the earliest first; hosts: the fewest '
                 'hosts first (the most contiguous), then the earliest')
        parser.add_argument(
            '--limit', metavar='<count>', type=utils.positive_int,
            help='At most this many offers (default: 10; at most 50)')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        latest = parsed_args.latest_start
        if latest is not None and not _is_length(latest):
            latest = utils.parse_date(latest)
        found = client.offers.list(
            parsed_args.flavor, parsed_args.duration,
            count=parsed_args.count,
            earliest_start=parsed_args.earliest_start,
            latest_start=latest,
            any_flavor_with=parsed_args.any_flavor_with,
            sort=parsed_args.sort, limit=parsed_args.limit)
        return utils.list_rows(found, COLUMNS)
