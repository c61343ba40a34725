"""The calendar page: static HTML, CSS and a script under ``/calendar/``,
served by reserve-api itself, before authentication (the page holds no
data; its script calls the REST API with the user's token, or none on an
API without authentication).

The files are reserve/api/static/calendar/, vendored: no build step and
nothing fetched from elsewhere, which the Content-Security-Policy holds
the page to (the script may only call this API).
"""
import os

import webob
import webob.static

PATH = '/calendar'
STATIC = os.path.join(os.path.dirname(__file__), 'static', 'calendar')
HEADERS = {
    'Content-Security-Policy': (
        "default-src 'none'; script-src 'self'; style-src 'self'; "
        "img-src 'self' data:; connect-src 'self'; form-action 'self'; "
        "base-uri 'none'"),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    # Kept fresh: a new release's page must not run an old script.
    'Cache-Control': 'no-cache',
}


class PagesDispatcher:
    """Serves ``/calendar/`` (``/calendar`` redirects there) from the
    static files, the rest with the API."""

    def __init__(self, application):
        self.application = application
        self.files = webob.static.DirectoryApp(STATIC)

    def __call__(self, environ, start_response):
        path = environ.get('PATH_INFO', '')
        if path != PATH and not path.startswith(PATH + '/'):
            return self.application(environ, start_response)
        request = webob.Request(environ)
        if request.method not in ('GET', 'HEAD'):
            response = webob.Response(status=405, content_type='text/plain',
                                      text='405: the calendar page is read '
                                           'only\n')
            response.headers['Allow'] = 'GET, HEAD'
        elif path == PATH:
            response = webob.Response(status=301, location=(
                request.application_url + PATH + '/'))
        else:
            request.path_info_pop()
            if request.path_info in ('', '/'):
                request.path_info = '/index.html'
            response = request.get_response(self.files)
        response.headers.update(HEADERS)
        return response(environ, start_response)
