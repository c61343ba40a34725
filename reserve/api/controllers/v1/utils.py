"""Helpers shared by the v1 controllers: query filters, paging, scoping,
dates and RPC error handling."""
import datetime
import urllib.parse

from oslo_config import cfg
from oslo_log import log as logging
import oslo_messaging as messaging
import pecan
import webob

from reserve.api import errors
from reserve.common import exception
from reserve.common import policy
from reserve.common import timeutils

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

_TRUE = ('1', 'true', 'yes', 'on')
_FALSE = ('0', 'false', 'no', 'off')

PAGING_PARAMS = ('limit', 'marker')


def context():
    return pecan.request.context


def format_date(value):
    """A stored naive-UTC datetime as ISO 8601 with Z (None stays None)."""
    return timeutils.isoformat(value)


EARLIEST = datetime.datetime(1970, 1, 1)


def parse_date(value, field):
    """A client's ISO 8601 date (timezone required) → naive UTC, within
    1970 and [api]max_years_ahead from now."""
    parsed = timeutils.parse(value, field=field)
    latest = timeutils.utcnow() + datetime.timedelta(
        days=366 * CONF.api.max_years_ahead)
    if not EARLIEST <= parsed <= latest:
        raise exception.Invalid(
            reason="field or parameter '%s': %s is out of range: dates go "
                   "from %s to %s ([api] max_years_ahead); an open-ended "
                   "window omits its end" % (
                       field, timeutils.isoformat(parsed),
                       timeutils.isoformat(EARLIEST),
                       timeutils.isoformat(latest)))
    return parsed


def check_query_order(start, end):
    """The window a read asks about ends after it starts."""
    if end <= start:
        raise exception.Invalid(
            reason="query parameter 'end' %s must be after 'start' %s" % (
                timeutils.isoformat(end), timeutils.isoformat(start)))


def query_window(params):
    """(start, end) of a read's 'start' and 'end' query parameters, or
    None when it gives neither (it asks about now)."""
    if ('start' in params) != ('end' in params):
        raise exception.Invalid(
            reason="query parameters 'start' and 'end' go together: give "
                   "both for a window, or neither for now")
    if 'start' not in params:
        return None
    start = parse_date(params['start'], 'start')
    end = parse_date(params['end'], 'end')
    check_query_order(start, end)
    return start, end


def parse_bool(name, value):
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise exception.Invalid(
        reason="query parameter '%s' must be true or false, not %r" %
        (name, value))


def query_params(allowed):
    """The query string as a dict, refusing unknown or repeated keys."""
    params = {}
    get = pecan.request.GET
    for key in get.keys():
        if key not in allowed:
            raise exception.Invalid(
                reason="unknown query parameter '%s'; allowed are %s" %
                (key, ', '.join(sorted(allowed))))
        values = get.getall(key)
        if len(values) > 1:
            raise exception.Invalid(
                reason="query parameter '%s' given more than once" % key)
        params[key] = values[0]
    return params


def choice(params, name, choices):
    """params[name] when it is one of ``choices`` (None when absent)."""
    value = params.get(name)
    if value is None:
        return None
    if value not in choices:
        raise exception.Invalid(
            reason="query parameter '%s' must be one of %s, not %r" %
            (name, ', '.join(choices), value))
    return value


def parse_limit(params):
    """The page size: [api]max_limit when absent, never more than it."""
    max_limit = CONF.api.max_limit
    value = params.get('limit')
    if value is None:
        return max_limit
    try:
        limit = int(value)
    except (TypeError, ValueError):
        limit = 0
    if limit < 1 or str(value).strip() != str(limit):
        raise exception.Invalid(
            reason="query parameter 'limit' must be a positive integer, "
                   "not %r" % value)
    return min(limit, max_limit)


def can(ctx, action):
    """Whether policy allows ``action`` on the caller's own project."""
    try:
        return bool(policy.authorize(ctx, action, do_raise=False))
    except exception.Forbidden:
        # A token of the wrong scope is refused even without do_raise.
        return False


def authorize(ctx, action, project_id=None):
    """Enforce ``action`` on ``project_id`` (the caller's by default)."""
    policy.authorize(ctx, action,
                     {'project_id': project_id or ctx.project_id})


def list_scope(ctx, params, all_projects_action):
    """The project a list call is limited to (None: every project).

    Only callers allowed ``all_projects_action`` may set all_projects or
    name another project; everybody else sees their own project only.
    """
    all_projects = parse_bool('all_projects',
                              params.get('all_projects', 'false'))
    project_id = params.get('project_id')
    if all_projects or (project_id and project_id != ctx.project_id):
        authorize(ctx, all_projects_action)
        ctx.all_projects = True
        return project_id
    return ctx.project_id


def show_scope(ctx, all_projects_action):
    """The project a GET of one row is limited to (None for admins)."""
    if can(ctx, all_projects_action):
        ctx.all_projects = True
        return None
    return ctx.project_id


def authorize_write(ctx, project_id, all_projects_action):
    """A write on a row of ``project_id``, after the route's own policy:
    on another project's row the caller needs ``all_projects_action``, an
    explicit write rule. Reading every project (``ctx.all_projects``, set
    by a read rule) never grants a write."""
    if project_id != ctx.project_id:
        authorize(ctx, all_projects_action)


def check_marker(params, lookup):
    """Turn an unknown (or invisible) marker into a 400."""
    marker = params.get('marker')
    if marker is None:
        return None
    try:
        lookup(marker)
    except exception.NotFound:
        raise exception.Invalid(reason='marker %s not found' % marker)
    return marker


def collection(name, items, limit, params, path):
    """``{name: items, "links": [...]}`` with a next link on a full page."""
    links = []
    if items and len(items) >= limit:
        query = {k: v for k, v in params.items() if k not in PAGING_PARAMS}
        query['limit'] = limit
        query['marker'] = items[-1]['id']
        links.append({'rel': 'next',
                      'href': '%s%s?%s' % (pecan.request.application_url,
                                           path,
                                           urllib.parse.urlencode(query))})
    return {name: items, 'links': links}


def url(path):
    return pecan.request.application_url + path


def set_location(location_path):
    """The Location of what a request created."""
    # ids chosen by callers (a project id, a name) may hold any character;
    # a header must stay ASCII.
    pecan.response.location = url(urllib.parse.quote(
        location_path, safe="/:@!$&'()*+,;=-._~"))


def set_created(location_path):
    pecan.response.status = 201
    set_location(location_path)


ITEM_METHODS = 'GET, PATCH, DELETE'
COLLECTION_METHODS = 'GET, POST'


def method_not_allowed(allowed):
    """405 for a method the resource has, but not at this level."""
    pecan.abort(405, headers={'Allow': allowed})


def subresource(subresources, ref, remainder):
    """What a controller's ``_lookup`` returns for item ``ref``: the
    controller of the sub-resource named first in ``remainder`` (made
    from ``subresources``, {name: class taking ref}), and the rest of
    the path. Pecan comes to ``_lookup`` for what the item's own methods
    do not take: no sub-resource is a method the item lacks (405), an
    unknown one a 404."""
    if not remainder:
        method_not_allowed(ITEM_METHODS)
    if remainder[0] in subresources:
        return subresources[remainder[0]](ref), remainder[1:]
    pecan.abort(404)


def no_content():
    """The answer of a successful DELETE: 204 without a body."""
    return webob.Response(status=204)


def cast(what, method, ctx, booking_id, **kwargs):
    """Cast to the worker; a lost cast is logged, not fatal.

    The database row is the truth: the worker's reconciler drives bookings
    whose next step is overdue, so the request has already succeeded.
    """
    try:
        getattr(pecan.request.worker_api, method)(ctx, booking_id, **kwargs)
    except Exception:  # noqa: BLE001 - any transport failure
        LOG.exception('Could not cast %s for %s %s; the reconciler will '
                      'take it up', method, what, booking_id)


def rpc_call(description, func, *args, **kwargs):
    """Call the manager; its errors reach the client with their status.

    Errors from the remote side come back either as the original class
    (when the transport allows reserve's exception module) or as a
    RemoteError naming it; both become the ReserveException they were.
    """
    try:
        return func(*args, **kwargs)
    except messaging.MessagingTimeout:
        raise errors.ServiceUnavailable(
            reason='the lease manager did not answer while trying to %s; '
                   'check that reserve-manager is running and try again' %
                   description)
    except messaging.RemoteError as exc:
        local = getattr(exception, exc.exc_type or '', None)
        if (isinstance(local, type)
                and issubclass(local, exception.ReserveException)):
            raise local(message=exc.value)
        LOG.error('reserve-manager failed to %s: %s: %s', description,
                  exc.exc_type, exc.value)
        raise exception.ReserveException(
            message='reserve-manager failed to %s (%s); see its logs' %
            (description, exc.exc_type))
    except messaging.MessagingException as exc:
        LOG.error('Messaging failure while trying to %s: %s', description,
                  exc)
        raise errors.ServiceUnavailable(
            reason='the message bus failed while trying to %s; try again '
                   'later' % description)
