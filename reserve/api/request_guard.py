"""What a request must look like before the application sees it.

NUL characters: no database column can hold one (PostgreSQL refuses the
whole statement), so a path or query string carrying ``%00`` is a 400
here rather than a failed query later.

Request bodies are JSON: what the API accepts as a Content-Type.

pecan hands the query string and any form-encoded body to the controllers
as keyword arguments, so webob parses a request it believes is a form.
A ``multipart/form-data`` header without a boundary makes that parse
fail deep inside the routing; a form body would reach a controller as
stray arguments. This middleware settles the type before pecan sees it:

* no body: the Content-Type means nothing and is dropped;
* ``application/json`` (or any ``+json`` type): passed through;
* ``application/x-www-form-urlencoded``: what ``curl -d`` sends by
  default; the body is read as JSON like the rest, never as a form;
* anything else: 415 with a message saying what to send.

A JSON body nesting deeper than MAX_DEPTH is a 400 before anything
decodes it. Its size was bounded before (reserve.api.edge: 413 above
[api]max_body_bytes); the body read there is what is read here.
"""
import webob
import webob.exc

JSON = 'application/json'
# curl -d sends this unless told otherwise; the body is still JSON.
CURL_DEFAULT = 'application/x-www-form-urlencoded'


def _has_body(environ):
    if environ.get('HTTP_TRANSFER_ENCODING', '').lower() == 'chunked':
        return True
    try:
        return int(environ.get('CONTENT_LENGTH') or 0) > 0
    except ValueError:
        return True


def _media_type(content_type):
    return content_type.split(';', 1)[0].strip().lower()


def is_json(media_type):
    return media_type == JSON or (media_type.startswith('application/')
                                  and media_type.endswith('+json'))


def _holds_nul(environ):
    return ('\x00' in environ.get('PATH_INFO', '')
            or '%00' in environ.get('QUERY_STRING', ''))


# Deeper than any body of the API: a deeper one is refused before anything
# decodes it (it would exhaust the JSON decoder's stack).
MAX_DEPTH = 32


def _depth(text):
    """How deep the brackets of a JSON text nest, strings skipped."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == '\\':
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in '[{':
            depth += 1
            deepest = max(deepest, depth)
        elif char in ']}':
            depth -= 1
    return deepest


def _body_problem(environ):
    """Why the JSON body cannot be taken (too deep), or None. The body
    (already bounded by reserve.api.edge) is read here and put back for
    the application."""
    body = webob.Request(environ).body
    if _depth(body.decode('utf-8', 'replace')) > MAX_DEPTH:
        return 'The request body nests deeper than %d levels.' % MAX_DEPTH
    return None


class RequestGuard:
    """Only JSON bodies, and no NUL characters, reach the application
    (see the module docstring)."""

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        if _holds_nul(environ):
            return webob.exc.HTTPBadRequest(
                detail='The URL holds a NUL character (%00).')(
                    environ, start_response)
        declared = environ.get('CONTENT_TYPE', '')
        media_type = _media_type(declared)
        if not _has_body(environ):
            environ.pop('CONTENT_TYPE', None)
        elif media_type == CURL_DEFAULT:
            environ['CONTENT_TYPE'] = JSON
        elif media_type and not is_json(media_type):
            return webob.exc.HTTPUnsupportedMediaType(
                detail='The request body must be JSON (Content-Type: %s), '
                       'not %s.' % (JSON, declared))(environ, start_response)
        if _has_body(environ):
            problem = _body_problem(environ)
            if problem:
                return webob.exc.HTTPBadRequest(detail=problem)(
                    environ, start_response)
        return self.application(environ, start_response)
