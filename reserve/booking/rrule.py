"""The recurrence of a series: a strict subset of iCalendar's RRULE
(RFC 5545, 3.3.10), parsed and expanded here.

The subset::

    FREQ=DAILY|WEEKLY     required
    INTERVAL=n            every n days or weeks (1 unless given)
    COUNT=n | UNTIL=d     exactly one: n occurrences, or those starting
                          on or before d (20270131T090000Z, or a date,
                          20270131, meaning the whole of that day, UTC)
    BYDAY=MO,TU,...       WEEKLY only: those days of every n-th week
                          (weeks start on Monday), plain days only

The first occurrence is the booking's own window (the rule's DTSTART),
and counts towards COUNT; with BYDAY its day must be one of them. Every
other part of RFC 5545 (BYMONTH, BYSETPOS, WKST, ...), any other
frequency, an unknown part, a repeated one or a malformed value is
refused with a 400 naming it.
"""
import dataclasses
import datetime
import re

from reserve.common import exception

WEEKDAYS = ('MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU')
DAILY = 'DAILY'
WEEKLY = 'WEEKLY'
FREQUENCIES = (DAILY, WEEKLY)
PARTS = ('FREQ', 'INTERVAL', 'COUNT', 'UNTIL', 'BYDAY')
# The rest of RFC 5545's parts, refused by name.
OTHER_PARTS = ('BYSECOND', 'BYMINUTE', 'BYHOUR', 'BYMONTHDAY', 'BYYEARDAY',
               'BYWEEKNO', 'BYMONTH', 'BYSETPOS', 'WKST')
OTHER_FREQUENCIES = ('SECONDLY', 'MINUTELY', 'HOURLY', 'MONTHLY', 'YEARLY')
MAX_LENGTH = 255

_NUMBER = re.compile(r'[0-9]{1,6}\Z')
_UNTIL = re.compile(r'([0-9]{8})(T([0-9]{6})(Z?))?\Z')
_DAY = datetime.timedelta(days=1)
_WEEK = datetime.timedelta(weeks=1)


@dataclasses.dataclass(frozen=True)
class Rule:
    """A parsed rule: ``byday`` holds weekday numbers (Monday 0), sorted;
    ``until`` is naive UTC, inclusive."""
    freq: str
    interval: int = 1
    count: int = None
    until: datetime.datetime = None
    byday: tuple = ()


def _invalid(reason):
    return exception.Invalid(reason='recurrence: %s' % reason)


def _positive(name, value):
    if not _NUMBER.match(value) or int(value) < 1:
        raise _invalid('%s must be a positive whole number, not %r' %
                       (name, value))
    return int(value)


def _until(value):
    found = _UNTIL.match(value)
    if not found:
        raise _invalid('UNTIL must be a date (20270131) or a UTC date and '
                       'time (20270131T090000Z), not %r' % value)
    day, time, clock, utc = found.groups()
    if time and not utc:
        raise _invalid('UNTIL %r must be in UTC (ending in Z)' % value)
    try:
        if not time:
            # A date: every occurrence starting that day.
            return (datetime.datetime.strptime(day, '%Y%m%d') + _DAY -
                    datetime.timedelta(seconds=1))
        return datetime.datetime.strptime(day + clock, '%Y%m%d%H%M%S')
    except ValueError:
        raise _invalid('UNTIL %r is not a date' % value) from None


def _byday(value):
    days = value.split(',')
    for day in days:
        if day not in WEEKDAYS:
            raise _invalid('BYDAY takes days among %s (without a number '
                           'before them), not %r' %
                           (','.join(WEEKDAYS), day))
    if len(set(days)) != len(days):
        raise _invalid('BYDAY names a day twice: %r' % value)
    return tuple(sorted(WEEKDAYS.index(day) for day in days))


def _parts(text):
    """{name: value} of the rule's text, each part once."""
    if not isinstance(text, str) or not text.strip():
        raise _invalid('it is empty')
    if len(text) > MAX_LENGTH:
        raise _invalid('longer than %d characters' % MAX_LENGTH)
    body = text.strip().upper()
    if body.startswith('RRULE:'):
        body = body[len('RRULE:'):]
    parts = {}
    for part in body.split(';'):
        name, equals, value = part.partition('=')
        if not equals or not name or not value:
            raise _invalid('%r is not a NAME=value part' % part)
        if name in OTHER_PARTS:
            raise _invalid('%s is not supported; a rule has only %s' %
                           (name, ', '.join(PARTS)))
        if name not in PARTS:
            raise _invalid('%s is not a part of a rule; a rule has only %s'
                           % (name, ', '.join(PARTS)))
        if name in parts:
            raise _invalid('%s is given twice' % name)
        parts[name] = value
    return parts


def parse(text):
    """The Rule of ``text``; Invalid (400) naming what is wrong."""
    parts = _parts(text)
    freq = parts.get('FREQ')
    if freq is None:
        raise _invalid('FREQ is required (DAILY or WEEKLY)')
    if freq not in FREQUENCIES:
        what = ('is not supported' if freq in OTHER_FREQUENCIES
                else 'is not a frequency')
        raise _invalid('FREQ=%s %s; only DAILY and WEEKLY are' %
                       (freq, what))
    if ('COUNT' in parts) == ('UNTIL' in parts):
        raise _invalid('give exactly one of COUNT and UNTIL')
    if 'BYDAY' in parts and freq != WEEKLY:
        raise _invalid('BYDAY is supported with FREQ=WEEKLY only')
    return Rule(
        freq=freq,
        interval=_positive('INTERVAL', parts.get('INTERVAL', '1')),
        count=(_positive('COUNT', parts['COUNT']) if 'COUNT' in parts
               else None),
        until=_until(parts['UNTIL']) if 'UNTIL' in parts else None,
        byday=_byday(parts['BYDAY']) if 'BYDAY' in parts else ())


def _candidates(rule, first):
    """Every start the rule's frequency, interval and days give from
    ``first`` on, in order, without end."""
    step = (_DAY if rule.freq == DAILY else _WEEK) * rule.interval
    if not rule.byday:
        period = first
        while True:
            yield period
            period += step
    # The days of every interval-th week, from the week of ``first``.
    week = first - first.weekday() * _DAY
    while True:
        for weekday in rule.byday:
            when = week + weekday * _DAY
            if when >= first:
                yield when
        week += step


def starts(rule, first, most):
    """The starts of the rule's occurrences, the first at ``first``
    (naive UTC), in order: at most ``most`` of them, Invalid when it has
    more, or when ``first`` is not one of BYDAY's days."""
    if rule.byday and first.weekday() not in rule.byday:
        raise _invalid('the start, a %s, is not one of BYDAY\'s days: the '
                       'first occurrence is the start' %
                       first.strftime('%A'))
    if rule.count is not None and rule.count > most:
        raise _invalid('COUNT=%d: a series has at most %d occurrences' %
                       (rule.count, most))
    found = []
    for when in _candidates(rule, first):
        if rule.count is not None and len(found) == rule.count:
            break
        if rule.until is not None and when > rule.until:
            break
        if len(found) == most:
            raise _invalid('UNTIL %s gives more than %d occurrences, the '
                           'most a series has' % (
                               rule.until.isoformat(timespec='seconds') +
                               'Z', most))
        found.append(when)
    if not found:
        raise _invalid('UNTIL %s is before the start: no occurrence' %
                       (rule.until.isoformat(timespec='seconds') + 'Z'))
    return found
