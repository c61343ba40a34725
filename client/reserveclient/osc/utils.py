"""Helpers shared by the commands: dates, key=value options, columns."""
import argparse
import datetime

from cliff import columns
from osc_lib.cli import format_columns
from osc_lib import utils

from reserveclient.v1 import names

DATE_HELP = ('ISO 8601 date and time, e.g. 2026-12-01T09:00:00Z; a plain '
             'date (2026-12-01) means midnight UTC, a time without a '
             'timezone is UTC, "now" is the current time')


def parse_date(value):
    """A date typed by a user → ISO 8601 in UTC ending in Z.

    '2026-12-01' → '2026-12-01T00:00:00Z'; '2026-12-01T09:30' →
    '2026-12-01T09:30:00Z'; '2026-12-01T11:00+02:00' →
    '2026-12-01T09:00:00Z'; 'now' → the current time.
    """
    text = str(value).strip()
    if text.lower() == 'now':
        moment = datetime.datetime.now(datetime.timezone.utc)
    else:
        candidate = text
        if candidate[-1:] in ('Z', 'z'):
            candidate = candidate[:-1] + '+00:00'
        try:
            if len(candidate) == 10:
                day = datetime.date.fromisoformat(candidate)
                moment = datetime.datetime(day.year, day.month, day.day)
            else:
                moment = datetime.datetime.fromisoformat(candidate)
        except ValueError:
            raise argparse.ArgumentTypeError(
                '%r is not a date; use ISO 8601 such as 2026-12-01 or '
                '2026-12-01T09:00:00Z' % value)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=datetime.timezone.utc)
    moment = moment.astimezone(datetime.timezone.utc)
    return moment.replace(microsecond=0, tzinfo=None).isoformat() + 'Z'


def positive_int(value):
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = 0
    if number < 1 or str(value).strip() != str(number):
        raise argparse.ArgumentTypeError(
            '%r is not a positive integer' % value)
    return number


def non_negative_int(value):
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = -1
    if number < 0 or str(value).strip() != str(number):
        raise argparse.ArgumentTypeError(
            '%r is not an integer of at least 0' % value)
    return number


def key_value(value):
    """'k=v' → ('k', 'v')."""
    key, sep, val = str(value).partition('=')
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(
            '%r is not of the form <key>=<value>' % value)
    return key.strip(), val


def add_paging_arguments(parser, what):
    parser.add_argument(
        '--limit', metavar='<num>', type=positive_int,
        help='Show at most <num> %s (default: all, following every page)'
        % what)
    parser.add_argument(
        '--marker', metavar='<id>',
        help='Start after the %s with this ID (the last one of the '
             'previous page)' % what.rstrip('s'))


class DictColumn(format_columns.DictColumn):
    """A dict shown as key='value', ... (a mapping in json/yaml)."""


class ListColumn(format_columns.ListColumn):
    """A list shown comma-separated (a list in json/yaml); a list of
    objects (such as a reservation's missing_capacity) one a line, as
    key='value' pairs."""

    def human_readable(self):
        items = self._value or []
        if all(isinstance(item, str) for item in items):
            return super().human_readable()
        return '\n'.join(utils.format_dict(item) if isinstance(item, dict)
                         else str(item) for item in items)


def _amount(allocation):
    """What an allocation holds: its amount (its count before API 1.2)."""
    return allocation.get('amount', allocation.get('count', 1))


class AllocationsColumn(columns.FormattableColumn):
    """Allocations of a lease reservation: 'host ×amount' per line."""

    def human_readable(self):
        lines = []
        for alloc in self._value or []:
            name = alloc.get('host') or alloc.get('host_id')
            lines.append('%s x%s' % (name, _amount(alloc)))
        return '\n'.join(lines)

    def machine_readable(self):
        return [dict(a) for a in self._value or []]


# flavor_id: the name of reserved_flavor_id before API 1.2 (shown beside
# it in 1.1).
_RSV_FIELDS = (('status', 'status'), ('resource_type', 'type'),
               ('amount', 'amount'), ('source_flavor_id', 'source flavor'),
               ('vcpus', 'vcpus'), ('memory_mb', 'memory_mb'),
               ('disk_gb', 'disk_gb'),
               ('reserved_flavor_id', 'reserved flavor'),
               ('flavor_id', 'flavor'), ('aggregate', 'aggregate'),
               ('resource_class', 'resource class'))


class LeaseReservationsColumn(columns.FormattableColumn):
    """The reservations of a lease, one block each, readable in a table."""

    def human_readable(self):
        blocks = []
        for rsv in self._value or []:
            lines = ['id: %s' % rsv.get('id')]
            for key, label in _RSV_FIELDS:
                if rsv.get(key) not in (None, '', {}, []):
                    lines.append('  %s: %s' % (label, rsv[key]))
            if rsv.get('extra_specs'):
                lines.append('  extra specs: %s' %
                             utils.format_dict(rsv['extra_specs']))
            if rsv.get('resource_properties'):
                lines.append('  resource properties: %s' %
                             rsv['resource_properties'])
            allocations = rsv.get('allocations') or []
            if allocations:
                lines.append('  allocations: %s' % ', '.join(
                    '%s x%s' % (a.get('host') or a.get('host_id'),
                                _amount(a)) for a in allocations))
            else:
                lines.append('  allocations: none')
            blocks.append('\n'.join(lines))
        return '\n'.join(blocks)

    def machine_readable(self):
        return [dict(r) for r in self._value or []]


class EventsColumn(columns.FormattableColumn):
    """Lease events, one per line: type, time, status (and the error)."""

    def human_readable(self):
        lines = []
        for event in sorted(self._value or [],
                            key=lambda e: (e.get('time') or '',
                                           e.get('event_type') or '')):
            line = '%s %s %s' % (event.get('event_type'), event.get('time'),
                                 event.get('status'))
            if event.get('attempts'):
                line += ' (attempts: %s)' % event['attempts']
            if event.get('last_error'):
                line += ': %s' % event['last_error']
            lines.append(line)
        return '\n'.join(lines)

    def machine_readable(self):
        return [dict(e) for e in self._value or []]


def show_fields(item, preferred, formatters=None):
    """(columns, values) of one item: preferred keys first, then the rest.

    Keys the server does not return are left out, so the command keeps up
    with an API that gains or renames fields.
    """
    formatters = formatters or {}
    keys = [k for k in preferred if k in item]
    keys += sorted(k for k in item if k not in keys and k != 'links')
    values = []
    for key in keys:
        value = item[key]
        formatter = formatters.get(key)
        if formatter is None:
            if isinstance(value, dict):
                formatter = DictColumn
            elif isinstance(value, list):
                formatter = ListColumn
        values.append(formatter(value) if formatter else value)
    return tuple(keys), tuple(values)


def list_rows(items, fields, formatters=None):
    """Rows of a Lister: fields is a sequence of (heading, key)."""
    formatters = formatters or {}
    rows = []
    for item in items:
        row = []
        for _heading, key in fields:
            value = item.get(key)
            formatter = formatters.get(key)
            row.append(formatter(value) if formatter else value)
        rows.append(tuple(row))
    return tuple(h for h, _ in fields), rows


def renamed_column(client, table, key, heading_, earlier_heading):
    """(heading, key) of a list column of a field renamed in API 1.2
    (``key`` its name since, in ``table`` of reserveclient.v1.names):
    under its earlier heading and name when the client speaks an older
    version."""
    if names.one_name(client.http):
        return heading_, key
    return earlier_heading, table[key]


def heading(key):
    """'instance_count' → 'Instance Count'; 'id' → 'ID'."""
    words = key.split('_')
    return ' '.join('ID' if w == 'id' else w.capitalize() for w in words)
