"""Fixtures of the hostile-tenant suites: the API over HTTP (``http`` on
the built-in server, ``gunicorn_http`` under gunicorn), on top of the
in-process fixtures of the API and device tests."""
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import casts  # noqa: F401
from tests.functional.devices.conftest import a100  # noqa: F401
from tests.functional.devices.conftest import gpu_api  # noqa: F401
from tests.functional.hostile.http import http  # noqa: F401
from tests.functional.hostile.wsgi_server import gunicorn_http  # noqa: F401
