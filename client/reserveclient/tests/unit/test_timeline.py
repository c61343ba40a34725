"""timeline.render on fixed calendars: which columns the bars fill, the
clipping of bars to the range, the rows, the now marker, the axis of a
day, a week and a month, the free line, the legend, the width."""
import re

import pytest

from reserveclient.v1 import timeline

START = '2026-12-07T00:00:00Z'   # a Monday


def _bar(start, end, status='ACTIVE', own=True, kind='booking', **extra):
    bar = {'kind': kind, 'start': start, 'end': end}
    if kind != 'maintenance':
        bar.update(status=status, own=own, count=extra.pop('count', 1))
    bar.update(extra)
    return bar


def _calendar(rows, start=START, end='2026-12-17T00:00:00Z', free=None,
              now=None, **subject):
    """rows: [(label, [bar])]."""
    return {'calendar': {
        'view': 'flavor',
        'subject': dict({'id': 'f1', 'name': 'a100x1', 'slots': len(rows)},
                        **subject),
        'start': start, 'end': end, 'now': now,
        'rows': [{'label': label, 'bars': bars} for label, bars in rows],
        'free': free or [], 'statuses': [
            'PENDING_CREATE', 'ALLOCATED', 'ACTIVE', 'COMPLETE', 'ERROR',
            'PENDING', 'EXPIRED', 'CANCELLED', 'NEEDS_REVIEW', 'busy']}}


def _lines(calendar, width, **kwargs):
    text = timeline.render(calendar, width, **kwargs)
    assert text.endswith('\n')
    return text[:-1].split('\n')


def _cells(lines, label, size=6):
    """The bar columns of the line of ``label`` (labels ``size`` wide)."""
    found = [line for line in lines if line.startswith(label.ljust(size))]
    assert len(found) == 1, (label, lines)
    return found[0][size + 1:]


# Ten days in 50 columns (labels of 6 and a space, width 57): 5 a day.
WIDTH = 57


def test_bars_fill_the_columns_of_their_time():
    lines = _lines(_calendar([('slot 1', [
        _bar('2026-12-09T00:00:00Z', '2026-12-11T00:00:00Z'),
        # Twelve hours: 2.5 columns, drawn on the 3 it touches.
        _bar('2026-12-13T00:00:00Z', '2026-12-13T12:00:00Z',
             status='ALLOCATED')])]), WIDTH)
    cells = _cells(lines, 'slot 1')
    assert len(cells) == 50
    assert cells == ('·' * 10 + '█' * 10 + '·' * 10 + '▓' * 3 + '·' * 17)


def test_bars_outside_the_range_are_clipped():
    lines = _lines(_calendar([
        ('before', [_bar('2026-12-01T00:00:00Z', '2026-12-08T00:00:00Z')]),
        ('after', [_bar('2026-12-16T00:00:00Z', '2026-12-30T00:00:00Z')]),
        ('open', [_bar('2026-12-15T00:00:00Z', None)]),
        ('gone', [_bar('2026-11-01T00:00:00Z', '2026-12-07T00:00:00Z'),
                  _bar('2026-12-17T00:00:00Z', '2026-12-20T00:00:00Z')])]),
        WIDTH)
    assert _cells(lines, 'before') == '█' * 5 + '·' * 45
    assert _cells(lines, 'after') == '·' * 45 + '█' * 5
    assert _cells(lines, 'open') == '·' * 40 + '█' * 10
    # Ending at the start, starting at the end: nothing.
    assert _cells(lines, 'gone') == '·' * 50


def test_several_rows_in_their_order_with_padded_labels():
    lines = _lines(_calendar([
        ('slot 1', [_bar('2026-12-07T00:00:00Z', '2026-12-08T00:00:00Z')]),
        ('slot 2', []),
        ('slot 10', [_bar('2026-12-16T00:00:00Z', '2026-12-17T00:00:00Z',
                          status='busy', own=False)])]), WIDTH + 1)
    rows = [line for line in lines if line.startswith('slot')]
    assert [row[:8] for row in rows] == ['slot 1  ', 'slot 2  ', 'slot 10 ']
    assert _cells(lines, 'slot 1', 7) == '█' * 5 + '·' * 45
    assert _cells(lines, 'slot 2', 7) == '·' * 50
    assert _cells(lines, 'slot 10', 7) == '·' * 45 + '░' * 5
    # The free line follows the rows.
    assert lines[lines.index(rows[-1]) + 1].startswith('free')


def test_a_long_label_is_cut():
    lines = _lines(_calendar([('a' * 40, [])]), 60)
    # A quarter of the width.
    assert _cells(lines, 'a' * 14 + '…', 15) == '·' * 44


def test_a_booking_of_two_instances_on_two_rows():
    booking = dict(status='ACTIVE', own=True, id='b1', count=2)
    lines = _lines(_calendar([
        ('slot 1', [_bar('2026-12-10T00:00:00Z', '2026-12-12T00:00:00Z',
                         **booking)]),
        ('slot 2', [_bar('2026-12-10T00:00:00Z', '2026-12-12T00:00:00Z',
                         **booking)]),
        ('slot 3', [])]), WIDTH)
    expected = '·' * 15 + '█' * 10 + '·' * 25
    assert _cells(lines, 'slot 1') == _cells(lines, 'slot 2') == expected
    assert _cells(lines, 'slot 3') == '·' * 50


def test_where_bars_meet_the_callers_own_wins():
    lines = _lines(_calendar([('slot 1', [
        _bar('2026-12-07T00:00:00Z', '2026-12-09T00:00:00Z',
             kind='maintenance', note='firmware'),
        _bar('2026-12-08T00:00:00Z', '2026-12-10T00:00:00Z', own=False,
             status='busy'),
        _bar('2026-12-09T00:00:00Z', '2026-12-11T00:00:00Z',
             status='PENDING')])]), WIDTH)
    assert _cells(lines, 'slot 1') == (
        'M' * 5 + '░' * 5 + '▓' * 10 + '·' * 30)


def test_the_now_marker():
    now = '2026-12-10T12:00:00Z'   # 3.5 days in: column 17
    lines = _lines(_calendar([
        ('slot 1', [_bar('2026-12-09T00:00:00Z', '2026-12-11T00:00:00Z')]),
        ('slot 2', [])], now=now), WIDTH)
    pad = 7
    assert _cells(lines, 'slot 1') == '·' * 10 + '█' * 7 + '|' + \
        '█' * 2 + '·' * 30
    assert _cells(lines, 'slot 2')[17] == '|'
    now_line, labels, rule = lines[2:5]
    assert now_line == ' ' * (pad + 17) + 'now'
    assert labels[pad + 17] == rule[pad + 17] == '|'
    assert '| now' in _legend(lines)
    # The header says when now is, where it has room.
    assert 'now 2026-12-10 12:00' not in lines[1]
    assert _lines(_calendar([], now=now), 100)[1] == (
        '2026-12-07 00:00 - 2026-12-17 00:00 UTC (10 days), now '
        '2026-12-10 12:00')


def test_now_given_overrides_the_calendars():
    calendar = _calendar([('slot 1', [])], now='2026-12-10T12:00:00Z')
    lines = _lines(calendar, WIDTH, now='2026-12-07T00:00:00Z')
    assert _cells(lines, 'slot 1') == '|' + '·' * 49


def test_no_now_marker_when_now_is_out_of_range():
    lines = _lines(_calendar([('slot 1', [])], now='2026-12-04T15:02:11Z'),
                   WIDTH)
    assert _cells(lines, 'slot 1') == '·' * 50
    assert not any('now' == line.strip() for line in lines)
    assert '|' not in ''.join(lines)


def _legend(lines):
    start = next(i for i, line in enumerate(lines)
                 if line.startswith('Legend: '))
    return ' '.join(lines[start:])


def test_the_legend_tells_each_symbol_used():
    lines = _lines(_calendar([
        ('slot 1', [_bar('2026-12-07T00:00:00Z', '2026-12-08T00:00:00Z'),
                    _bar('2026-12-09T00:00:00Z', '2026-12-10T00:00:00Z',
                         status='ALLOCATED')]),
        ('slot 2', [_bar('2026-12-07T00:00:00Z', '2026-12-08T00:00:00Z',
                         status='PENDING_CREATE'),
                    _bar('2026-12-09T00:00:00Z', '2026-12-10T00:00:00Z',
                         own=False, status='busy')]),
        ('slot 3', [_bar('2026-12-12T00:00:00Z', '2026-12-13T00:00:00Z',
                         kind='maintenance', note='fw')])],
        now='2026-12-08T12:00:00Z'), 100)
    legend = _legend(lines)
    # The statuses in the order the calendar lists them.
    for entry in ('█ yours, ACTIVE', '▓ yours, PENDING_CREATE/ALLOCATED',
                  "░ other projects'", 'M maintenance', '· free', '| now',
                  'free: the fewest instances free in each column'):
        assert entry in legend
    # Not drawn, not told.
    assert 'ERROR' not in legend and '▒' not in legend


def test_the_legend_of_a_quiet_calendar():
    legend = _legend(_lines(_calendar([('slot 1', [])]), 100))
    assert legend.startswith('Legend: · free ')
    assert not re.search('[█▓▒░Mx|] ', legend)


def test_the_callers_ended_and_failed_bookings():
    lines = _lines(_calendar([('slot 1', [
        _bar('2026-12-07T00:00:00Z', '2026-12-08T00:00:00Z',
             status='COMPLETE'),
        _bar('2026-12-08T00:00:00Z', '2026-12-09T00:00:00Z',
             status='ERROR')])]), WIDTH)
    assert _cells(lines, 'slot 1')[:10] == '▒' * 5 + 'x' * 5
    legend = _legend(lines)
    assert 'x yours, ERROR' in legend and '▒ yours, COMPLETE' in legend


def test_the_free_line_is_the_fewest_in_each_column():
    free = [{'start': START, 'end': '2026-12-08T00:00:00Z', 'free': 12},
            # Ends in the middle of column 7: that column shows the 3.
            {'start': '2026-12-08T00:00:00Z', 'end': '2026-12-08T08:00:00Z',
             'free': 3},
            {'start': '2026-12-08T08:00:00Z', 'end': '2026-12-16T00:00:00Z',
             'free': 4}]
    lines = _lines(_calendar([('slot 1', [])], free=free), WIDTH)
    # The last day has no step: nothing is said of it.
    assert _cells(lines, 'free') == '+' * 5 + '33' + '4' * 38
    assert 'free: the fewest instances free in each column (+: 10 or ' \
        'more)' == ' '.join(lines[-2:])


def test_the_axis_of_a_week_has_days():
    lines = _lines(_calendar([('slot 1', [])], end='2026-12-14T00:00:00Z'),
                   100)
    labels, rule = lines[2], lines[3]
    pad = 7
    # 93 columns for 7 days: a day at 93 * k // 7.
    for k, day in enumerate(['Mon 07', 'Tue 08', 'Wed 09', 'Thu 10',
                             'Fri 11', 'Sat 12', 'Sun 13']):
        column = pad + 93 * k // 7
        assert labels[column:column + 6] == day
        assert rule[column] == '┬'
    assert rule.count('┬') == 7
    assert lines[1] == '2026-12-07 00:00 - 2026-12-14 00:00 UTC (7 days)'


def test_the_axis_of_a_day_has_hours():
    lines = _lines(_calendar([('slot 1', [])], end='2026-12-08T00:00:00Z'),
                   100)
    labels = lines[2]
    # 93 columns for 24 hours: every other hour has room for a label.
    assert labels.split() == ['Mon', '07', '02:00', '04:00', '06:00',
                              '08:00', '10:00', '12:00', '14:00', '16:00',
                              '18:00', '20:00', '22:00']
    assert labels.index('12:00') == 7 + 93 * 12 // 24


def test_the_axis_of_a_month_has_dates_a_week_apart():
    lines = _lines(_calendar([('slot 1', [])], start='2026-12-01T00:00:00Z',
                             end='2027-01-01T00:00:00Z'), 100)
    labels, rule = lines[2], lines[3]
    assert labels.split() == ['Dec', '07', 'Dec', '14', 'Dec', '21', 'Dec',
                              '28']
    # 93 columns for 31 days, 3 a day: the Mondays.
    assert [labels.index(day) for day in ('Dec 07', 'Dec 14', 'Dec 21',
                                          'Dec 28')] == [
        7 + 18, 7 + 39, 7 + 60, 7 + 81]
    assert [i for i, c in enumerate(rule) if c == '┬'] == [25, 46, 67, 88]
    assert '(31 days)' in lines[1]


def test_a_range_starting_at_an_odd_time_ticks_at_midnights():
    lines = _lines(_calendar([('slot 1', [])], start='2026-12-04T15:02:11Z',
                             end='2026-12-11T15:02:11Z'), 100)
    assert lines[2].split()[:2] == ['Sat', '05']
    assert lines[2].index('Sat 05') == 7 + int(
        (8 * 3600 + 57 * 60 + 49) * 93 // (7 * 86400))


def test_a_host_calendar():
    calendar = _calendar([
        ('0000:3b:00.0', [_bar('2026-12-07T00:00:00Z',
                               '2026-12-09T00:00:00Z',
                               kind='device_reservation',
                               status='ACTIVE')]),
        ('0000:3c:00.0', [])])
    calendar['calendar'].update(view='host', subject={
        'id': 'h1', 'name': 'gpu-a100-01', 'kind': 'libvirt'})
    lines = _lines(calendar, 100)
    assert lines[0] == 'Host gpu-a100-01, libvirt'
    # 87 columns for 10 days: 2 days reach into the 18th.
    assert _cells(lines, '0000:3b:00.0', 12).startswith('█' * 18 + '·')
    assert 'the fewest devices free' in _legend(lines)


@pytest.mark.parametrize('width', [40, 41, 57, 80, 99, 100, 132])
def test_every_line_fits_the_width(width):
    statuses = dict(status='PENDING')
    calendar = _calendar([
        ('slot %d' % i, [_bar('2026-12-0%dT00:00:00Z' % (i + 1),
                              '2026-12-1%dT00:00:00Z' % i, **statuses),
                         _bar('2026-12-15T00:00:00Z', None, own=False)])
        for i in range(1, 8)] + [('a-very-long-row-label-' * 3, [])],
        now='2026-12-09T15:02:11Z',
        free=[{'start': START, 'end': '2026-12-17T00:00:00Z', 'free': 2}],
        name='a-flavor-with-a-name-longer-than-any-terminal-' * 3)
    for colour in (False, True):
        lines = _lines(calendar, width, colour=colour)
        for line in lines:
            assert len(re.sub('\x1b\\[[0-9;]*m', '', line)) <= width, line
    assert max(len(line) for line in _lines(calendar, width)) == width


def test_colour_changes_nothing_but_the_colour():
    calendar = _calendar([('slot 1', [
        _bar('2026-12-07T00:00:00Z', '2026-12-08T00:00:00Z'),
        _bar('2026-12-09T00:00:00Z', '2026-12-10T00:00:00Z', own=False)])],
        now='2026-12-08T12:00:00Z')
    plain = timeline.render(calendar, 80)
    painted = timeline.render(calendar, 80, colour=True)
    assert '\x1b[32m█████' in painted
    assert painted != plain
    assert re.sub('\x1b\\[[0-9;]*m', '', painted) == plain


def test_a_width_below_the_minimum_is_the_minimum():
    lines = _lines(_calendar([('slot 1', [])]), 10)
    assert max(len(line) for line in lines) == timeline.MIN_WIDTH


def test_a_flavor_without_slots():
    lines = _lines(_calendar([]), 60)
    assert lines[0] == 'Flavor a100x1, 0 slots'
    assert '(no rows)' in lines[4]


def test_a_calendar_ending_before_it_starts_is_refused():
    with pytest.raises(ValueError):
        timeline.render(_calendar([], end=START), 80)


@pytest.mark.parametrize('end,length', [
    ('2026-12-07T01:00:00Z', '(1 hour)'),
    ('2026-12-07T06:30:00Z', '(6.5 hours)'),
    ('2026-12-08T12:00:00Z', '(36 hours)'),
    ('2026-12-08T00:00:00Z', '(1 day)'),
    ('2026-12-10T12:00:00Z', '(3.5 days)')])
def test_the_header_tells_the_length(end, length):
    assert _lines(_calendar([], end=end), 100)[1].endswith(length)


def test_a_short_range_ticks_at_quarter_hours():
    lines = _lines(_calendar([('slot 1', [])], end='2026-12-07T01:00:00Z'),
                   100)
    assert lines[2].split() == ['Mon', '07', '00:15', '00:30', '00:45']
