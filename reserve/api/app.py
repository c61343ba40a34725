"""The WSGI application of reserve-api.

Middleware, outermost first:

* RequestMetrics: times every answer by route template and status
  (reserve_api_request_duration_seconds);
* RequestId: every answer carries ``x-openstack-request-id``;
* EdgeGuard: keeps the socket's peer address, reads at most
  ``[api]max_body_bytes + 1`` bytes of the body (413 above), refuses
  ``_method`` overrides; nothing before it reads the body or the
  proxy headers (RequestId only reads its own header);
* HTTPProxyToWSGI: honours X-Forwarded-* behind a proxy when enabled;
* CORS: only active when ``[cors]allowed_origin`` is set;
* ``/healthcheck`` (oslo.middleware Healthcheck), unauthenticated;
* ``/calendar/``: the calendar page's static files, unauthenticated
  (reserve.api.pages);
* ``/metrics`` (reserve.api.metrics): the Prometheus scrape, without a
  token from ``[metrics] allowed_source_ranges``, else authenticated
  and under the policy rule ``reserve:metrics:get``;
* FaultMiddleware: one JSON error body for every error, no tracebacks;
* RequestGuard: no NUL in the URL (400), bodies are JSON (else 415)
  and nest at most MAX_DEPTH levels;
* MicroversionMiddleware: ``OpenStack-API-Version`` negotiation;
* authentication (keystonemiddleware or noauth; ``/``, ``/v1`` and
  ``/v1/openapi.json`` public, and the flavor exporter's URLs when
  ``[flavor_exporter] auth_required = False``);
* KeptAnswers: the lists dashboards poll, answered again from memory
  until the database changes, on a SQLite file (reserve.api.kept_answers);
* FlavorExporterDispatcher: the de.NBI flavor exporter's
  ``/gpus/flavors/`` and ``/v2/flavors/`` when ``[flavor_exporter]
  enabled`` (reserve.api.flavor_exporter);
* the pecan application and its hooks.
"""
from oslo_config import cfg
from oslo_middleware import cors
from oslo_middleware import healthcheck
from oslo_middleware import http_proxy_to_wsgi
from oslo_middleware import request_id
import pecan

from reserve.api import auth
from reserve.api.controllers import root
from reserve.api import edge
from reserve.api import errors
from reserve.api import flavor_exporter
from reserve.api import hooks
from reserve.api import json_renderer
from reserve.api import kept_answers
from reserve.api import metrics
from reserve.api import microversion
from reserve.api import pages
from reserve.api import pecan_argspec
from reserve.api import request_guard
from reserve.api import request_metrics
from reserve.metrics import db_errors
from reserve.metrics import exposition

HEALTHCHECK_PATH = '/healthcheck'


class HealthcheckDispatcher:
    """Serves ``/healthcheck`` with oslo.middleware, the rest with the API.

    The healthcheck answers before authentication so that load balancers
    can probe it without a token.
    """

    def __init__(self, application, conf):
        self.application = application
        self.healthcheck = healthcheck.Healthcheck(None, conf)

    def __call__(self, environ, start_response):
        if environ.get('PATH_INFO', '').rstrip('/') == HEALTHCHECK_PATH:
            return self.healthcheck(environ, start_response)
        return self.application(environ, start_response)


def _set_cors_defaults():
    cors.set_defaults(
        allow_headers=['X-Auth-Token', 'X-OpenStack-Request-ID',
                       microversion.HEADER, 'Content-Type'],
        expose_headers=['X-OpenStack-Request-ID', microversion.HEADER,
                        'Location'],
        allow_methods=['GET', 'POST', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'])


def setup_pecan_app():
    """The bare pecan application, without any middleware."""
    pecan_argspec.install()
    return pecan.make_app(
        root.RootController(),
        hooks=[hooks.ContextHook(), hooks.RPCHook(), hooks.ErrorHook()],
        default_renderer='json',
        custom_renderers={'json': json_renderer.JsonRenderer},
        force_canonical=False,
        # Host names contain dots: /v1/hosts/gpu1.example.org is a name,
        # not a request for an ".org" rendering.
        guess_content_type_from_ext=False,
        debug=False,
    )


def setup_app(conf=None):
    """The WSGI application with its whole middleware stack."""
    conf = conf or cfg.CONF
    # A multiprocess directory that is not there fails at start, not at
    # each request's count.
    exposition.check()
    db_errors.install()
    app = setup_pecan_app()
    app = flavor_exporter.FlavorExporterDispatcher(app, conf)
    app = kept_answers.KeptAnswers(app, conf.api.kept_answers)
    app = auth.wrap(app, conf)
    app = microversion.MicroversionMiddleware(app)
    app = request_guard.RequestGuard(app)
    app = errors.FaultMiddleware(app)
    app = HealthcheckDispatcher(app, conf)
    app = pages.PagesDispatcher(app)
    app = metrics.MetricsDispatcher(app, conf)
    _set_cors_defaults()
    app = cors.CORS(app, conf)
    app = http_proxy_to_wsgi.HTTPProxyToWSGI(app, conf)
    app = edge.EdgeGuard(app, conf)
    app = request_id.RequestId(app)
    app = request_metrics.RequestMetrics(app)
    return app
