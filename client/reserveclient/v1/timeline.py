"""The calendar of ``GET /v1/calendar`` drawn as text (a timeline).

:func:`render` is a pure function of the API's answer, a width and the
moment taken as now: ``openstack reserve calendar`` prints what it
returns, and the tests draw fixed calendars with it. The picture reads
without colour, in any width from :data:`MIN_WIDTH` on (here 72)::

    Flavor a100x1, 4 slots
    2026-12-04 00:00 - 2026-12-11 00:00 UTC (7 days), now 2026-12-04 14:40
                now
                |   Sat 05   Sun 06   Mon 07    Tue 08   Wed 09   Thu 10
           ┬────|───┬────────┬────────┬─────────┬────────┬────────┬─────────
    slot 1 ·····|·····MMMMMMM············████████████████████████·····▓▓▓▓▓▓
    slot 2 ·····|·····MMMMMMM············████████████████████████···········
    slot 3 ·····|·····MMMMMMM···················░░░░░░░░░░░░░░░░░░░░░░░░░░░░
    slot 4 ·····|·····MMMMMMM···············································
    free   44444444444000000044444444444422222221111111111111111133333222222
    Legend: █ yours, ACTIVE  ▓ yours, PENDING_CREATE  ░ other projects'
            M maintenance  · free  | now
    free: the fewest instances free in each column (+: 10 or more)

The range is cut into as many equal columns as the width leaves beside
the row labels; a bar fills every column its time overlaps (clipped to
the range: its start and end may lie outside it), so a short booking
still shows. Where bars meet in one column, the one that matters most to
the reader wins: the caller's own bookings, then other projects', then
maintenance. The free line gives the fewest free (instances of a flavor,
rows of a host) over each column's time, one digit a column.
"""
import datetime
import textwrap

MIN_WIDTH = 40
MAX_WIDTH = 100

FREE = '·'
NOW = '|'
TICK = '┬'
RULE = '─'
MANY = '+'   # 10 or more free in a column of the free line

# Symbol → (meaning in the legend, ANSI colour). Their order is the
# legend's and, when bars meet in one column, the winner's (first wins).
ACTIVE = '█'
WAITING = '▓'
FAILED = 'x'
ENDED = '▒'
OTHERS = '░'
MAINTENANCE = 'M'
SYMBOLS = (
    (ACTIVE, 'yours, %s', '32'),
    (WAITING, 'yours, %s', '36'),
    (FAILED, 'yours, %s', '31'),
    (ENDED, 'yours, %s', '2'),
    (OTHERS, "other projects'", '33'),
    (MAINTENANCE, 'maintenance', '35'),
    (FREE, 'free', None),
    (NOW, 'now', '1'),
)
_PRIORITY = {symbol: rank for rank, (symbol, _m, _c) in enumerate(SYMBOLS)}
_COLOUR = {symbol: colour for symbol, _m, colour in SYMBOLS if colour}
# The statuses each of the caller's symbols stands for (any other status
# of one of the caller's bookings is drawn as waiting).
_OWN = {'ACTIVE': ACTIVE, 'ERROR': FAILED, 'COMPLETE': ENDED,
        'EXPIRED': ENDED, 'CANCELLED': ENDED, 'LAPSED': ENDED}
# The order of the statuses in the legend, when the calendar does not say.
_DEFAULT_STATUSES = ('PENDING_CREATE', 'ALLOCATED', 'ACTIVE', 'COMPLETE',
                     'ERROR', 'STANDBY', 'LAPSED', 'PENDING', 'EXPIRED',
                     'CANCELLED', 'NEEDS_REVIEW')

# What the digits of the free line count, by view (and host kind).
_FREE_WHAT = {'flavor': 'instances', 'libvirt': 'devices', 'nova': 'rows'}

_DAY = 86400
_MONDAY = 4 * _DAY   # the epoch was a Thursday
_LABEL_ROOM = 7      # a tick label (6 characters) and a space
_LEGEND = 'Legend: '


def parse_time(text):
    """An API time ('2026-12-07T00:00:00Z') → seconds since the epoch;
    None stays None (an open end)."""
    if text is None:
        return None
    text = str(text).strip()
    if text[-1:] in ('Z', 'z'):
        text = text[:-1] + '+00:00'
    moment = datetime.datetime.fromisoformat(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return int(moment.timestamp())


def _utc(seconds):
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)


def _when(seconds):
    return _utc(seconds).strftime('%Y-%m-%d %H:%M')


def _length(seconds):
    if seconds % _DAY == 0:
        days = seconds // _DAY
        return '%d day%s' % (days, '' if days == 1 else 's')
    if seconds < 2 * _DAY:
        hours = seconds / 3600
        if hours == 1:
            return '1 hour'
        return ('%d' % hours if hours == int(hours) else '%.1f' % hours) + \
            ' hours'
    return '%.1f days' % (seconds / _DAY)


class _Grid:
    """Where times fall among ``columns`` equal columns of [start, end)."""

    def __init__(self, start, end, columns):
        self.start = start
        self.span = end - start
        self.columns = columns

    def column(self, moment):
        """The column holding ``moment``, None outside the range."""
        offset = moment - self.start
        if not 0 <= offset < self.span:
            return None
        return offset * self.columns // self.span

    def cover(self, start, end):
        """The columns [first, last] whose time [start, end) overlaps
        (None: an open side), or None when it misses the range."""
        first = 0 if start is None else max(start - self.start, 0)
        last = self.span if end is None else min(end - self.start,
                                                 self.span)
        if last <= first:
            return None
        return (first * self.columns // self.span,
                -(-last * self.columns // self.span) - 1)


def _symbol(bar):
    """The symbol of a bar and the status it stands for (own bars)."""
    if bar.get('kind') == 'maintenance':
        return MAINTENANCE, None
    if not bar.get('own'):
        return OTHERS, None
    status = str(bar.get('status') or '').upper()
    return _OWN.get(status, WAITING), status


def _draw(cells, first, last, symbol):
    for column in range(first, last + 1):
        if _PRIORITY[symbol] < _PRIORITY[cells[column]]:
            cells[column] = symbol


# -- the time axis -----------------------------------------------------------

def _scale(span):
    """(candidate steps in seconds, label of a tick) for a range."""
    if span <= 2 * _DAY:
        def label(moment):
            when = _utc(moment)
            if moment % _DAY == 0:
                return when.strftime('%a %d')
            return when.strftime('%H:%M')
        steps = (900, 1800, 3600, 7200, 3 * 3600, 6 * 3600, 12 * 3600,
                 _DAY)
        return steps, label
    if span <= 16 * _DAY:
        steps = (_DAY, 2 * _DAY, 7 * _DAY)
        return steps, lambda moment: _utc(moment).strftime('%a %d')
    steps = (_DAY, 2 * _DAY, 7 * _DAY, 14 * _DAY, 28 * _DAY)
    return steps, lambda moment: _utc(moment).strftime('%b %d')


def _ticks(grid, start, end):
    """[(column, label)] of round times of the range: hours for a day,
    days for a week, dates (weeks apart, from a Monday) for a month."""
    steps, label = _scale(end - start)
    per_second = grid.columns / grid.span
    step = next((s for s in steps if s * per_second >= _LABEL_ROOM),
                steps[-1])
    origin = _MONDAY if step >= 7 * _DAY else 0
    moment = start + (origin - start) % step
    ticks = []
    while moment < end:
        ticks.append((grid.column(moment), label(moment)))
        moment += step
    return ticks


def _axis(grid, ticks, now_column):
    """The label line and the rule line under it."""
    columns = grid.columns
    labels = [' '] * columns
    taken = [False] * columns
    if now_column is not None:
        labels[now_column] = NOW
        taken[now_column] = True
    for column, text in ticks:
        end = column + len(text)
        if end > columns:
            continue
        # A blank on each side, and clear of the now marker.
        if any(taken[max(column - 1, 0):min(end + 1, columns)]):
            continue
        labels[column:end] = text
        for i in range(column, end):
            taken[i] = True
    rule = [RULE] * columns
    for column, _text in ticks:
        rule[column] = TICK
    if now_column is not None:
        rule[now_column] = NOW
    return ''.join(labels).rstrip(), ''.join(rule)


def _now_line(columns, now_column):
    word = 'now'
    at = now_column if now_column + len(word) <= columns else \
        now_column - len(word) + 1
    return ' ' * at + word


# -- the parts ---------------------------------------------------------------

def _fit(parts, width, sep=''):
    """The parts joined, the first always (cut to ``width``), the others
    while they fit."""
    line = parts[0][:width]
    for part in parts[1:]:
        if len(line) + len(sep) + len(part) > width:
            break
        line += sep + part
    return line


def _header(calendar, start, end, now, width):
    subject = calendar.get('subject') or {}
    name = subject.get('name') or subject.get('id') or '?'
    if calendar.get('view') == 'host':
        title = ['Host %s' % name]
        if subject.get('kind'):
            title.append(', %s' % subject['kind'])
    else:
        title = ['Flavor %s' % name]
        if subject.get('slots') is not None:
            title.append(', %s slot%s' % (
                subject['slots'], '' if subject['slots'] == 1 else 's'))
    when = ['%s - %s UTC' % (_when(start), _when(end)),
            ' (%s)' % _length(end - start)]
    if now is not None:
        when.append(', now %s' % _when(now))
    return [_fit(title, width), _fit(when, width)]


def _label(text, size):
    text = str(text)
    if len(text) > size:
        text = text[:size - 1] + '…'
    return text.ljust(size)


def _free_digit(count):
    return str(count) if count < 10 else MANY


def _free_line(grid, steps):
    cells = [' '] * grid.columns
    fewest = [None] * grid.columns
    for step in steps or []:
        cover = grid.cover(parse_time(step.get('start')),
                           parse_time(step.get('end')))
        if cover is None:
            continue
        for column in range(cover[0], cover[1] + 1):
            if fewest[column] is None or step['free'] < fewest[column]:
                fewest[column] = step['free']
    for column, count in enumerate(fewest):
        if count is not None:
            cells[column] = _free_digit(max(count, 0))
    return ''.join(cells).rstrip()


def _wrap(entries, width, lead=None):
    """Entries (plain, shown) on lines of at most ``width`` plain
    characters (``shown`` may hold colour codes)."""
    lead = lead or _LEGEND
    lines = []
    plain, shown = lead, lead
    for text, painted in entries:
        fresh = plain == lead or not plain.strip()
        if not fresh and len(plain) + 2 + len(text) > width:
            lines.append(shown)
            plain = shown = ' ' * len(lead)
            fresh = True
        sep = '' if fresh else '  '
        plain += sep + text
        shown += sep + painted
    lines.append(shown)
    return lines


def _legend(used, statuses, order, free_what, width, colour):
    entries = []
    for symbol, meaning, _colour in SYMBOLS:
        if symbol not in used:
            continue
        if '%s' in meaning:
            seen = sorted(statuses.get(symbol, ()),
                          key=lambda s: (order.index(s) if s in order
                                         else len(order), s))
            meaning = meaning % ('/'.join(seen) or '?')
        room = width - len(_LEGEND) - 2
        if len(meaning) > room:
            meaning = meaning[:room - 1] + '…'
        entries.append(('%s %s' % (symbol, meaning),
                        '%s %s' % (_paint(symbol, colour), meaning)))
    lines = _wrap(entries, width)
    return lines + textwrap.wrap(
        'free: the fewest %s free in each column (%s: 10 or more)'
        % (free_what, MANY), width)


# -- colour ------------------------------------------------------------------

def _paint(text, colour):
    code = _COLOUR.get(text[:1]) if colour else None
    return '\x1b[%sm%s\x1b[0m' % (code, text) if code else text


def _paint_cells(cells):
    """A row's cells with each run of one symbol in its colour."""
    out = []
    run = ''
    for char in cells + [None]:
        if run and char == run[0]:
            run += char
            continue
        if run:
            out.append(_paint(run, True))
        run = char or ''
    return ''.join(out)


# -- the picture -------------------------------------------------------------

def render(calendar_json, width, now=None, colour=False):
    """The calendar as lines of text, none wider than ``width``.

    ``calendar_json``: the answer of ``GET /v1/calendar`` (or the
    ``calendar`` object in it). ``now``: the moment to mark (ISO 8601, or
    seconds since the epoch); default the calendar's own ``now``.
    ``colour``: ANSI colours on the symbols, which read the same without
    them (what takes no room on the screen is not counted in the width).
    """
    calendar = calendar_json.get('calendar', calendar_json)
    width = max(int(width), MIN_WIDTH)
    start = parse_time(calendar['start'])
    end = parse_time(calendar['end'])
    if end <= start:
        raise ValueError('the calendar ends (%s) before it starts (%s)'
                         % (calendar['end'], calendar['start']))
    if now is None:
        now = calendar.get('now')
    if now is not None and not isinstance(now, (int, float)):
        now = parse_time(now)
    rows = calendar.get('rows') or []
    labels = [str(row.get('label', '')) for row in rows]
    label_size = min(max([len(text) for text in labels] + [len('free')]),
                     max(len('free'), width // 4))
    grid = _Grid(start, end, width - label_size - 1)
    now_column = None if now is None else grid.column(int(now))
    pad = ' ' * (label_size + 1)

    lines = _header(calendar, start, end, now, width)
    if now_column is not None:
        lines.append(pad + _now_line(grid.columns, now_column))
    label_line, rule = _axis(grid, _ticks(grid, start, end), now_column)
    lines += [(pad + label_line).rstrip(), pad + rule]

    used = set()
    statuses = {}
    for label, row in zip(labels, rows):
        cells = [FREE] * grid.columns
        for bar in row.get('bars') or []:
            cover = grid.cover(parse_time(bar.get('start')),
                               parse_time(bar.get('end')))
            if cover is None:
                continue
            symbol, status = _symbol(bar)
            _draw(cells, cover[0], cover[1], symbol)
            if status:
                statuses.setdefault(symbol, set()).add(status)
        if now_column is not None:
            cells[now_column] = NOW
        used.update(cells)
        text = _paint_cells(cells) if colour else ''.join(cells)
        lines.append(_label(label, label_size) + ' ' + text)
    if not rows:
        lines.append(pad + '(no rows)')
    lines.append(_label('free', label_size) + ' ' +
                 _free_line(grid, calendar.get('free')))

    subject = calendar.get('subject') or {}
    what = _FREE_WHAT.get(subject.get('kind') or calendar.get('view'),
                          'rows')
    order = list(calendar.get('statuses') or _DEFAULT_STATUSES)
    lines += _legend(used, statuses, order, what, width, colour)
    return '\n'.join(line.rstrip() for line in lines) + '\n'
