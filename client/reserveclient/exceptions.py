"""Errors raised by the reserve client.

Every error is a :class:`ReserveClientError`; its ``str()`` is the message
the ``openstack`` command prints, so it says what went wrong in words a
user can act on. Errors answered by the API keep the fields of the API's
error body (``status``, ``code``, ``title``, ``detail``, ``request_id``).
"""
from osc_lib import exceptions as osc_exceptions


class ReserveClientError(osc_exceptions.CommandError):
    """Base class of every error of this client."""


class EndpointNotFound(ReserveClientError):
    """No URL for the reserve API could be found."""


class ConnectionFailed(ReserveClientError):
    """The reserve API could not be reached."""


class UnsupportedVersion(ReserveClientError):
    """The server does not offer the API version a call needs."""


class HttpError(ReserveClientError):
    """An error answer of the reserve API."""

    def __init__(self, status, detail, code=None, title=None,
                 request_id=None, method=None, url=None, counter_offer=None,
                 occurrences=None):
        # counter_offer: what a refused booking (API 1.6) or device
        # reservation (1.11) is offered; occurrences: those of a refused
        # series that do not fit (1.7).
        self.counter_offer = counter_offer
        self.occurrences = occurrences
        self.status = status
        self.detail = detail
        self.code = code
        self.title = title
        self.request_id = request_id
        self.method = method
        self.url = url
        super().__init__(self.message)

    @property
    def message(self):
        return self.worded(self.detail or self.title or 'no detail given')

    def worded(self, detail):
        """``detail`` with the status, code and request id of this
        error, as the command prints it."""
        what = ['HTTP %s' % self.status]
        if self.code:
            what.append(self.code)
        if self.request_id:
            what.append('request %s' % self.request_id)
        return '%s (%s)' % (detail, ', '.join(what))

    def __str__(self):
        return self.message


class BadRequest(HttpError):
    pass


class Unauthorized(HttpError):
    pass


class Forbidden(HttpError):
    pass


class NotFound(HttpError):
    pass


class Conflict(HttpError):
    pass


class OverLimit(HttpError):
    pass


class NotAcceptable(HttpError):
    pass


_BY_STATUS = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    406: NotAcceptable,
    409: Conflict,
    413: OverLimit,
}


def _foreign_detail(response):
    """The best message in an error body not in the reserve shape."""
    try:
        doc = response.json()
    except ValueError:
        doc = None
    if isinstance(doc, dict):
        inner = doc.get('error') if isinstance(doc.get('error'),
                                               dict) else doc
        for key in ('message', 'detail', 'description', 'explanation',
                    'faultstring'):
            if inner.get(key):
                return str(inner[key])
    text = (response.text or '').strip()
    if text and not text.lstrip().startswith('<'):
        return text.splitlines()[-1].strip()[:500]
    return response.reason or None


def from_response(response, method=None, url=None):
    """The HttpError for an error answer of the API."""
    status = response.status_code
    header_id = (response.headers.get('x-openstack-request-id')
                 or response.headers.get('x-compute-request-id'))
    error = None
    try:
        doc = response.json()
    except ValueError:
        doc = None
    if (isinstance(doc, dict) and isinstance(doc.get('errors'), list)
            and doc['errors'] and isinstance(doc['errors'][0], dict)):
        error = doc['errors'][0]
    counter_offer = occurrences = None
    if error is not None:
        detail = error.get('detail')
        code = error.get('code')
        title = error.get('title')
        request_id = error.get('request_id') or header_id
        if isinstance(error.get('counter_offer'), dict):
            counter_offer = error['counter_offer']
        if isinstance(error.get('occurrences'), list):
            occurrences = error['occurrences']
    else:
        detail = _foreign_detail(response)
        code = None
        title = response.reason
        request_id = header_id
    cls = _BY_STATUS.get(status, HttpError)
    return cls(status, detail, code=code, title=title,
               request_id=request_id, method=method, url=url,
               counter_offer=counter_offer, occurrences=occurrences)
