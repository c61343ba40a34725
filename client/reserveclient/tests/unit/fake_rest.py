"""How the double of the reserve API answers, whatever the resource.

Responses shaped like a requests response, the error body
``{"errors": [...]}`` and an in-memory collection that pages with
``limit``/``marker`` and a ``next`` link. :mod:`fakes` puts the routes of
the reserve API on top.
"""
import copy
import json
import urllib.parse
import uuid

ENDPOINT = 'http://reserve.example:8785'
VERSION_HEADER = 'OpenStack-API-Version'
MIN_VERSION = (1, 0)


def parse_version(text):
    major, minor = str(text).split('.')
    return int(major), int(minor)


def version_of(headers, maximum):
    """The microversion a request asks for, as the server reads its
    header: the oldest without one, ``maximum`` for ``latest``."""
    value = (headers or {}).get(VERSION_HEADER)
    if value is None:
        return MIN_VERSION
    wanted = value.split()[1]
    if wanted == 'latest':
        return parse_version(maximum)
    return parse_version(wanted)


class FakeResponse:

    def __init__(self, status_code, body=None, headers=None, text=None,
                 reason=None):
        self.status_code = status_code
        self.headers = dict(headers or {})
        if text is None:
            text = '' if body is None else json.dumps(body)
            if body is not None:
                self.headers.setdefault('Content-Type', 'application/json')
        self.text = text
        self.content = text.encode()
        self.reason = reason or {200: 'OK', 201: 'Created',
                                 204: 'No Content'}.get(status_code, 'Error')

    def json(self):
        return json.loads(self.text)


class ApiError(Exception):

    def __init__(self, status, detail, code=None, fields=None):
        super().__init__(detail)
        self.status = status
        self.detail = detail
        # More fields of the error object (a refusal's counter_offer).
        self.fields = fields or {}
        self.code = code or {400: 'reserve.invalid',
                             404: 'reserve.not_found',
                             409: 'reserve.conflict'}.get(status,
                                                          'reserve.error')


def _error(status, detail, code=None, request_id='req-fake', fields=None):
    error = dict(fields or {})
    error.update({
        'status': status, 'code': code or ApiError(status, '').code,
        'title': 'Error', 'detail': detail, 'request_id': request_id})
    return FakeResponse(status, {'errors': [error]},
                        headers={'x-openstack-request-id': request_id})


class Collection:
    """One resource collection: /v1/<name>."""

    def __init__(self, api, name, key, filters=(), by_name=False,
                 view=None):
        self.api = api
        self.name = name
        self.key = key
        self.filters = filters
        self.by_name = by_name
        # view(item, one): an item as the request's microversion shows it
        # (one: in the answer about it alone, not in a page).
        self.view = view
        self.items = []

    def show(self, item, one=True):
        """A copy of ``item`` as the API answers it."""
        shown = copy.deepcopy(item)
        return self.view(shown, one) if self.view else shown

    def add(self, **values):
        item = dict(values)
        item.setdefault('id', str(uuid.uuid4()))
        self.items.append(item)
        return item

    def lookup(self, ref):
        for item in self.items:
            if item['id'] == ref:
                return item
        if self.by_name:
            for item in self.items:
                if item.get('name') == ref:
                    return item
        raise ApiError(404, '%s %s could not be found.' % (
            self.key.replace('_', ' ').capitalize(), ref))

    def matches(self, item, params):
        for name in self.filters:
            if name in params and name not in ('all_projects', 'all'):
                value = params[name]
                field = item.get(name)
                if isinstance(field, bool):
                    field = 'true' if field else 'false'
                if str(field) != value:
                    return False
        return True

    def list(self, params):
        allowed = set(self.filters) | {'limit', 'marker'}
        for key in params:
            if key not in allowed:
                raise ApiError(400, "unknown query parameter '%s'" % key)
        items = [i for i in self.items if self.matches(i, params)]
        if 'marker' in params:
            ids = [i['id'] for i in items]
            if params['marker'] not in ids:
                raise ApiError(400, 'marker %s not found' % params['marker'])
            items = items[ids.index(params['marker']) + 1:]
        limit = min(int(params.get('limit', self.api.max_limit)),
                    self.api.max_limit)
        page = items[:limit]
        links = []
        if page and len(page) >= limit:
            query = {k: v for k, v in params.items()
                     if k not in ('limit', 'marker')}
            query.update(limit=limit, marker=page[-1]['id'])
            links.append({'rel': 'next', 'href': '%s/v1/%s?%s' % (
                ENDPOINT, self.name, urllib.parse.urlencode(query))})
        return {self.name.replace('-', '_'): [self.show(i, one=False)
                                              for i in page],
                'links': links}
