"""How the reserve API (v1) is spoken over a keystoneauth session.

The session authenticates (or not: the keystoneauth ``none`` plugin works
against a server running without authentication); this module finds the
endpoint, speaks the microversion header, follows ``next`` links and turns
error answers into :mod:`reserveclient.exceptions` errors. The resource
managers (:mod:`reserveclient.v1.base` and the modules next to it) build
their requests on :class:`HTTPClient`.
"""
import logging
import urllib.parse

from keystoneauth1 import exceptions as ks_exceptions

from reserveclient import exceptions

LOG = logging.getLogger(__name__)

SERVICE_TYPE = 'reserve'
VERSION_HEADER = 'OpenStack-API-Version'

# The microversions this client knows, oldest first. The default ("1")
# asks for the newest of these that the server offers too (see
# reserveclient.v1.names for the names each reads and shows).
MIN_VERSION = '1.0'
MAX_VERSION = '1.11'


def parse_version(text):
    """'1.2' → (1, 2); '1' → (1, None); ValueError otherwise."""
    parts = str(text).strip().split('.')
    if not 1 <= len(parts) <= 2 or not all(p.isdigit() for p in parts):
        raise ValueError('%r is not an API version' % text)
    major = int(parts[0])
    minor = int(parts[1]) if len(parts) == 2 else None
    return major, minor


def format_version(version):
    return '%d.%d' % version


def quote(ref):
    """An id or name as one path segment."""
    return urllib.parse.quote(str(ref), safe='')


def compact(params):
    """Query parameters without the ones left unset."""
    return {k: v for k, v in (params or {}).items() if v is not None}


class HTTPClient:
    """Requests to the reserve API: endpoint, version header, errors."""

    def __init__(self, session, service_type=SERVICE_TYPE, interface=None,
                 region_name=None, endpoint_override=None, api_version='1'):
        self.session = session
        self.service_type = service_type
        self.interface = interface
        self.region_name = region_name
        self.endpoint_override = endpoint_override
        major, minor = parse_version(api_version)
        if major != 1:
            raise exceptions.UnsupportedVersion(
                'reserve API version %s is not supported by this client; '
                'use 1 or 1.<minor>' % api_version)
        self._requested_version = (major, minor)
        self._version = None
        self._server_versions = None
        self._endpoint = None

    # -- endpoint and version ------------------------------------------------

    @property
    def endpoint(self):
        """The root URL of the API (without /v1), found once."""
        if self._endpoint is None:
            url = self.endpoint_override
            if not url:
                try:
                    url = self.session.get_endpoint(
                        service_type=self.service_type,
                        interface=self.interface,
                        region_name=self.region_name)
                except (ks_exceptions.EndpointNotFound,
                        ks_exceptions.MissingAuthPlugin) as exc:
                    raise self._no_endpoint(exc)
                if not url:
                    raise self._no_endpoint(None)
            url = url.rstrip('/')
            if url.endswith('/v1'):
                url = url[:-len('/v1')]
            self._endpoint = url
        return self._endpoint

    def _no_endpoint(self, cause):
        where = ['service type %r' % self.service_type]
        if self.interface:
            where.append('interface %r' % self.interface)
        if self.region_name:
            where.append('region %r' % self.region_name)
        msg = ('No endpoint for the reserve API: none was given and the '
               'service catalog has none (%s). Set OS_RESERVE_URL (or '
               '--os-reserve-url) to the URL of the API, e.g. '
               'http://127.0.0.1:8785' % ', '.join(where))
        if cause is not None:
            msg += ' [%s]' % cause
        return exceptions.EndpointNotFound(msg)

    def server_versions(self):
        """(min, max) microversions of the server, or None if unknown."""
        if self._server_versions is None:
            try:
                doc = self._send('GET', '/v1', None, None, {},
                                 versioned=False)
                version = (doc or {}).get('version') or {}
                self._server_versions = (
                    parse_version(version['min_version']),
                    parse_version(version['max_version']))
            except (exceptions.HttpError, KeyError, TypeError, ValueError):
                LOG.debug('reserve API version discovery failed',
                          exc_info=True)
                self._server_versions = False
        return self._server_versions or None

    @property
    def api_version(self):
        """The microversion sent with every request, as (major, minor)."""
        if self._version is None:
            major, minor = self._requested_version
            if minor is not None:
                self._version = (major, minor)
            else:
                known = parse_version(MAX_VERSION)
                if known == parse_version(MIN_VERSION):
                    self._version = known
                else:
                    versions = self.server_versions()
                    if versions is None:
                        self._version = parse_version(MIN_VERSION)
                    else:
                        self._version = min(known, versions[1])
        return self._version

    def pinned(self):
        """Whether a microversion was asked for (1.<minor>), rather than
        negotiated (1)."""
        return self._requested_version[1] is not None

    def offers(self, version):
        """Whether a call that reads or writes more from microversion
        ``version`` on may ask for it: the version asked for with
        --os-reserve-api-version is that or later, or (negotiating) the
        server offers it."""
        wanted = parse_version(version)
        if self.pinned():
            return self._requested_version >= wanted
        versions = self.server_versions()
        return versions is not None and versions[1] >= wanted

    def newest(self, version):
        """``version`` for a call that shows more from it on, when
        ``offers(version)``; else None (the negotiated version)."""
        return version if self.offers(version) else None

    def require_version(self, version, what):
        """Refuse, clearly, a call the negotiated version does not offer."""
        needed = parse_version(version)
        if self.api_version < needed:
            raise exceptions.UnsupportedVersion(
                '%s needs version %s of the reserve API; this request uses '
                '%s (set --os-reserve-api-version or upgrade the server)' %
                (what, version, format_version(self.api_version)))

    # -- requests ------------------------------------------------------------

    def _send(self, method, path, params, body, headers, versioned=True,
              version=None):
        """``version``: the microversion of this request alone (a call
        that exists only from it), instead of the negotiated one."""
        url = self.endpoint + path
        headers = dict(headers or {})
        if method != 'DELETE':
            # A DELETE answers 204 without a body (errors are JSON anyway);
            # asking for JSON there is refused (406) by some servers.
            headers.setdefault('Accept', 'application/json')
        if versioned:
            headers[VERSION_HEADER] = '%s %s' % (
                SERVICE_TYPE, version or format_version(self.api_version))
        kwargs = {'headers': headers, 'raise_exc': False}
        if params:
            kwargs['params'] = params
        if body is not None:
            kwargs['json'] = body
        try:
            response = self.session.request(url, method, **kwargs)
        except ks_exceptions.ConnectionError as exc:
            raise exceptions.ConnectionFailed(
                'Unable to reach the reserve API at %s: %s' %
                (self.endpoint, exc))
        if response.status_code >= 400:
            raise exceptions.from_response(response, method, url)
        if response.status_code == 204 or not response.content:
            return None
        try:
            return response.json()
        except ValueError:
            raise exceptions.ReserveClientError(
                'The reserve API at %s answered %s %s with something that '
                'is not JSON' % (self.endpoint, method, path))

    def get(self, path, params=None, version=None):
        return self._send('GET', path, compact(params), None, None,
                          version=version)

    def post(self, path, body, params=None, version=None):
        return self._send('POST', path, compact(params), body, None,
                          version=version)

    def patch(self, path, body, version=None):
        return self._send('PATCH', path, None, body, None, version=version)

    def put(self, path, body=None):
        return self._send('PUT', path, None, body, None)

    def delete(self, path, params=None, version=None):
        return self._send('DELETE', path, compact(params), None, None,
                          version=version)

    def list(self, path, key, params=None, limit=None, marker=None,
             version=None):
        """Items of a collection, following ``next`` links.

        Without ``limit`` every page is read; with it, at most ``limit``
        items are returned (more than one page only when the server caps
        its page size below ``limit``).
        """
        base = compact(params)
        params = dict(base)
        if marker:
            params['marker'] = marker
        items = []
        seen = set()
        while True:
            page_params = dict(params)
            if limit is not None:
                page_params['limit'] = limit - len(items)
            doc = self.get(path, page_params, version=version) or {}
            page = doc.get(key) or []
            items.extend(page)
            if limit is not None and len(items) >= limit:
                return items[:limit]
            next_params = self._next_params(doc)
            if not page or next_params is None:
                return items
            token = next_params.get('marker')
            if token in seen:
                return items
            seen.add(token)
            # The link carries the filters; keep ours should it not.
            params = dict(base)
            params.update((k, v) for k, v in next_params.items()
                          if k != 'limit')
            if limit is None and 'limit' in next_params:
                params['limit'] = next_params['limit']

    @staticmethod
    def _next_params(doc):
        for link in doc.get('links') or []:
            if link.get('rel') == 'next' and link.get('href'):
                query = urllib.parse.urlsplit(link['href']).query
                return dict(urllib.parse.parse_qsl(query,
                                                   keep_blank_values=True))
        return None
