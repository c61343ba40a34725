"""A device reservation refused for its devices, worded for the command
line: the API's counter offer (API 1.11) as the commands that reserve
each window offered, the most devices that fit in the asked window, or
the end a refused later end can move to."""
import re
import shlex

# The API's pointer for REST users, which the CLI says with its commands.
_REST_POINTER = re.compile(r'\s*GET /v1/devices/availability\S* \(with '
                           r'start and end\) counts the devices free over '
                           r'a window\.')

_CREATE = 'openstack reserve device reservation create'


def _command(words):
    return ' '.join([_CREATE] + [shlex.quote(w) for w in words])


def _options(parsed_args, count=None):
    """The options of ``device reservation create`` that fix what it
    asks for (all but its window), as typed (``count``: another count)."""
    words = []
    for ref in parsed_args.devices or ():
        words += ['--device', ref]
    if parsed_args.count:
        words += ['--count', str(count or parsed_args.count)]
    for option in ('model', 'host', 'mdev_type'):
        value = getattr(parsed_args, option)
        if value:
            words += ['--' + option.replace('_', '-'), value]
    if parsed_args.numa_local:
        words.append('--numa-local')
    for option, values in (('--allowed-project', parsed_args.allowed_projects),
                           ('--managing-project',
                            parsed_args.managing_projects),
                           ('--domain', parsed_args.domains)):
        for value in values or ():
            words += [option, value]
    return words


def _window(start, end):
    return (['--start', start] if start else []) + (
        ['--end', end] if end else [])


def refusal_message(error, parsed_args):
    """The refusal of ``device reservation create`` (``parsed_args``),
    with the command that reserves each window offered and, for a count,
    the one that reserves as many as fit in the window asked."""
    offer = error.counter_offer
    lines = [_REST_POINTER.sub('', error.detail or 'No GPU devices fit.')]
    for side, word in (('before', 'earlier'), ('after', 'later')):
        window = offer.get(side)
        if window:
            lines.append('  the %s window: %s' % (word, _command(
                _options(parsed_args) +
                _window(window['start'], window['end']))))
    most = offer.get('max_device_count')
    if parsed_args.count and most and most < parsed_args.count:
        lines.append('  the most that fit then (%d): %s' % (most, _command(
            _options(parsed_args, count=most) +
            _window(parsed_args.start, parsed_args.end))))
    return error.worded('\n'.join(lines))


def later_end_message(error, reservation):
    """A refused later end of ``device reservation set`` with its
    counter offer: the command that moves it as late as it fits."""
    lines = [error.detail or 'The GPU devices cannot be reserved.']
    latest = error.counter_offer.get('latest_end')
    if latest:
        lines.append('  as late as it fits: openstack reserve device '
                     'reservation set %s --end %s' % (
                         shlex.quote(reservation), latest))
    return error.worded('\n'.join(lines))
