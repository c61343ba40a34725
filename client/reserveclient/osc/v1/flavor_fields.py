"""What the flavor commands share: the fields shown, the options of
create and set, and the request body built from them."""
from osc_lib import exceptions

from reserveclient.osc import utils

SHOW_FIELDS = ('id', 'name', 'nova_flavor_id', 'description', 'slots',
               'gpus', 'gpu_slots', 'max_length_hours', 'active',
               'is_public', 'spot', 'opted_in', 'start', 'end', 'category',
               'availability_zone', 'projects', 'spot_project_ids',
               'created_at', 'updated_at')


def show(flavor):
    return utils.show_fields(flavor, SHOW_FIELDS)


def add_field_arguments(parser, create):
    """Options shared by create and set; set can also clear some."""
    parser.add_argument(
        '--nova-flavor', metavar='<nova-flavor>', dest='nova_flavor_id',
        required=create,
        help='ID of the nova flavor the reserved instances boot with'
             '%s' % ('' if create else ' (new value)'))
    parser.add_argument(
        '--slots', metavar='<count>', type=utils.non_negative_int,
        help='How many instances of the flavor can be reserved at the same '
             'time%s' % (' (required, but for a spot flavor)' if create
                         else ''))
    parser.add_argument(
        '--description', metavar='<text>',
        help='Description shown to users')
    parser.add_argument(
        '--max-length-hours', metavar='<hours>', type=utils.positive_int,
        help='Longest reservation allowed, in hours%s' %
             (' (default: the server\'s [booking] default_max_length_hours)'
              if create else ''))
    parser.add_argument(
        '--start', metavar='<date>', type=utils.parse_date,
        help='Reservations of the flavor may not start before this: ' +
             utils.DATE_HELP)
    parser.add_argument(
        '--end', metavar='<date>', type=utils.parse_date,
        help='Reservations of the flavor must end by this: ' +
             utils.DATE_HELP)
    parser.add_argument(
        '--category', metavar='<category>',
        help='Category the flavor is listed under')
    parser.add_argument(
        '--availability-zone', metavar='<zone>',
        help='Availability zone of the flavor')
    public = parser.add_mutually_exclusive_group()
    public.add_argument(
        '--public', dest='is_public', action='store_true', default=None,
        help='Every project may book the flavor%s' %
             (' (default)' if create else ''))
    public.add_argument(
        '--private', dest='is_public', action='store_false',
        help='Only projects granted access may book the flavor (see '
             '"openstack reserve flavor access grant")')
    active = parser.add_mutually_exclusive_group()
    active.add_argument(
        '--enable', dest='active', action='store_true', default=None,
        help='The flavor can be booked%s' % (' (default)' if create else ''))
    active.add_argument(
        '--disable', dest='active', action='store_false',
        help='No new reservations of the flavor; existing ones stay')
    spot = parser.add_mutually_exclusive_group()
    spot.add_argument(
        '--spot', dest='spot', action='store_true', default=None,
        help='A spot flavor: never booked; the projects that opt in '
             '("openstack reserve flavor opt-in") boot its nova flavor, '
             'which must be private and ask at least one GPU, on idle '
             'reserved GPUs until they are taken back (API 1.4)')
    if not create:
        spot.add_argument(
            '--no-spot', dest='spot', action='store_false',
            help='Not a spot flavor (API 1.4)')
    if not create:
        for option, what in (('--no-max-length-hours', 'the length limit'),
                             ('--no-start', 'the earliest start'),
                             ('--no-end', 'the latest end'),
                             ('--no-description', 'the description'),
                             ('--no-category', 'the category'),
                             ('--no-availability-zone',
                              'the availability zone')):
            parser.add_argument(
                option, action='store_true', default=False,
                dest='clear_' + option[5:].replace('-', '_'),
                help='Remove %s' % what)


BODY_KEYS = ('nova_flavor_id', 'slots', 'description', 'max_length_hours',
             'start', 'end', 'category', 'availability_zone', 'is_public',
             'active', 'spot')
CLEARABLE = ('max_length_hours', 'start', 'end', 'description', 'category',
             'availability_zone')


def request_body(parsed_args):
    body = {}
    for key in BODY_KEYS:
        value = getattr(parsed_args, key)
        if value is not None:
            body[key] = value
    for key in CLEARABLE:
        if getattr(parsed_args, 'clear_' + key, False):
            if key in body:
                raise exceptions.CommandError(
                    '--%s and --no-%s exclude each other' % (
                        key.replace('_', '-'), key.replace('_', '-')))
            body[key] = None
    return body
