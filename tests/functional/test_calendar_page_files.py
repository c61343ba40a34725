"""/calendar/: the calendar page's static files, served by the API's
whole WSGI stack before authentication, read only, with its guards."""
from tests.functional.api_fixtures import api  # noqa: F401


def test_the_page_and_its_files(api):
    page = api.get('/calendar/')
    assert page.content_type == 'text/html'
    assert 'calendar.js' in page.text and 'calendar.css' in page.text
    assert "connect-src 'self'" in page.headers['Content-Security-Policy']
    assert page.headers['X-Content-Type-Options'] == 'nosniff'
    assert api.get('/calendar/calendar.js').content_type == \
        'text/javascript'
    assert api.get('/calendar/calendar.css').content_type == 'text/css'
    # Every answer carries a request id, as the API's do.
    assert page.headers['x-openstack-request-id'].startswith('req-')


def test_the_bare_path_redirects_and_nothing_else_is_served(api):
    bare = api.get('/calendar')
    assert bare.status_int == 301
    assert bare.location.endswith('/calendar/')
    assert api.get('/calendar/nope.js', expect_errors=True).status_int == 404
    for path in ('/calendar/../app.py', '/calendar/%2e%2e/app.py'):
        assert api.get(path, expect_errors=True).status_int in (403, 404)
    post = api.post('/calendar/', 'x', expect_errors=True)
    assert post.status_int == 405
    assert post.headers['Allow'] == 'GET, HEAD'
