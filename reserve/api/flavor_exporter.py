"""The URLs of the de.NBI OpenStack Flavor Exporter, served live.

Sites moving from the exporter (formerly OpenstackGPUService) keep the
dashboards that read it: with ``[flavor_exporter] enabled``, reserve-api
answers

* ``GET /gpus/flavors/``: the catalogue flavors whose instances ask for
  GPUs;
* ``GET /v2/flavors/``: every catalogue flavor;

each row the flavor's nova id and name with its ``total`` and
``available`` instances (reserve.api.views.flavor_exporter has the
shape). The figures are computed at each request by the functions behind
``GET /v1/flavors/availability`` (admission.offered and
admission.availability, over the one capacity model): the two never
disagree, and a booking shows at once. The exporter answered from a
cache refreshed every few minutes; here, on a SQLite file, an answer is
given again only until the next commit or the next second
(reserve.api.kept_answers).

The dispatcher sits in front of pecan, behind authentication: with
``[flavor_exporter] auth_required`` (the default) a caller needs what
``/v1/flavors/availability`` needs (its policy) and sees the flavors it
sees there. Without, auth.wrap lets the URLs through untouched (as the
exporter, which had no authentication, served them) and they show only
the active public flavors. The exporter took no query parameters and
ignored any; so do these URLs, so that a dashboard's cache-busting
parameter does not break them.
"""
from oslo_config import cfg
import webob

from reserve.api.controllers.v1 import utils
from reserve.api import errors
from reserve.api.views import flavor_exporter as views
from reserve.booking import admission
from reserve.booking import catalogue
from reserve.booking import sizing
from reserve.common import context as reserve_context
from reserve.common.policies import flavors as flavor_policies
from reserve.common import timeutils
from reserve.db import flavors as flavors_db

CONF = cfg.CONF

GPU_FLAVORS = '/gpus/flavors'
FLAVORS = '/v2/flavors'
PATHS = (GPU_FLAVORS, FLAVORS)


def _route(path):
    """The exporter URL ``path`` is (with or without its trailing
    slash), or None."""
    path = (path or '').rstrip('/')
    return path if path in PATHS else None


def is_open(path, conf=None):
    """Whether ``path`` is an exporter URL served without a token."""
    conf = conf or CONF
    return bool(conf.flavor_exporter.enabled and
                not conf.flavor_exporter.auth_required and _route(path))


def _asks_gpus(flavor):
    """Whether an instance of the catalogue flavor asks for GPUs, read
    from its recorded nova flavor as the capacity model reads it."""
    return bool(flavor.nova_flavor and sizing.demand(flavor.nova_flavor))


def _flavors(ctx, authenticated):
    """The catalogue flavors the caller sees at /v1/flavors/availability;
    without authentication, the active public ones."""
    if not authenticated:
        return flavors_db.flavor_list(
            ctx, active_only=True, filters={'is_public': True})
    utils.authorize(ctx, flavor_policies.AVAILABILITY)
    return catalogue.visible_list(
        ctx, utils.can(ctx, flavor_policies.LIST_HIDDEN))


def answer(ctx, route, authenticated=True):
    """The exporter's answer for ``route`` (GPU_FLAVORS or FLAVORS)."""
    flavors = _flavors(ctx, authenticated)
    if route == GPU_FLAVORS:
        flavors = [f for f in flavors if _asks_gpus(f)]
    now = timeutils.utcnow()
    offered, free = admission.offered_and_available(ctx, flavors)
    return views.flavors_view(flavors, offered, free, now)


class FlavorExporterDispatcher:
    """Serves the exporter's URLs when enabled, the rest with the API
    (to which they are unknown: 404)."""

    def __init__(self, application, conf=None):
        self.application = application
        self.conf = conf or CONF

    def __call__(self, environ, start_response):
        route = _route(environ.get('PATH_INFO'))
        if route is None or not self.conf.flavor_exporter.enabled:
            return self.application(environ, start_response)
        request_id = errors.request_id_of(environ)
        if environ.get('REQUEST_METHOD') not in ('GET', 'HEAD'):
            response = errors.error_response(
                405, 'The flavor exporter\'s URLs are read-only: GET only',
                request_id, headers={'Allow': 'GET, HEAD'})
            return response(environ, start_response)
        authenticated = not is_open(route, self.conf)
        kwargs = {'request_id': request_id} if request_id else {}
        if authenticated:
            ctx = reserve_context.RequestContext.from_environ(environ,
                                                              **kwargs)
        else:
            ctx = reserve_context.RequestContext(
                user_id=None, project_id=None, is_admin=False, roles=[],
                overwrite=True, **kwargs)
        try:
            body = answer(ctx, route, authenticated)
        except Exception as exc:
            response = errors.response_for_exception(exc, request_id,
                                                     environ)
            return response(environ, start_response)
        response = webob.Response(content_type=errors.JSON_TYPE,
                                  charset='UTF-8', json_body=body)
        return response(environ, start_response)
