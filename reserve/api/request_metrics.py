"""The latency of every answer, by route template: a WSGI middleware.

Each request is timed from when it reaches reserve-api to when its body
has been sent (the server closes it), and observed in
``reserve_api_request_duration_seconds`` under its method, its status
code and its route: the template of the API's URL space it matches
(``/v1/reservations/{reservation_id}``), never the URL itself, so that
ids, names and query strings do not make a series each. The templates
are the paths of the OpenAPI description (reserve.api.openapi, which
tests keep equal to the routes served), plus ``/healthcheck`` and
``/metrics``; a word of the URL space wins over a parameter
(``/v1/flavors/availability`` is not a flavor). Anything else is
``other``.
"""
import time

from reserve.api import openapi
from reserve.metrics import instruments

OTHER = 'other'
# Served beside the OpenAPI paths: the calendar page's files, and the
# de.NBI flavor exporter's URLs.
EXTRA_ROUTES = ('/healthcheck', '/metrics', '/calendar', '/calendar/',
                '/calendar/{file}', '/gpus/flavors', '/v2/flavors')
METHODS = ('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS')


def _segments(path):
    return [s for s in path.split('/') if s]


def _is_parameter(segment):
    return segment.startswith('{') and segment.endswith('}')


class Routes:
    """Finds the template a path matches."""

    def __init__(self, templates):
        # {segment count: [(template, its segments)]}, the templates with
        # the most leading words first, so the first match is the best.
        self._by_length = {}
        for template in templates:
            segments = _segments(template)
            self._by_length.setdefault(len(segments), []).append(
                (template, segments))
        for found in self._by_length.values():
            found.sort(key=lambda item: [_is_parameter(s)
                                         for s in item[1]])

    def template_of(self, path):
        segments = _segments(path or '/')
        for template, wanted in self._by_length.get(len(segments), ()):
            if all(_is_parameter(w) or w == s
                   for w, s in zip(wanted, segments)):
                return template
        return OTHER


def api_routes():
    return Routes(list(openapi.document()['paths']) + list(EXTRA_ROUTES))


class _Timed:
    """The body of an answer, observed when the server closes it."""

    def __init__(self, body, done):
        self._body = body
        self._done = done

    def __iter__(self):
        return iter(self._body)

    def close(self):
        try:
            close = getattr(self._body, 'close', None)
            if close is not None:
                close()
        finally:
            self._done()


class RequestMetrics:
    """Times every request (see the module's docstring)."""

    def __init__(self, application, routes=None):
        self.application = application
        self.routes = routes or api_routes()

    def _observe(self, environ, status, began):
        method = environ.get('REQUEST_METHOD', '')
        instruments.REQUEST_DURATION.labels(
            method if method in METHODS else OTHER,
            self.routes.template_of(environ.get('PATH_INFO')),
            status).observe(time.perf_counter() - began)

    def __call__(self, environ, start_response):
        began = time.perf_counter()
        seen = []

        def recording(status, headers, exc_info=None):
            seen.append(status.split(' ', 1)[0])
            return start_response(status, headers, exc_info)

        try:
            body = self.application(environ, recording)
        except Exception:
            self._observe(environ, '500', began)
            raise
        return _Timed(body, lambda: self._observe(
            environ, seen[-1] if seen else '500', began))
