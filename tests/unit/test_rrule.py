"""The RRULE subset of a series (reserve.booking.rrule): expansion agrees
with a day-by-day reference for random rules; everything outside the
subset is refused, naming what."""
import datetime

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import pytest

from reserve.booking import rrule
from reserve.common import exception

DAY = datetime.timedelta(days=1)
MOST = 100


def reference(rule, first, most):
    """The starts a rule gives, found by walking day after day from the
    first: a day is one when its distance in days (DAILY) or in weeks
    from the first's week (WEEKLY) is a multiple of the interval and,
    with BYDAY, its weekday is listed."""
    found, day = [], first
    while True:
        if rule.count is not None and len(found) == rule.count:
            return found
        if rule.until is not None and day > rule.until:
            return found
        days = (day - first).days
        if rule.freq == rrule.DAILY:
            taken = days % rule.interval == 0
        elif rule.byday:
            weeks = (days + first.weekday()) // 7
            taken = (weeks % rule.interval == 0 and
                     day.weekday() in rule.byday)
        else:
            taken = days % (7 * rule.interval) == 0
        if taken:
            if len(found) == most:
                return None      # more than the most
            found.append(day)
        day += DAY


firsts = st.datetimes(min_value=datetime.datetime(2026, 1, 1),
                      max_value=datetime.datetime(2028, 12, 31)).map(
    lambda d: d.replace(microsecond=0))


@st.composite
def rules(draw):
    """(rule text, first start) of the subset, first on a BYDAY day."""
    first = draw(firsts)
    freq = draw(st.sampled_from(rrule.FREQUENCIES))
    parts = ['FREQ=%s' % freq]
    if draw(st.booleans()):
        parts.append('INTERVAL=%d' % draw(st.integers(1, 5)))
    if draw(st.booleans()):
        parts.append('COUNT=%d' % draw(st.integers(1, 30)))
    else:
        until = first + datetime.timedelta(
            seconds=draw(st.integers(0, 200 * 86400)))
        parts.append('UNTIL=%s' % (
            until.strftime('%Y%m%d') if draw(st.booleans())
            else until.strftime('%Y%m%dT%H%M%SZ')))
    if freq == rrule.WEEKLY and draw(st.booleans()):
        days = draw(st.sets(st.sampled_from(rrule.WEEKDAYS), max_size=6))
        days.add(rrule.WEEKDAYS[first.weekday()])
        parts.append('BYDAY=%s' % ','.join(draw(st.permutations(
            sorted(days)))))
    return ';'.join(draw(st.permutations(parts))), first


@settings(max_examples=300, deadline=None)
@given(rules())
def test_expansion_agrees_with_the_reference(case):
    text, first = case
    rule = rrule.parse(text)
    expected = reference(rule, first, MOST)
    if expected is None:
        with pytest.raises(exception.Invalid, match='more than 100'):
            rrule.starts(rule, first, MOST)
        return
    assert rrule.starts(rule, first, MOST) == expected
    assert expected[0] == first


def test_the_first_is_the_start_and_counts():
    first = datetime.datetime(2027, 3, 3, 9, 30)     # a Wednesday
    rule = rrule.parse('FREQ=WEEKLY;COUNT=4;BYDAY=WE,FR')
    assert rrule.starts(rule, first, MOST) == [
        first, first + 2 * DAY, first + 7 * DAY, first + 9 * DAY]
    # UNTIL is inclusive; a date means that whole day.
    rule = rrule.parse('FREQ=DAILY;UNTIL=20270305')
    assert rrule.starts(rule, first, MOST) == [first, first + DAY,
                                               first + 2 * DAY]
    rule = rrule.parse('FREQ=DAILY;UNTIL=20270305T093000Z')
    assert len(rrule.starts(rule, first, MOST)) == 3
    rule = rrule.parse('FREQ=DAILY;UNTIL=20270305T092959Z')
    assert len(rrule.starts(rule, first, MOST)) == 2
    # Every other week, Monday-based weeks.
    rule = rrule.parse('rrule:freq=weekly;interval=2;count=3;byday=we,mo')
    assert rrule.starts(rule, first, MOST) == [
        first, first + 12 * DAY, first + 14 * DAY]


def test_count_up_to_the_most():
    first = datetime.datetime(2027, 3, 3, 9, 30)
    assert len(rrule.starts(rrule.parse('FREQ=DAILY;COUNT=100'), first,
                            MOST)) == 100
    with pytest.raises(exception.Invalid, match='at most 100'):
        rrule.starts(rrule.parse('FREQ=DAILY;COUNT=101'), first, MOST)


@pytest.mark.parametrize('text,words', [
    ('', 'it is empty'),
    ('   ', 'it is empty'),
    ('COUNT=3', 'FREQ is required'),
    ('FREQ=YEARLY;COUNT=3', 'FREQ=YEARLY is not supported'),
    ('FREQ=HOURLY;COUNT=3', 'FREQ=HOURLY is not supported'),
    ('FREQ=FORTNIGHTLY;COUNT=3', 'FREQ=FORTNIGHTLY is not a frequency'),
    ('FREQ=DAILY;COUNT=3;BYHOUR=9', 'BYHOUR is not supported'),
    ('FREQ=DAILY;COUNT=3;BYMINUTE=0', 'BYMINUTE is not supported'),
    ('FREQ=DAILY;COUNT=3;BYSECOND=0', 'BYSECOND is not supported'),
    ('FREQ=WEEKLY;COUNT=3;BYMONTHDAY=1', 'BYMONTHDAY is not supported'),
    ('FREQ=WEEKLY;COUNT=3;BYYEARDAY=1', 'BYYEARDAY is not supported'),
    ('FREQ=WEEKLY;COUNT=3;BYWEEKNO=1', 'BYWEEKNO is not supported'),
    ('FREQ=WEEKLY;COUNT=3;BYSETPOS=1', 'BYSETPOS is not supported'),
    ('FREQ=WEEKLY;COUNT=3;WKST=SU', 'WKST is not supported'),
    ('FREQ=WEEKLY;COUNT=3;X-NAME=1', 'X-NAME is not a part of a rule'),
    ('FREQ=WEEKLY;COUNT=3;;', 'is not a NAME=value part'),
    ('FREQ=WEEKLY;COUNT', 'is not a NAME=value part'),
    ('FREQ=WEEKLY;COUNT=', 'is not a NAME=value part'),
    ('FREQ=WEEKLY;FREQ=DAILY;COUNT=1', 'FREQ is given twice'),
    ('FREQ=WEEKLY', 'give exactly one of COUNT and UNTIL'),
    ('FREQ=WEEKLY;COUNT=2;UNTIL=20270101', 'exactly one of COUNT and UNTIL'),
    ('FREQ=WEEKLY;COUNT=-1', 'COUNT must be a positive whole number'),
    ('FREQ=WEEKLY;COUNT=1.5', 'COUNT must be a positive whole number'),
    ('FREQ=WEEKLY;COUNT=9999999', 'COUNT must be a positive whole number'),
    ('FREQ=WEEKLY;COUNT=2;INTERVAL=0', 'INTERVAL must be a positive'),
    ('FREQ=WEEKLY;UNTIL=2027', 'UNTIL must be a date'),
    ('FREQ=WEEKLY;UNTIL=20271301', 'UNTIL \'20271301\' is not a date'),
    ('FREQ=WEEKLY;UNTIL=20270101T250000Z', 'is not a date'),
    ('FREQ=WEEKLY;UNTIL=20270101T090000', 'must be in UTC'),
    ('FREQ=DAILY;COUNT=2;BYDAY=MO', 'BYDAY is supported with FREQ=WEEKLY'),
    ('FREQ=WEEKLY;COUNT=2;BYDAY=-1FR', 'without a number before them'),
    ('FREQ=WEEKLY;COUNT=2;BYDAY=MON', 'not \'MON\''),
    ('FREQ=WEEKLY;COUNT=2;BYDAY=MO,MO', 'BYDAY names a day twice'),
    ('FREQ=WEEKLY;COUNT=2;BYDAY=', 'is not a NAME=value part'),
    ('FREQ=WEEKLY;COUNT=2;' + 'X' * 300, 'longer than 255 characters'),
])
def test_outside_the_subset_is_refused_naming_it(text, words):
    with pytest.raises(exception.Invalid) as caught:
        rrule.parse(text)
    assert caught.value.code == 400
    assert 'recurrence: ' in caught.value.message
    assert words in caught.value.message, caught.value.message


def test_refused_at_expansion():
    first = datetime.datetime(2027, 3, 3, 9, 30)     # a Wednesday
    with pytest.raises(exception.Invalid, match="is not one of BYDAY's"):
        rrule.starts(rrule.parse('FREQ=WEEKLY;COUNT=2;BYDAY=MO'), first,
                     MOST)
    with pytest.raises(exception.Invalid, match='before the start'):
        rrule.starts(rrule.parse('FREQ=WEEKLY;UNTIL=20270303T092959Z'),
                     first, MOST)
    with pytest.raises(exception.Invalid, match='more than 100'):
        rrule.starts(rrule.parse('FREQ=DAILY;UNTIL=20300101'), first, MOST)
