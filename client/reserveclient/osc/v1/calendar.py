"""openstack reserve calendar (API microversion 1.5): the bookings of a
flavor's slots, or of a host's rows, over a range of time, drawn as a
timeline in the terminal (:mod:`reserveclient.v1.timeline` draws it)."""
import argparse
import os
import shutil

from osc_lib.command import command

from reserveclient.osc import utils
from reserveclient.osc.v1 import base
from reserveclient.v1 import timeline


def width_arg(value):
    """--width: a number of columns, at least timeline.MIN_WIDTH."""
    number = utils.positive_int(value)
    if number < timeline.MIN_WIDTH:
        raise argparse.ArgumentTypeError(
            'the calendar needs at least %d columns, not %d' % (
                timeline.MIN_WIDTH, number))
    return number


def terminal_width():
    """The terminal's width, capped to timeline.MAX_WIDTH (which is also
    the width when there is no terminal)."""
    columns = shutil.get_terminal_size(
        fallback=(timeline.MAX_WIDTH, 24)).columns
    return max(min(columns, timeline.MAX_WIDTH), timeline.MIN_WIDTH)


def wants_colour(stream):
    """Colour on a terminal only, and not when NO_COLOR is set (to
    anything but nothing, as https://no-color.org says)."""
    isatty = getattr(stream, 'isatty', None)
    return bool(isatty and isatty()) and not os.environ.get('NO_COLOR')


class ShowCalendar(base.ReserveCommand, command.Command):
    """Draw the calendar of a flavor or of a host (API 1.5).

    One line per slot of the flavor (per GPU device of a libvirt host,
    per GPU or instance of a nova host), with its bookings and
    maintenance over the range, the time axis above, the fewest free in
    each column and the legend below. Your bookings show their status;
    other projects' show as busy (administrators see every status).
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        subject = parser.add_mutually_exclusive_group()
        subject.add_argument(
            '--flavor', metavar='<flavor>',
            help='The calendar of this flavor (name or ID)')
        subject.add_argument(
            '--host', metavar='<host>',
            help='The calendar of this host (name or ID)')
        parser.add_argument(
            '--start', metavar='<date>', type=utils.parse_date,
            help='Start of the range (default: now): ' + utils.DATE_HELP)
        parser.add_argument(
            '--end', metavar='<date>', type=utils.parse_date,
            help='End of the range (default: a week after the start; at '
                 'most 93 days after it): ' + utils.DATE_HELP)
        parser.add_argument(
            '--width', metavar='<columns>', type=width_arg,
            help='Width of the picture in columns (default: the '
                 'terminal\'s, at most %d; at least %d)' % (
                     timeline.MAX_WIDTH, timeline.MIN_WIDTH))
        return parser

    def take_action(self, parsed_args):
        client = base.reserve_client(self)
        calendar = client.calendar.get(
            flavor=parsed_args.flavor, host=parsed_args.host,
            start=parsed_args.start, end=parsed_args.end)
        self.app.stdout.write(timeline.render(
            calendar, parsed_args.width or terminal_width(),
            colour=wants_colour(self.app.stdout)))
