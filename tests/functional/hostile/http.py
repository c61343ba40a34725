"""The real API over HTTP, for the hostile-tenant tests.

``http`` serves the WSGI stack of the ``api`` fixture
(tests.functional.api_fixtures) with reserve-api's own built-in server
on a free loopback port, in a thread of the test process, so that the
doubles the other fixtures install (nova, the fake manager, the libvirt
test hosts) answer its requests too. Each request names the persona it
is sent as: two projects and the roles of the secure-RBAC model.
"""
import socket
import threading

import pytest
import requests

from reserve.cmd import api as api_cmd
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import CONF
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.functional.api_fixtures import persona
from tests.functional.api_fixtures import READER_A

# Who the suites act as. A reader that may read every project (an
# auditor) and a service user hold read rules that must grant no write.
PERSONAS = {
    'admin': ADMIN,
    'member_a': MEMBER_A,
    'reader_a': READER_A,
    'member_b': MEMBER_B,
    'reader_all': persona('audrey', 'audit-project', 'reader,service'),
    'service': persona('nova', 'service-project', 'service'),
    # A member of its own project who also holds the all-projects read
    # rule (the service role): it passes every write policy on its own
    # project and sees every project's rows, yet may change none of them.
    'member_all': persona('sam', 'ops-project', 'member,reader,service'),
}


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class Http:
    """A requests session on the served API, one call per request."""

    def __init__(self, url):
        self.url = url
        self.session = requests.Session()

    def request(self, who, method, path, json=None, headers=None,
                **kwargs):
        sent = dict(PERSONAS[who] if isinstance(who, str) else who)
        sent.update(headers or {})
        kwargs.setdefault('timeout', 60)
        return self.session.request(method, self.url + path, json=json,
                                    headers=sent, **kwargs)

    def get(self, who, path, **kwargs):
        return self.request(who, 'GET', path, **kwargs)

    def post(self, who, path, json=None, **kwargs):
        return self.request(who, 'POST', path, json=json, **kwargs)

    def patch(self, who, path, json=None, **kwargs):
        return self.request(who, 'PATCH', path, json=json, **kwargs)

    def delete(self, who, path, **kwargs):
        return self.request(who, 'DELETE', path, **kwargs)


def assert_http_error(response, status, detail_has=()):
    """``response`` is the API's one error body with ``status``; returns
    the error's detail."""
    assert response.status_code == status, (response.status_code,
                                            response.text)
    errors = response.json()['errors']
    assert len(errors) == 1 and errors[0]['status'] == status
    detail = errors[0]['detail']
    for text in ([detail_has] if isinstance(detail_has, str)
                 else detail_has):
        assert text in detail, detail
    assert 'Traceback' not in response.text
    return detail


@pytest.fixture
def http(api):  # noqa: F811 (the api fixture, by name)
    """The ``api`` fixture's application on the built-in server."""
    CONF.set_override('port', free_port(), group='api')
    server = api_cmd.make_server()
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    client = Http('http://127.0.0.1:%d' % CONF.api.port)
    try:
        yield client
    finally:
        client.session.close()
        server.stop()
        CONF.clear_override('port', group='api')
