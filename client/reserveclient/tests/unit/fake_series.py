"""The series routes of the API double (since microversion 1.7):
``POST /v1/series``, ``GET /v1/series[/{id}]`` and ``DELETE
/v1/series/{id}[?from=<reservation>]``. Below 1.7 they are 404, as the
API answers unknown routes.

A series is kept in ``api.series`` and each occurrence booked is one of
the double's reservations, with its ``series_id``, admitted as the
double admits a booking (``api._check_capacity``: a flavor's ``slots``).
The double expands FREQ=DAILY|WEEKLY with INTERVAL and COUNT, the parts
the client's tests send, and refuses any other part as the API does (a
400 naming it). All or nothing unless ``series_policy`` is
``as_many_as_fit``; a refusal is the API's 409
``reserve.series_does_not_fit`` with its ``occurrences``.
"""
import datetime

from reserveclient.tests.unit import fake_rest

VERSION = (1, 7)
PROJECT = 'project-a'
LIVE = ('PENDING_CREATE', 'ALLOCATED', 'ACTIVE')
STEPS = {'DAILY': datetime.timedelta(days=1),
         'WEEKLY': datetime.timedelta(weeks=1)}


def is_series(parts):
    return parts[:2] == ['v1', 'series']


def _date(text):
    return datetime.datetime.fromisoformat(text.rstrip('Z'))


def _iso(when):
    return when.isoformat() + 'Z'


def _invalid(reason):
    return fake_rest.ApiError(400, 'Invalid input: recurrence: %s' % reason)


def _starts(rule, first):
    parts = dict(part.partition('=')[::2] for part in rule.split(';'))
    for name in parts:
        if name not in ('FREQ', 'INTERVAL', 'COUNT'):
            raise _invalid('%s is not supported' % name)
    if parts.get('FREQ') not in STEPS:
        raise _invalid('FREQ=%s is not supported' % parts.get('FREQ'))
    if 'COUNT' not in parts:
        raise _invalid('give exactly one of COUNT and UNTIL')
    step = STEPS[parts['FREQ']] * int(parts.get('INTERVAL', 1))
    return [first + k * step for k in range(int(parts['COUNT']))]


def view(api, item):
    shown = dict(item)
    shown['occurrences'] = [
        {'id': r['id'], 'start': r['start'], 'end': r['end'],
         'status': r['status']}
        for r in api.reservations.items if r.get('series_id') == item['id']]
    return shown


def _create(api, body):
    flavor = api.flavors.lookup(body['flavor_id'])
    start, end = _date(body['start']), _date(body['end'])
    policy = body.get('series_policy', 'all_or_nothing')
    windows = [(s, s + (end - start))
               for s in _starts(body['recurrence'], start)]
    count = body.get('instance_count', 1)
    fitting, refused = [], []
    for first, last in windows:
        try:
            api._check_capacity(flavor, {
                'start': _iso(first), 'end': _iso(last),
                'instance_count': count})
            fitting.append((first, last))
        except fake_rest.ApiError as exc:
            refused.append({'start': _iso(first), 'end': _iso(last),
                            'status': exc.status, 'code': exc.code,
                            'detail': exc.detail})
    if refused and (policy == 'all_or_nothing' or not fitting):
        raise fake_rest.ApiError(
            409, 'The series does not fit: %d of its %d occurrences cannot '
                 'be booked (...); none was booked.' % (len(refused),
                                                        len(windows)),
            'reserve.series_does_not_fit', fields={'occurrences': refused})
    series = api.series.add(
        project_id=PROJECT, user_id='alice', flavor_id=flavor['id'],
        instance_count=count, start=body['start'], end=body['end'],
        recurrence=body['recurrence'], series_policy=policy,
        refused=refused, created_at='2026-01-01T00:00:00Z',
        updated_at='2026-01-01T00:00:00Z')
    for first, last in fitting:
        api.reservations.add(
            project_id=PROJECT, user_id='alice', flavor_id=flavor['id'],
            instance_count=count, start=_iso(first), end=_iso(last),
            status='PENDING_CREATE', status_reason=None, lease_id=None,
            reserved_flavor_id=None, series_id=series['id'],
            created_at='2026-01-01T00:00:00Z',
            updated_at='2026-01-01T00:00:00Z')
    return series


def _cancel(api, series, params):
    occurrences = [r for r in api.reservations.items
                   if r.get('series_id') == series['id']]
    since = None
    if params.get('from') is not None:
        first = [r for r in occurrences if r['id'] == params['from']]
        if not first:
            raise fake_rest.ApiError(
                400, 'Invalid input: from: %s is not an occurrence of '
                     'series %s' % (params['from'], series['id']))
        since = _date(first[0]['start'])
    for booking in occurrences:
        if booking['status'] in LIVE and (
                since is None or _date(booking['start']) >= since):
            booking['status'] = 'COMPLETE'


def answer(api, method, path, parts, params, body):
    if api.version() < VERSION:
        raise fake_rest.ApiError(404, 'The resource %s could not be found.'
                                 % path)
    rest = parts[2:]
    if not rest and method == 'POST':
        return fake_rest.FakeResponse(201, {'series': view(
            api, _create(api, body))})
    if not rest and method == 'GET':
        return fake_rest.FakeResponse(200, api.series.list(params))
    if len(rest) == 1:
        series = api.series.lookup(rest[0])
        if method == 'GET':
            return fake_rest.FakeResponse(200, {'series': view(api, series)})
        if method == 'DELETE':
            _cancel(api, series, params)
            return fake_rest.FakeResponse(204)
    raise fake_rest.ApiError(405, 'Method %s is not allowed.' % method,
                             'reserve.method_not_allowed')
