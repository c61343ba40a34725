"""openstack reserve reservation create/list/show/set/delete"""
import logging
import re
import shlex
import time

from osc_lib.command import command
from osc_lib import exceptions

from reserveclient import exceptions as rc_exceptions
from reserveclient.osc import utils
from reserveclient.osc.v1 import base
from reserveclient.osc.v1 import series
from reserveclient.v1 import names

LOG = logging.getLogger(__name__)

STATUSES = ('PENDING_CREATE', 'ALLOCATED', 'ACTIVE', 'COMPLETE', 'ERROR',
            'STANDBY', 'LAPSED')
PENDING = 'PENDING_CREATE'
STANDBY = 'STANDBY'

# create --wait: how long to wait for the lease (seconds) and how often
# to look. Building it takes the worker a few seconds; a minute or more
# means it is down or stuck.
WAIT_TIMEOUT = 300
POLL_INTERVAL = 2

# compute_flavor: the name of reserved_flavor_id before API 1.2 (shown
# beside it in 1.1); missing_capacity and delivery: from 1.3;
# shared_project_ids: from 1.9.
SHOW_FIELDS = ('id', 'project_id', 'user_id', 'flavor_id', 'instance_count',
               'start', 'end', 'status', 'status_reason',
               'missing_capacity', 'lease_id', 'reserved_flavor_id',
               'compute_flavor', 'shared_project_ids', 'delivery',
               'standby_since', 'standby_until', 'created_at', 'updated_at')


def _show(item):
    return utils.show_fields(item, SHOW_FIELDS)


class CreateReservation(base.ReserveCommand, command.ShowOne):
    """Book a flavor for a time window.

    The booking is accepted (PENDING_CREATE) at once when there is room; it
    becomes ALLOCATED when its lease is built, which gives it its lease_id
    and reserved_flavor_id (the flavor to boot), and ACTIVE at its start.
    --wait waits for that.

    With --recurrence the window repeats (API 1.7): every occurrence is
    booked as a reservation of its own, all or none (or, with
    --as-many-as-fit, those that fit), and the series is shown.
    With --standby, a window that does not fit is not refused: the
    reservation waits (STANDBY), holding nothing, and is admitted
    (PENDING_CREATE, with a mail) as soon as a cancellation, an earlier
    end or new capacity makes room, the earlier requests first; it
    LAPSES (with a mail) at its start, or at --standby-until.
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--flavor', metavar='<flavor>',
            help='Flavor to book (name or ID); required unless --offer')
        parser.add_argument(
            '--start', metavar='<date>', type=utils.parse_date,
            help='Start of the reservation (required unless --offer): ' +
                 utils.DATE_HELP)
        parser.add_argument(
            '--end', metavar='<date>', type=utils.parse_date,
            help='End of the reservation (required unless --offer): ' +
                 utils.DATE_HELP)
        parser.add_argument(
            '--offer', metavar='<offer>',
            help='Book this offer of "openstack reserve offer list" as it '
                 'is (API 1.10): its flavor, window and instances, so none '
                 'of --flavor, --start, --end and --instance-count')
        parser.add_argument(
            '--instance-count', metavar='<count>', type=utils.positive_int,
            help='Number of instances to book (default: 1)')
        parser.add_argument(
            '--standby', action='store_true', default=False,
            help='When the window does not fit, wait for room (STANDBY) '
                 'instead of being refused: admitted automatically when '
                 'room frees, the earlier requests first (API 1.8)')
        parser.add_argument(
            '--standby-until', metavar='<date>', type=utils.parse_date,
            help='With --standby, lapse at this time if still waiting '
                 '(default: at the start): ' + utils.DATE_HELP)
        parser.add_argument(
            '--share', metavar='<project>', action='append', default=[],
            dest='shares',
            help='Let this project (name or ID) boot the reserved flavor '
                 'too while the reservation runs (repeat for more, up to '
                 '100; API 1.9)')
        parser.add_argument(
            '--wait', action='store_true', default=False,
            help='Wait until the reservation leaves PENDING_CREATE (its '
                 'lease is built: ALLOCATED, with lease_id and '
                 'reserved_flavor_id) and show it then; fail if it goes '
                 'to ERROR')
        parser.add_argument(
            '--wait-timeout', metavar='<seconds>', type=utils.positive_int,
            help='With --wait (implied), give up after <seconds> '
                 '(default: %d)' % WAIT_TIMEOUT)
        series.add_create_arguments(parser)
        return parser

    def take_action(self, parsed_args):
        if parsed_args.recurrence is not None:
            return series.create(self, parsed_args)
        if parsed_args.as_many_as_fit:
            raise exceptions.CommandError(
                '--as-many-as-fit is for a series: give --recurrence too')
        if parsed_args.standby_until and not parsed_args.standby:
            raise exceptions.CommandError(
                '--standby-until is the deadline of a reservation on '
                'standby: give it with --standby')
        client = base.reserve_client(self)
        _check_shape_or_offer(parsed_args)
        # The API takes the flavor's name or id.
        try:
            if parsed_args.offer:
                booking = client.offers.book(
                    parsed_args.offer,
                    shared_project_ids=[base.resolve_project(self, p)
                                        for p in parsed_args.shares])
            else:
                booking = client.reservations.create(
                    parsed_args.flavor, parsed_args.start, parsed_args.end,
                    instance_count=parsed_args.instance_count,
                    standby=parsed_args.standby,
                    standby_until=parsed_args.standby_until,
                    shared_project_ids=[base.resolve_project(self, p)
                                        for p in parsed_args.shares])
        except rc_exceptions.Conflict as exc:
            if exc.counter_offer is None:
                raise
            raise exceptions.CommandError(refusal_message(
                exc, parsed_args.flavor or exc.counter_offer.get(
                    'flavor_id'), parsed_args.start,
                parsed_args.end)) from None
        timeout = parsed_args.wait_timeout
        if booking.get('status') == STANDBY:
            self.app.stderr.write(
                'No room now: the reservation waits on standby until %s, '
                'and is admitted (you get a mail) when room frees: '
                'openstack reserve reservation show %s\n' % (
                    booking.get('standby_until') or booking.get('start'),
                    booking['id']))
        elif parsed_args.wait or timeout is not None:
            booking = wait_for_allocation(
                client, booking, self.app.stderr,
                WAIT_TIMEOUT if timeout is None else timeout)
        elif booking.get('status') == PENDING:
            self.app.stderr.write(
                'lease_id and %s appear once it is ALLOCATED: openstack '
                'reserve reservation show %s\n' % (names.name(
                    client.http, names.RESERVATION, 'reserved_flavor_id'),
                    booking['id']))
        return _show(booking)


def _check_shape_or_offer(parsed_args):
    """Either an offer, alone, or a flavor, a start and an end."""
    shape = {'--flavor': parsed_args.flavor, '--start': parsed_args.start,
             '--end': parsed_args.end,
             '--instance-count': parsed_args.instance_count,
             '--standby': parsed_args.standby or None}
    if parsed_args.offer:
        given = [name for name, value in shape.items() if value is not None]
        if given:
            raise exceptions.CommandError(
                'An offer fixes the flavor, the window and the instances: '
                'give --offer alone, not with %s' % ', '.join(given))
        return
    missing = [name for name, value in list(shape.items())[:3]
               if value is None]
    if missing:
        raise exceptions.CommandError(
            'Give %s (or --offer, an offer of openstack reserve offer '
            'list)' % ', '.join(missing))


# The API's pointer for REST users, which the CLI says with its commands.
_REST_POINTER = re.compile(r'\s*GET /v1/flavors/\S+/free-slots lists the '
                           r'windows that fit\.')


def refusal_message(error, flavor, start=None, end=None):
    """A capacity refusal with its counter offer (API 1.6), worded for
    the command line: the commands that book each window offered, the
    one that books as many instances as fit in the window asked
    (``start`` to ``end``, unknown when an offer was booked), and the
    one that lists every window."""
    offer = error.counter_offer
    count = offer.get('instance_count') or 1
    flavor = shlex.quote(flavor)
    more = ' --instance-count %d' % count if count != 1 else ''
    lines = [_REST_POINTER.sub('', error.detail or 'No capacity.')]
    for side, word in (('before', 'earlier'), ('after', 'later')):
        window = offer.get(side)
        if window:
            lines.append(
                '  the %s window: openstack reserve reservation create '
                '--flavor %s --start %s --end %s%s' % (
                    word, flavor, window['start'], window['end'], more))
    most = offer.get('max_instance_count')
    if start and end and most and most < count:
        lines.append(
            '  the most that fit then (%d): openstack reserve reservation '
            'create --flavor %s --start %s --end %s%s' % (
                most, flavor, start, end,
                ' --instance-count %d' % most if most != 1 else ''))
    lines.append('  every window that fits: openstack reserve flavor '
                 'free-slots %s%s' % (flavor, more))
    return error.worded('\n'.join(lines))


def later_end_message(error, reservation):
    """A refused later end with its counter offer (API 1.6), worded for
    the command line: the command that moves it as late as it fits."""
    lines = [_REST_POINTER.sub('', error.detail or 'No capacity.')]
    latest = error.counter_offer.get('latest_end')
    if latest:
        lines.append('  as late as it fits: openstack reserve reservation '
                     'set %s --end %s' % (shlex.quote(reservation), latest))
    return error.worded('\n'.join(lines))


class _Progress:
    """One line on stderr: rewritten in place on a terminal; elsewhere
    (a log, a pipe) written again only when the status changes."""

    def __init__(self, stream):
        self.stream = stream
        try:
            self.tty = stream.isatty()
        except (AttributeError, ValueError):
            self.tty = False
        self.width = 0
        self.last = None

    def show(self, text, key):
        if self.tty:
            self.stream.write('\r%s' % text.ljust(self.width))
            self.width = max(self.width, len(text))
        elif key != self.last:
            self.stream.write(text + '\n')
        self.last = key
        self.stream.flush()

    def end(self, text):
        if self.tty:
            self.stream.write('\r%s\n' % text.ljust(self.width))
        else:
            self.stream.write(text + '\n')
        self.stream.flush()


def wait_for_allocation(client, booking, stream, timeout,
                        interval=POLL_INTERVAL):
    """Poll a booking until it leaves PENDING_CREATE; the booking then.

    Progress goes to ``stream``. A booking that goes to ERROR, or is
    still pending after ``timeout`` seconds, is a CommandError (the
    command exits non-zero) that says why and how to look again.
    """
    booking_id = booking['id']
    started = time.monotonic()
    progress = _Progress(stream)
    while booking.get('status') == PENDING:
        waited = time.monotonic() - started
        if waited >= timeout:
            progress.end('Reservation %s: still %s after %ds' % (
                booking_id, PENDING, waited))
            raise exceptions.CommandError(
                'Reservation %s is still %s after %d seconds: its lease is '
                'not built yet (is reserve-worker running?). The '
                'reservation stays; look again with: openstack reserve '
                'reservation show %s' % (booking_id, PENDING, timeout,
                                         booking_id))
        progress.show('Reservation %s: %s, waiting for its lease (%ds)' % (
            booking_id, booking.get('status'), waited),
            booking.get('status'))
        time.sleep(max(0, min(interval, timeout - waited)))
        try:
            booking = client.reservations.get(booking_id)
        except rc_exceptions.ConnectionFailed as exc:
            # The API restarting is no reason to give up the wait.
            LOG.warning('%s; trying again', exc)
    status = booking.get('status')
    progress.end('Reservation %s: %s after %ds' % (
        booking_id, status, time.monotonic() - started))
    if status == 'ERROR':
        raise exceptions.CommandError(
            'Reservation %s went to ERROR: %s' % (
                booking_id, booking.get('status_reason')
                or 'no reason given'))
    return booking


class ListReservation(base.ReserveCommand, command.Lister):
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
            help='Show more columns (the flavor ID, status reason, lease '
                 'ID and reserved flavor ID)')
        utils.add_paging_arguments(parser, 'reservations')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        project_id = base.resolve_project(self, parsed_args.project)
        items = client.reservations.list(
            all_projects=parsed_args.all_projects, project_id=project_id,
            flavor_id=parsed_args.flavor, status=parsed_args.status,
            limit=parsed_args.limit, marker=parsed_args.marker)
        catalogue = flavor_names(client) if items else {}
        for item in items:
            # The catalogue flavor by name; its ID if the list lacks it.
            item['flavor'] = catalogue.get(item.get('flavor_id'),
                                           item.get('flavor_id'))
        fields = [('ID', 'id')]
        if parsed_args.all_projects or project_id or parsed_args.long:
            fields.append(('Project ID', 'project_id'))
        fields += [('Flavor', 'flavor'),
                   ('Instance Count', 'instance_count'),
                   ('Start', 'start'), ('End', 'end'), ('Status', 'status')]
        if parsed_args.long:
            fields += [('Flavor ID', 'flavor_id'),
                       ('Status Reason', 'status_reason'),
                       ('Lease ID', 'lease_id'),
                       utils.renamed_column(
                           client, names.RESERVATION, 'reserved_flavor_id',
                           'Reserved Flavor ID', 'Compute Flavor')]
        return utils.list_rows(items, fields)


def flavor_names(client):
    """{catalogue flavor ID: name}, from one listing of the catalogue
    ({} if it cannot be read: the IDs are shown then)."""
    try:
        return {f['id']: f.get('name') or f['id']
                for f in client.flavors.list()}
    except rc_exceptions.ReserveClientError as exc:
        LOG.debug('Flavor names not available (%s); showing IDs', exc)
        return {}


class ShowReservation(base.ReserveCommand, command.ShowOne):
    """Show a reservation."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('reservation', metavar='<reservation>',
                            help='Reservation ID')
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        return _show(client.reservations.get(parsed_args.reservation))


class SetReservation(base.ReserveCommand, command.Command):
    """Change the end of a reservation (extend or shorten it), or the
    projects it is shared with while it lives."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('reservation', metavar='<reservation>',
                            help='Reservation ID')
        parser.add_argument(
            '--end', metavar='<date>', type=utils.parse_date,
            help='New end of the reservation: ' + utils.DATE_HELP)
        parser.add_argument(
            '--share', metavar='<project>', action='append', default=[],
            dest='shares',
            help='Let this project (name or ID) boot the reserved flavor '
                 'too (repeat for more; API 1.9)')
        parser.add_argument(
            '--unshare', metavar='<project>', action='append', default=[],
            dest='unshares',
            help='Stop sharing the reservation with this project (name or '
                 'ID; repeat for more): it boots no new server of the '
                 'flavor (API 1.9)')
        parser.add_argument(
            '--no-share', action='store_true', default=False,
            help='Share the reservation with no project any more (with '
                 '--share: with those alone)')
        return parser

    def take_action(self, parsed_args):
        sharing = (parsed_args.shares or parsed_args.unshares or
                   parsed_args.no_share)
        if parsed_args.end is None and not sharing:
            raise exceptions.CommandError(
                'Nothing to change: give --end <date>, --share <project> '
                'or --unshare <project>')
        client = base.reserve_client(self)
        if sharing:
            change_shares(self, client, parsed_args)
        if parsed_args.end is None:
            return
        try:
            client.reservations.update(parsed_args.reservation,
                                       parsed_args.end)
        except rc_exceptions.Conflict as exc:
            if exc.counter_offer is None:
                raise
            raise exceptions.CommandError(
                later_end_message(exc, parsed_args.reservation)) from None


def change_shares(command, client, parsed_args):
    """The shares set asks for: one call per project, so that two
    commands at once each keep what the other did (--no-share sets the
    whole list)."""
    rsv = parsed_args.reservation
    shares = [base.resolve_project(command, p) for p in parsed_args.shares]
    unshares = [base.resolve_project(command, p)
                for p in parsed_args.unshares]
    both = sorted(set(shares) & set(unshares))
    if both:
        raise exceptions.CommandError(
            'Project %s is both shared and unshared' % ', '.join(both))
    if parsed_args.no_share:
        client.reservations.set_shared_projects(rsv, shares)
        return
    for project_id in shares:
        client.reservations.share(rsv, project_id)
    for project_id in unshares:
        client.reservations.unshare(rsv, project_id)


class DeleteReservation(base.ReserveCommand, command.Command):
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
