"""WSGI entry point of nova-api for gunicorn.

nova's WSGI application parses ``sys.argv`` with oslo.config when it is
built, and would choke on gunicorn's own command line: hide it first. The
configuration files come from OS_NOVA_CONFIG_DIR / OS_NOVA_CONFIG_FILES
(the paste file first).
"""
import sys

sys.argv = ['nova-api']

from nova.wsgi.osapi_compute import application  # noqa: E402,F401
