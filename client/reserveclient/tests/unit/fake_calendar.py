"""The calendar route of the API double (since microversion 1.5):
``GET /v1/calendar?flavor_id=|host_id=&start=&end=``. Below 1.5 it is
404, as the API answers unknown routes.

It draws the calendar from what the double holds, as the API does from
its database (reserve.api.controllers.v1.calendar):

- a flavor's rows are its slots; its bookings (the double's reservations
  of that flavor) are laid out by start, each on the lowest slots free
  at its start, one row per instance (rows past the slots are ``over
  N``); its maintenance windows (or those of every flavor) are a bar on
  each row;
- a libvirt host's rows are its GPU devices (the PCI address, and the
  product name when known; a virtual function only when reserved), its
  bars the device reservations holding them;
- a nova host's rows are its GPUs (``GPU N``, when it records some) or
  the instances held at once (``instance N``), its bars the bookings
  (``booking``) and leases (``lease``) allocated to it, each holding its
  amount times the GPUs of its flavor;
- a host's maintenance windows (``api.host_windows``) cross every row.

The free steps are what the live ones (and those over by now) leave,
each until its end and the guard after it (a minute; none on a libvirt
host); maintenance takes everything.

The caller is of project ``project-a``; an administrator (the double's
default) sees every booking with its status, id and project, a member
(``api.member_only``) sees another project's as ``busy``. Any project
reader may read a calendar; ``api.denied`` holds the policy rules the
caller is refused (403).
"""
import datetime

from reserveclient.tests.unit import fake_rest

VERSION = (1, 5)
PATH = '/v1/calendar'
PROJECT = 'project-a'
MAX_DAYS = 93
DEFAULT_DAYS = 7
GUARD = datetime.timedelta(seconds=60)
BOOKING_STATUSES = ['PENDING_CREATE', 'ALLOCATED', 'ACTIVE', 'COMPLETE',
                    'ERROR']
DEVICE_STATUSES = ['PENDING', 'ACTIVE', 'EXPIRED', 'CANCELLED',
                   'NEEDS_REVIEW']
STATUSES = BOOKING_STATUSES + [s for s in DEVICE_STATUSES
                               if s not in BOOKING_STATUSES] + ['busy']
LIVE = ('PENDING_CREATE', 'ALLOCATED', 'ACTIVE')
DEVICE_LIVE = ('PENDING', 'ACTIVE', 'NEEDS_REVIEW')
PARAMS = ('flavor_id', 'host_id', 'start', 'end')


def is_calendar(parts):
    return parts[1:] == ['calendar']


def _invalid(reason):
    return fake_rest.ApiError(400, 'Invalid input: %s' % reason)


def _parse(text, name):
    value = str(text)
    if value[-1:] in ('Z', 'z'):
        value = value[:-1] + '+00:00'
    try:
        moment = datetime.datetime.fromisoformat(value)
    except ValueError:
        raise _invalid('%s %r is not an ISO 8601 date and time'
                       % (name, text))
    if moment.tzinfo is None:
        raise _invalid('%s %r has no timezone; add Z or an offset such as '
                       '+02:00' % (name, text))
    return moment.astimezone(datetime.timezone.utc).replace(microsecond=0)


def _time(moment):
    return None if moment is None else moment.strftime('%Y-%m-%dT%H:%M:%SZ')


class _Held:
    """Something holding ``count`` rows over [start, end)."""

    def __init__(self, kind, item, start, end, status, count, own=None):
        self.kind = kind
        self.item = item
        self.start = start
        self.end = end
        self.status = status
        self.count = count
        self.own = (item.get('project_id') == PROJECT if own is None
                    else own)

    def bar(self, api):
        """As the caller may see it."""
        bar = {'kind': self.kind, 'start': _time(self.start),
               'end': _time(self.end), 'own': self.own,
               'count': self.count}
        if self.own or not api.member_only:
            bar.update(status=self.status, id=self.item['id'])
        else:
            bar['status'] = 'busy'
        if not api.member_only:
            bar['project_id'] = self.item.get('project_id')
        return bar


def _span(item):
    """(start, end) of a stored booking, lease or device reservation;
    None when the double holds no times for it (end None: open)."""
    try:
        start = _parse(item['start'], 'start')
        end = None if item.get('end') is None else _parse(item['end'],
                                                          'end')
    except (KeyError, fake_rest.ApiError):
        return None
    return start, end


_FAR = datetime.datetime.max.replace(tzinfo=datetime.timezone.utc)


def _until(end, guard):
    return _FAR if end is None else end + guard


def _overlaps(start, end, a, b):
    return start < b and (end is None or end > a)


def _subject(params):
    """('flavor_id' or 'host_id', the id or name given)."""
    unknown = sorted(set(params) - set(PARAMS))
    if unknown:
        raise _invalid("unknown query parameter '%s'; allowed are %s" % (
            unknown[0], ', '.join(sorted(PARAMS))))
    given = [k for k in ('flavor_id', 'host_id') if params.get(k)]
    if len(given) != 1:
        raise _invalid("give one of the query parameters 'flavor_id' (a "
                       "catalogue flavor's calendar) and 'host_id' (a "
                       "host's)")
    return given[0], params[given[0]]


def _range(api, params):
    now = _parse(api.calendar_now, 'now')
    start = _parse(params['start'], 'start') if 'start' in params else now
    end = (_parse(params['end'], 'end') if 'end' in params
           else start + datetime.timedelta(days=DEFAULT_DAYS))
    if end <= start:
        raise _invalid("query parameter 'end' %s must be after 'start' %s"
                       % (_time(end), _time(start)))
    if end - start > datetime.timedelta(days=MAX_DAYS):
        raise _invalid('the calendar shows at most %d days; %s to %s is '
                       'longer' % (MAX_DAYS, _time(start), _time(end)))
    return start, end, now


def _lay_out(held, lanes, guard):
    """Rows (at least ``lanes``) of the held, by start, each on the
    lowest rows free at its start (reserve.booking.gantt.lay_out)."""
    rows = [[] for _ in range(lanes)]
    until = [None] * lanes
    for item in sorted(held, key=lambda h: (h.start, _until(h.end, guard))):
        free = [i for i, u in enumerate(until)
                if u is None or u <= item.start]
        for _ in range(item.count):
            if free:
                lane = free.pop(0)
            else:
                lane = len(rows)
                rows.append([])
                until.append(None)
            rows[lane].append(item)
            until[lane] = _until(item.end, guard)
    return rows


def _rows(api, label, held, lanes, guard, maintenance):
    return [(label % n if n <= lanes else 'over %d' % (n - lanes),
             [h.bar(api) for h in lane] + maintenance)
            for n, lane in enumerate(_lay_out(held, lanes, guard), 1)]


def _free(lanes, occupants, guard, start, end):
    """Steps [{start, end, free}] covering [start, end): what the
    occupants ((start, end, count)) leave of ``lanes``, each until its
    end and the guard."""
    held = [(s, _until(e, guard), n) for s, e, n in occupants]
    cuts = {start}
    for s, u, _n in held:
        cuts.update(t for t in (s, u) if start < t < end)
    cuts = sorted(cuts)
    steps = []
    for a, b in zip(cuts, cuts[1:] + [end]):
        load = sum(n for s, u, n in held if s <= a < u)
        free = max(lanes - load, 0)
        if steps and steps[-1]['free'] == free:
            steps[-1]['end'] = _time(b)
        else:
            steps.append({'start': _time(a), 'end': _time(b),
                          'free': free})
    return steps


def _maintenance(windows, start, end):
    spans = []
    for window in windows:
        span = _span(window)
        if span is not None and _overlaps(span[0], span[1], start, end):
            spans.append((span, window.get('note')))
    bars = [{'kind': 'maintenance', 'start': _time(s), 'end': _time(e),
             'note': note} for (s, e), note in spans]
    return bars, [span for span, _note in spans]


def _flavor_view(api, ref, start, end, now):
    flavor = api.flavors.lookup(ref)
    slots = int(flavor.get('slots') or 0)
    held = []
    for item in api.reservations.items:
        span = _span(item)
        if item.get('flavor_id') == flavor['id'] and span is not None and \
                _overlaps(span[0], span[1], start, end):
            held.append(_Held('booking', item, span[0], span[1],
                              item.get('status'),
                              int(item.get('instance_count') or 1)))
    bars, windows = _maintenance(
        [w for w in api.windows.items
         if w.get('all_flavors') or flavor['id'] in (w.get('flavors')
                                                     or [])], start, end)
    rows = _rows(api, 'slot %d', held, slots, GUARD, bars)
    occupants = [(h.start, h.end, h.count) for h in held
                 if h.status in LIVE or (h.end is not None and
                                         h.end <= now)]
    occupants += [(s, e, slots) for s, e in windows]
    subject = {'id': flavor['id'], 'name': flavor['name'], 'slots': slots}
    return 'flavor', subject, rows, _free(slots, occupants, GUARD, start,
                                          end)


def _gpus(item):
    return sum((item.get('gpus') or {}).values())


def _nova_rows(api, host, start, end, maintenance):
    held = []
    for allocation in api.allocations.items:
        if allocation.get('host_id') != host['id']:
            continue
        if allocation.get('booking_id'):
            kind, coll, ref = ('booking', api.reservations,
                               allocation['booking_id'])
        else:
            kind, coll, ref = 'lease', api.leases, allocation.get('lease_id')
        try:
            item = coll.lookup(ref)
        except fake_rest.ApiError:
            continue
        span = _span(item)
        if span is None or not _overlaps(span[0], span[1], start, end):
            continue
        try:
            per = _gpus(api.flavors.lookup(item.get('flavor_id')))
        except fake_rest.ApiError:
            per = 0
        held.append(_Held(kind, item, span[0], span[1], item.get('status'),
                          int(allocation.get('amount') or 1) * (per or 1)))
    lanes, label = _gpus(host), 'GPU %d'
    if not lanes:
        # No GPUs recorded: as many rows as instances held at once.
        lanes, label = max([sum(h.count for h in held
                                if h.start <= t < _until(h.end, GUARD))
                            for t in [start] + [h.start for h in held]]
                           ), 'instance %d'
    rows = _rows(api, label, held, lanes, GUARD, maintenance)
    return rows, lanes, [(h.start, h.end, h.count) for h in held], GUARD


def _libvirt_rows(api, host, start, end, maintenance):
    devices = sorted((d for d in api.devices.items
                      if d.get('host_id') == host['id']
                      or d.get('host') == host['name']),
                     key=lambda d: d.get('pci_address') or '')
    rows, occupants = [], []
    for device in devices:
        held = []
        for item in api.device_reservations.items:
            span = _span(item)
            if device['id'] in (item.get('device_ids') or []) and \
                    span is not None and \
                    _overlaps(span[0], span[1], start, end) and \
                    str(item.get('status')).upper() in DEVICE_LIVE:
                held.append(_Held('device_reservation', item, span[0],
                                  span[1], str(item['status']).upper(), 1))
        if device.get('physical_function') and not held:
            continue
        label = device.get('pci_address') or device['id']
        if device.get('product_name'):
            label += ' ' + device['product_name']
        rows.append((label, [h.bar(api) for h in held] + maintenance))
        occupants += [(h.start, h.end, 1) for h in held]
    return rows, len(rows), occupants, datetime.timedelta(0)


def _host_view(api, ref, start, end):
    host = api.hosts.lookup(ref)
    bars, windows = _maintenance(api.host_windows.get(host['id'], []),
                                 start, end)
    kind = host.get('kind') or 'nova'
    if kind == 'libvirt':
        rows, lanes, occupants, guard = _libvirt_rows(api, host, start, end,
                                                      bars)
    else:
        rows, lanes, occupants, guard = _nova_rows(api, host, start, end,
                                                   bars)
    occupants += [(s, e, lanes) for s, e in windows]
    subject = {'id': host['id'], 'name': host['name'], 'kind': kind}
    return 'host', subject, rows, _free(lanes, occupants, guard, start,
                                        end)


def answer(api, method, path, params):
    if api.version() < VERSION:
        raise fake_rest.ApiError(404, 'The resource %s could not be found.'
                                 % path)
    if method != 'GET':
        raise fake_rest.ApiError(405, 'Method %s is not allowed.' % method,
                                 'reserve.method_not_allowed')
    # In the API's order: the parameters, the policy, the range.
    kind, ref = _subject(params)
    rule = 'reserve:calendar:%s' % kind[:-len('_id')]
    if rule in api.denied:
        raise fake_rest.ApiError(403, 'Policy does not allow %s to be '
                                      'performed.' % rule,
                                 'reserve.forbidden')
    start, end, now = _range(api, params)
    if kind == 'flavor_id':
        view = _flavor_view(api, ref, start, end, now)
    else:
        view = _host_view(api, ref, start, end)
    name, subject, rows, free = view
    return fake_rest.FakeResponse(200, {'calendar': {
        'view': name, 'subject': subject, 'start': _time(start),
        'end': _time(end), 'now': _time(now),
        'rows': [{'label': label, 'bars': bars} for label, bars in rows],
        'free': free, 'statuses': list(STATUSES)}})
