"""The first middleware a request meets, before anything reads it.

Three things must be settled before the proxy headers are parsed, CORS
answers, or authentication looks at the request:

* **the peer**: the address of the socket's peer (REMOTE_ADDR as the
  server set it) is kept under PEER_ADDRESS, because HTTPProxyToWSGI
  rewrites REMOTE_ADDR from ``X-Forwarded-For`` / ``Forwarded``, headers
  any caller may send. The noauth guard (reserve.api.auth) reads this one.
* **the body's size**: at most ``[api]max_body_bytes + 1`` bytes are read
  from the stream, chunked or not. A larger body is a 413 answered at
  once, without reading the rest, and the connection is closed. What was
  read is handed on as a plain body with its Content-Length, so nothing
  after this reads the socket.
* **no method override**: pecan's RestController takes ``_method`` from
  the query string or a form body as the request's method, so a POST
  any web page can send (a form, no CORS preflight) would act as a
  DELETE. A request naming ``_method`` is a 400.
"""
import io
import urllib.parse

from cheroot import errors as cheroot_errors
from oslo_config import cfg
from oslo_middleware import request_id

from reserve.api import errors

PEER_ADDRESS = 'reserve.peer_address'

# Read from the stream in pieces of this size.
_PIECE = 64 * 1024

FORM = 'application/x-www-form-urlencoded'


class _TooLarge(Exception):
    pass


class _Unreadable(Exception):
    pass


def _refusal(environ, start_response, status, detail, code=None,
             close=False):
    headers = {'Connection': 'close'} if close else None
    response = errors.error_response(
        status, detail, environ.get(request_id.ENV_REQUEST_ID), code=code,
        headers=headers)
    return response(environ, start_response)


def _read_at_most(stream, limit):
    """The body from ``stream``, or _TooLarge once more than ``limit``
    bytes came (never reading more than limit + 1)."""
    pieces = []
    taken = 0
    while taken <= limit:
        try:
            piece = stream.read(min(_PIECE, limit + 1 - taken))
        except cheroot_errors.MaxSizeExceeded:
            # The built-in server's own limit, set just above ours.
            raise _TooLarge()
        except (OSError, ValueError) as exc:
            # cheroot says a chunk would pass its limit with an IOError;
            # otherwise a bad chunk size, or a caller gone.
            if 'Too Large' in str(exc):
                raise _TooLarge()
            raise _Unreadable()
        if not piece:
            break
        pieces.append(piece)
        taken += len(piece)
    if taken > limit:
        raise _TooLarge()
    return b''.join(pieces)


def _names_method(text):
    return any(name.strip() == '_method' for name, _value in
               urllib.parse.parse_qsl(text, keep_blank_values=True))


def too_large_detail(limit):
    return ('The request body is larger than %d bytes, the most this API '
            'takes ([api] max_body_bytes).' % limit)


class EdgeGuard:
    """Peer address kept, body size bounded, ``_method`` refused (see
    the module docstring)."""

    def __init__(self, application, conf=None):
        self.application = application
        self.conf = conf or cfg.CONF

    def __call__(self, environ, start_response):
        environ[PEER_ADDRESS] = environ.get('REMOTE_ADDR') or ''
        if _names_method(environ.get('QUERY_STRING', '')):
            return _refusal(environ, start_response, 400,
                            'The _method parameter is not taken: send the '
                            'request with its own HTTP method.')
        limit = self.conf.api.max_body_bytes
        chunked = 'chunked' in environ.get(
            'HTTP_TRANSFER_ENCODING', '').lower()
        declared = environ.get('CONTENT_LENGTH') or ''
        if not chunked:
            try:
                length = int(declared or 0)
            except ValueError:
                length = -1
            if length < 0:
                return _refusal(environ, start_response, 400,
                                'Content-Length %r is not a number of '
                                'bytes.' % declared[:40], close=True)
            if length > limit:
                return _refusal(environ, start_response, 413,
                                too_large_detail(limit),
                                code='reserve.body_too_large', close=True)
            if length == 0:
                environ.pop('CONTENT_LENGTH', None)
                return self.application(environ, start_response)
        try:
            body = _read_at_most(environ['wsgi.input'], limit)
        except _TooLarge:
            return _refusal(environ, start_response, 413,
                            too_large_detail(limit),
                            code='reserve.body_too_large', close=True)
        except _Unreadable:
            return _refusal(environ, start_response, 400,
                            'The request body could not be read (a bad '
                            'chunk size, or the connection dropped).',
                            close=True)
        environ.pop('HTTP_TRANSFER_ENCODING', None)
        environ['wsgi.input'] = io.BytesIO(body)
        environ['CONTENT_LENGTH'] = str(len(body))
        media_type = environ.get('CONTENT_TYPE', '').split(';')[0]
        if (media_type.strip().lower() == FORM and
                _names_method(body.decode('latin-1'))):
            return _refusal(environ, start_response, 400,
                            'The _method parameter is not taken: send the '
                            'request with its own HTTP method.')
        return self.application(environ, start_response)
