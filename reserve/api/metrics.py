"""``/metrics``: the Prometheus scrape of reserve-api.

Routed before the API's own stack, as ``/healthcheck`` is (between them
and the outside: RequestId, EdgeGuard, the proxy headers and CORS), so
that it needs neither pecan nor, from the networks an operator names, a
token: Prometheus scrapers rarely hold a keystone token.

Who may scrape:

* a peer in ``[metrics] allowed_source_ranges`` (none by default), on a
  request that carries no proxy header: answered at once;
* anybody else goes through the API's authentication (``[api]
  auth_strategy``) and the policy rule ``reserve:metrics:get``
  (administrators and the service role): 401 without a token, 403 when
  the rule refuses.

The peer is the socket's (reserve.api.edge kept it before
X-Forwarded-For was read). A request that came through a proxy says
nothing of its client by its peer, so forwarding headers always send it
the authenticated way. With ``[metrics] enabled = false`` the path is
left to the API (404).
"""
import functools
import ipaddress

from oslo_config import cfg
import webob

from reserve.api import auth
from reserve.api import edge
from reserve.api import errors
from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import policy
from reserve.common.policies import metrics as policies
from reserve.metrics import ahead as read_ahead
from reserve.metrics import collector
from reserve.metrics import exposition

PATH = '/metrics'
METHODS = ('GET', 'HEAD')
# Headers a proxy adds: a request with any of them came through one.
PROXY_HEADERS = ('HTTP_X_FORWARDED_FOR', 'HTTP_X_FORWARDED_HOST',
                 'HTTP_X_FORWARDED_PROTO', 'HTTP_FORWARDED')


def source_ranges(values):
    """The networks of ``[metrics] allowed_source_ranges``; a value that
    is not an address or a network stops the API from starting."""
    networks = []
    for value in values:
        try:
            networks.append(ipaddress.ip_network(value.strip(),
                                                 strict=False))
        except ValueError:
            raise ValueError('[metrics] allowed_source_ranges: %r is not an '
                             'IP address or network' % value)
    return networks


def _peer(environ):
    address = (environ.get(edge.PEER_ADDRESS) or '').split('%')[0]
    try:
        return ipaddress.ip_address(address)
    except ValueError:
        return None


def scrape(environ, start_response, ahead=None):
    """The scrape itself: every metric, in the format the Accept header
    asks (the Prometheus text format by default, or OpenMetrics); the
    database's figures read ahead by ``ahead`` when given."""
    body, content_type = exposition.render(environ.get('HTTP_ACCEPT'),
                                           ahead)
    response = webob.Response(status=200, body=body)
    response.headers['Content-Type'] = content_type
    response.headers['Cache-Control'] = 'no-store'
    # webob answers a HEAD with the headers alone.
    return response(environ, start_response)


def _authorized(environ, start_response, scrape):
    """A scrape the authentication let through, if the policy allows."""
    ctx = reserve_context.RequestContext.from_environ(environ)
    try:
        policy.authorize(ctx, policies.GET)
    except exception.Forbidden as exc:
        response = errors.response_for_exception(
            exc, errors.request_id_of(environ), environ)
        return response(environ, start_response)
    return scrape(environ, start_response)


class MetricsDispatcher:
    """Serves ``/metrics`` (see the module's docstring), the rest with the
    API."""

    def __init__(self, application, conf=None):
        self.application = application
        conf = conf or cfg.CONF
        self.enabled = conf.metrics.enabled
        self.networks = source_ranges(conf.metrics.allowed_source_ranges)
        ahead = None
        if conf.metrics.read_ahead:
            ahead = read_ahead.ReadAhead(collector.read_database,
                                         conf.metrics.max_age)
        self.scrape = functools.partial(scrape, ahead=ahead)
        # Authentication as the API has it, its errors in the one body.
        self.authenticated = errors.FaultMiddleware(auth.wrap(
            functools.partial(_authorized, scrape=self.scrape), conf))

    def open_to(self, environ):
        """Whether this request may scrape without a token."""
        if any(environ.get(header) for header in PROXY_HEADERS):
            return False
        peer = _peer(environ)
        return peer is not None and any(peer in network
                                        for network in self.networks)

    def __call__(self, environ, start_response):
        if not (self.enabled and
                environ.get('PATH_INFO', '').rstrip('/') == PATH):
            return self.application(environ, start_response)
        if environ.get('REQUEST_METHOD') not in METHODS:
            response = errors.error_response(
                405, 'Method %s is not allowed on %s (allowed: %s).' % (
                    environ.get('REQUEST_METHOD'), PATH, ', '.join(METHODS)),
                errors.request_id_of(environ),
                headers={'Allow': ', '.join(METHODS)})
            return response(environ, start_response)
        if self.open_to(environ):
            return self.scrape(environ, start_response)
        return self.authenticated(environ, start_response)
