"""The one error body of the API, and the errors only the API raises.

Every error answer, whatever raised it (a ReserveException, a failed
schema, a webob HTTP error, pecan's routing, the auth middleware or a bug)
has the same JSON shape::

    {"errors": [{"status": 404, "code": "reserve.not_found",
                 "title": "Not Found", "detail": "...",
                 "request_id": "req-..."}]}

``code`` is stable: clients may branch on it; ``detail`` is for humans.
"""
import http
import json

from oslo_log import log as logging
from oslo_middleware import request_id as request_id_mw
import webob
import webob.exc

from reserve.common import exception
from reserve.db import api as db_api

LOG = logging.getLogger(__name__)

JSON_TYPE = 'application/json'

# The generic code of each status; a few exceptions have their own below.
STATUS_CODES = {
    400: 'reserve.invalid',
    401: 'reserve.unauthorized',
    403: 'reserve.forbidden',
    404: 'reserve.not_found',
    405: 'reserve.method_not_allowed',
    406: 'reserve.not_acceptable',
    409: 'reserve.conflict',
    413: 'reserve.over_quota',
    415: 'reserve.unsupported_media_type',
    500: 'reserve.internal_error',
    502: 'reserve.cloud_error',
    503: 'reserve.service_unavailable',
}

EXCEPTION_CODES = {
    exception.InvalidState: 'reserve.invalid_state',
    exception.HostInUse: 'reserve.host_in_use',
    exception.HostAlreadyEnrolled: 'reserve.host_already_enrolled',
    exception.NotEnoughHostsAvailable: 'reserve.no_capacity',
    # the booking desk
    exception.FlavorAlreadyExists: 'reserve.flavor_exists',
    exception.FlavorInUse: 'reserve.flavor_in_use',
    exception.GrantAlreadyExists: 'reserve.grant_exists',
    exception.MaintenanceOverlapsReservations:
        'reserve.maintenance_overlaps_reservations',
    exception.FlavorNotAvailable: 'reserve.flavor_not_available',
    exception.FlavorInactive: 'reserve.flavor_inactive',
    exception.FlavorNotGranted: 'reserve.flavor_not_granted',
    exception.SpotFlavorNotBooked: 'reserve.spot_flavor',
    exception.NotSpotFlavor: 'reserve.not_spot_flavor',
    exception.BookingTooLong: 'reserve.booking_too_long',
    exception.OutsideFlavorWindow: 'reserve.outside_flavor_window',
    exception.OfferLapsed: 'reserve.offer_lapsed',
    exception.OfferUsed: 'reserve.offer_used',
    exception.MaintenanceConflict: 'reserve.maintenance',
    exception.NoCapacity: 'reserve.no_capacity',
    exception.SeriesDoesNotFit: 'reserve.series_does_not_fit',
    # the capacity model
    exception.HostHoldsReservations: 'reserve.host_holds_reservations',
    exception.FlavorNotSized: 'reserve.flavor_not_sized',
    exception.NovaFlavorFitsNoHost: 'reserve.nova_flavor_fits_no_host',
    exception.NovaFlavorNotFound: 'reserve.nova_flavor_not_found',
    # GPU devices
    exception.LibvirtHostUnreachable: 'reserve.libvirt_unreachable',
    exception.LibvirtUriNotAllowed: 'reserve.libvirt_uri_not_allowed',
    exception.HostNotLibvirt: 'reserve.host_not_libvirt',
    exception.DomainNotFound: 'reserve.domain_not_found',
    exception.DevicesUnavailable: 'reserve.units_unavailable',
    exception.DevicesDoNotFit: 'reserve.devices_do_not_fit',
}

INTERNAL_ERROR_DETAIL = ('The server hit an unexpected error; the request id '
                         'identifies it in the service logs.')


class NotAcceptable(exception.ReserveException):
    msg_fmt = 'Not acceptable: %(reason)s'
    code = 406


class ServiceUnavailable(exception.ReserveException):
    msg_fmt = 'Service unavailable: %(reason)s'
    code = 503


def status_title(status):
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return 'Error'


def error_code(status, exc=None):
    """The stable code for ``status`` (and ``exc`` when there is one)."""
    if exc is not None:
        for klass in type(exc).__mro__:
            if klass in EXCEPTION_CODES:
                return EXCEPTION_CODES[klass]
    return STATUS_CODES.get(status, 'reserve.error')


def error_body(status, detail, request_id=None, code=None, title=None,
               fields=None):
    """The JSON document of one error; ``fields``: more of its own
    (a refused booking's counter_offer)."""
    error = {
        'status': status,
        'code': code or error_code(status),
        'title': title or status_title(status),
        'detail': detail,
        'request_id': request_id,
    }
    for name, value in (fields or {}).items():
        error.setdefault(name, value)
    return {'errors': [error]}


def error_response(status, detail, request_id=None, code=None, title=None,
                   headers=None, fields=None):
    """A webob Response carrying the error body."""
    body = error_body(status, detail, request_id, code=code, title=title,
                      fields=fields)
    response = webob.Response(status=status, content_type=JSON_TYPE,
                              charset='UTF-8')
    response.text = json.dumps(body)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def request_id_of(environ):
    return environ.get(request_id_mw.ENV_REQUEST_ID)


# Headers of a webob HTTP error worth keeping on the rewritten answer.
_KEPT_HEADERS = ('Allow', 'WWW-Authenticate', 'Location', 'Retry-After')


def _http_detail(exc, environ):
    """A message for a webob HTTP error that says what went wrong."""
    if exc.detail:
        return str(exc.detail)
    method = (environ or {}).get('REQUEST_METHOD')
    path = (environ or {}).get('PATH_INFO')
    if exc.status_int == 404 and path:
        return 'The resource %s could not be found.' % path
    if exc.status_int == 405 and method and path:
        allowed = exc.headers.get('Allow')
        return 'Method %s is not allowed on %s%s.' % (
            method, path, ' (allowed: %s)' % allowed if allowed else '')
    return exc.explanation or status_title(exc.status_int)


def response_for_exception(exc, request_id=None, environ=None):
    """Turn any exception into the error response the client sees."""
    if isinstance(exc, exception.ReserveException):
        status = exc.code if 400 <= int(exc.code or 0) < 600 else 500
        detail = exc.message
        if status >= 500:
            # A cloud's or libvirt's own text (endpoints, URIs) stays in
            # the log, under the request id the answer carries.
            LOG.error('Request %s failed: %s', request_id, exc.message)
            detail = exc.user_message
        return error_response(status, detail, request_id,
                              code=error_code(status, exc),
                              fields=exc.error_fields())
    if db_api.database_away(exc):
        LOG.warning('Request %s failed, database unavailable: %s',
                    request_id, exc)
        return error_response(
            503, 'The database is unavailable for now; nothing was '
            'changed. Try again in a few seconds.', request_id,
            headers={'Retry-After': '5'})
    if isinstance(exc, webob.exc.HTTPException):
        status = exc.status_int
        if status < 400:
            # A redirect or the like: not an error, hand it over as is.
            return exc
        detail = _http_detail(exc, environ)
        headers = {name: exc.headers[name] for name in _KEPT_HEADERS
                   if name in exc.headers}
        return error_response(status, str(detail), request_id,
                              title=exc.title, headers=headers)
    LOG.exception('Unexpected error in request %s', request_id)
    return error_response(500, INTERNAL_ERROR_DETAIL, request_id)


def is_error_body(response):
    """Whether ``response`` already carries the one error shape."""
    if not (response.content_type or '').startswith(JSON_TYPE):
        return False
    try:
        doc = json.loads(response.body)
    except (ValueError, TypeError):
        return False
    return (isinstance(doc, dict) and isinstance(doc.get('errors'), list)
            and len(doc) == 1)


def _detail_of_foreign_body(response):
    """Best human message out of an error body someone else wrote."""
    text = ''
    try:
        text = response.text
    except (UnicodeDecodeError, AttributeError):
        pass
    if (response.content_type or '').startswith(JSON_TYPE):
        try:
            doc = json.loads(text)
        except ValueError:
            doc = None
        # keystonemiddleware: {"error": {"message": ...}}; pecan: {
        # "description": ...}; others: {"message": ...}.
        if isinstance(doc, dict):
            inner = doc.get('error')
            if not isinstance(inner, dict):
                inner = doc
            for key in ('message', 'description', 'detail', 'explanation'):
                if inner.get(key):
                    return str(inner[key])
        return None
    if (response.content_type or '').startswith('text/plain'):
        text = text.strip()
        return text.splitlines()[-1].strip() if text else None
    return None


class FaultMiddleware:
    """Outermost safety net: nothing leaves the API in another shape.

    Exceptions escaping the application become a 500 without a traceback;
    error answers written by someone else (the auth middleware, a library)
    are rewritten into the one error body, keeping their status and
    meaningful headers.
    """

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        request = webob.Request(environ)
        try:
            response = request.get_response(self.application)
        except Exception as exc:  # noqa: BLE001 - the last line of defence
            response = response_for_exception(exc, request_id_of(environ),
                                              environ)
        if response.status_int >= 400 and not is_error_body(response):
            response = self._rewrite(response, request_id_of(environ))
        return response(environ, start_response)

    @staticmethod
    def _rewrite(response, request_id):
        status = response.status_int
        if status >= 500:
            detail = INTERNAL_ERROR_DETAIL if status == 500 else \
                status_title(status)
        else:
            detail = _detail_of_foreign_body(response) or status_title(status)
        new = error_response(status, detail, request_id)
        for name, value in response.headerlist:
            if name.lower() in ('content-type', 'content-length'):
                continue
            new.headers.add(name, value)
        return new
