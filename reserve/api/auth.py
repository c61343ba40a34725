"""Authentication in front of the pecan application.

``keystone``: keystonemiddleware's auth_token validates the token and sets
the X-User-Id / X-Project-Id / X-Roles headers the context is built from.
``noauth``: the caller's headers are trusted, with defaults so that a bare
``curl`` works in development.

The version documents (``/`` and ``/v1``) and the OpenAPI description
(``/v1/openapi.json``) are public: they are served without a token, as
other OpenStack APIs do, so clients can discover the API before they
authenticate. So are the flavor exporter's URLs with ``[flavor_exporter]
auth_required = False`` (reserve.api.flavor_exporter).
"""
import ipaddress

from keystonemiddleware import auth_token
from oslo_config import cfg
from oslo_middleware import request_id

from reserve.api import edge
from reserve.api import errors
from reserve.api import flavor_exporter

PUBLIC_PATHS = ('/', '/v1', '/v1/openapi.json')

NOAUTH_USER_ID = 'noauth-user'
NOAUTH_PROJECT_ID = 'noauth-project'
NOAUTH_ROLES = 'admin,member,reader'

# Identity headers a client must never be able to set for itself on a
# path that skips authentication.
_IDENTITY_HEADERS = (
    'HTTP_X_IDENTITY_STATUS', 'HTTP_X_SERVICE_IDENTITY_STATUS',
    'HTTP_X_USER_ID', 'HTTP_X_USER', 'HTTP_X_USER_NAME',
    'HTTP_X_PROJECT_ID', 'HTTP_X_TENANT_ID', 'HTTP_X_TENANT',
    'HTTP_X_PROJECT_NAME', 'HTTP_X_TENANT_NAME', 'HTTP_X_ROLES',
    'HTTP_X_ROLE', 'HTTP_X_SERVICE_ROLES', 'HTTP_X_IS_ADMIN_PROJECT',
    'HTTP_OPENSTACK_SYSTEM_SCOPE',
)


def is_loopback(address):
    """Whether a listen or peer address is on loopback. An empty or
    missing one is not: a server that cannot tell who the peer is (a
    Unix socket behind a proxy) is answering anybody, and an empty
    listen address means every interface."""
    if not address:
        return False
    if address == 'localhost':
        return True
    try:
        return ipaddress.ip_address(address.split('%')[0]).is_loopback
    except ValueError:
        return False


class NoAuthMiddleware:
    """Trusts the identity headers; fills in development defaults.

    Since every caller may then act as an administrator, callers that are
    not on loopback get 403 unless allow_remote. The caller is the
    socket's peer as reserve.api.edge recorded it before the proxy headers
    were parsed: ``X-Forwarded-For: 127.0.0.1`` makes no one local. A
    request that did not come through reserve.api.edge has no known peer
    and is refused too."""

    def __init__(self, application, allow_remote=False):
        self.application = application
        self.allow_remote = allow_remote

    def __call__(self, environ, start_response):
        if not (self.allow_remote or
                is_loopback(environ.get(edge.PEER_ADDRESS))):
            response = errors.error_response(
                403, 'This API runs without authentication ([api] '
                     'auth_strategy = noauth) and answers only on loopback '
                     '(set [api] noauth_allow_remote = true to change that)',
                request_id=environ.get(request_id.ENV_REQUEST_ID))
            return response(environ, start_response)
        environ.setdefault('HTTP_X_USER_ID', NOAUTH_USER_ID)
        if not any(environ.get(h) for h in ('HTTP_X_PROJECT_ID',
                                            'HTTP_X_TENANT_ID')):
            environ['HTTP_X_PROJECT_ID'] = NOAUTH_PROJECT_ID
        if not environ.get('HTTP_X_ROLES'):
            environ['HTTP_X_ROLES'] = NOAUTH_ROLES
        environ.setdefault('HTTP_X_IDENTITY_STATUS', 'Confirmed')
        return self.application(environ, start_response)


def is_public(path):
    """The version documents, the OpenAPI description, and the flavor
    exporter's URLs when [flavor_exporter] opens them."""
    path = path or '/'
    if path != '/':
        path = path.rstrip('/')
    return path in PUBLIC_PATHS or flavor_exporter.is_open(path)


class PublicPathsMiddleware:
    """Sends public paths straight to the app, the rest through auth."""

    def __init__(self, application, authenticated):
        self.application = application
        self.authenticated = authenticated

    def __call__(self, environ, start_response):
        if is_public(environ.get('PATH_INFO')):
            for header in _IDENTITY_HEADERS:
                environ.pop(header, None)
            return self.application(environ, start_response)
        return self.authenticated(environ, start_response)


def wrap(application, conf=None):
    """``application`` behind the configured ``[api]auth_strategy``."""
    conf = conf or cfg.CONF
    strategy = conf.api.auth_strategy
    if strategy == 'noauth':
        authenticated = NoAuthMiddleware(
            application, allow_remote=conf.api.noauth_allow_remote)
        # Nothing to protect the version documents from in noauth mode.
        return authenticated
    authenticated = auth_token.AuthProtocol(
        application, {'oslo_config_config': conf})
    return PublicPathsMiddleware(application, authenticated)
