"""Fixtures of the hostile-tenant suites: the API over HTTP (``http`` on
the built-in server, ``gunicorn_http`` under gunicorn, ``served`` on
each in turn), on top of the in-process fixtures of the API and device
tests."""
import pytest

from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import casts  # noqa: F401
from tests.functional.devices.conftest import a100  # noqa: F401
from tests.functional.devices.conftest import gpu_api  # noqa: F401
from tests.functional.hostile.http import http  # noqa: F401
from tests.functional.hostile.wsgi_server import gunicorn_http  # noqa: F401


@pytest.fixture(params=['builtin', 'gunicorn'])
def served(request):
    """The API on the built-in server, then under gunicorn, for suites
    that reach it through the database and HTTP alone (the device suites
    also need the in-process manager of ``gpu_api``: ``http``)."""
    return request.getfixturevalue(
        'http' if request.param == 'builtin' else 'gunicorn_http')
