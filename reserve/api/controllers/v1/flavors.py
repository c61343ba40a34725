"""/v1/flavors: the reservable flavor catalogue.

Administrators write it; everybody reads the flavors they may book (the
active ones that are public or granted to their project). Below a
flavor: ``/projects`` (grants of a private flavor, administrators),
``/free-slots`` (the calendar), ``/opt-in`` (since 1.4: a project opts
in to a spot flavor, or out of it). ``/v1/flavors/availability`` tells
how many instances of each flavor are free.
"""
import datetime

from oslo_config import cfg
from oslo_log import log as logging
from oslo_utils import uuidutils
import pecan
from pecan import rest

from reserve.api.controllers.v1 import method
from reserve.api.controllers.v1 import spot as spot_routes
from reserve.api.controllers.v1 import utils
from reserve.api import microversion
from reserve.api.schemas import flavors as schema
from reserve.api.views import flavors as views
from reserve.booking import admission
from reserve.booking import catalogue
from reserve.booking import gauntlet
from reserve.booking import sizing
from reserve.booking import spot_flavors
from reserve.common import exception
from reserve.common.policies import flavors as policies
from reserve.common.policies import reservations as reservation_policies
from reserve.common import timeutils
from reserve.db import flavors as flavors_db

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

PATH = '/v1/flavors'
AVAILABILITY = 'availability'
# Words of the URL space below /v1/flavors that cannot be flavor names.
RESERVED_NAMES = (AVAILABILITY, 'projects', 'free-slots', 'opt-in', 'new',
                  'edit', 'delete')

LIST_PARAMS = ('category', 'availability_zone', 'is_public', 'active',
               'limit', 'marker')
FREE_SLOTS_PARAMS = ('start', 'end', 'instance_count')
AVAILABILITY_PARAMS = ('start', 'end', 'category', 'availability_zone')
OPT_IN_PARAMS = ('project_id',)

# The fields of the body that are dates.
_DATES = ('start', 'end')


def _record_stands(current, values, spot):
    """Whether the record of entry ``current`` may stand when nova cannot
    be asked: its nova flavor stays the same, and a spot flavor's record
    says that nova flavor is private."""
    return (current is not None and bool(current.nova_flavor) and
            current.nova_flavor_id == values['nova_flavor_id'] and
            (not spot or current.nova_flavor.get('is_public') is False))


def _read_nova_flavor(ctx, values, current=None, spot=False):
    """Record the entry's nova flavor in ``values``, refused (4xx) when
    nova has no such flavor, no enrolled host can hold one of it, or the
    entry is a spot flavor (``spot``) and the nova flavor is public or
    asks no GPU.

    current: the entry being updated. When its nova flavor stays the same
    and nova cannot be asked now, its record stands (an operator changing
    slots or a description does not need nova)."""
    name = values.get('name') or current.name
    try:
        record = sizing.read(values['nova_flavor_id'])
    except exception.CloudError as exc:
        if _record_stands(current, values, spot):
            LOG.warning('Flavor %s: nova flavor %s not read again, the '
                        'record stands: %s', current.name,
                        current.nova_flavor_id, exc)
            if spot:
                sizing.check_spot(name, current.nova_flavor)
            return
        raise
    if spot:
        sizing.check_spot(name, record)
    sizing.check_fits(ctx, record)
    values['nova_flavor'] = record
    values['gpus'] = sizing.demand(record)


def _sees_hidden(ctx):
    return utils.can(ctx, policies.LIST_HIDDEN)


def _check_name(name):
    if uuidutils.is_uuid_like(name):
        raise exception.Invalid(
            reason="field 'name': %r looks like a UUID; flavors are found "
                   "by id or name, so a name cannot be one" % name)
    if name.lower() in RESERVED_NAMES:
        raise exception.Invalid(
            reason="field 'name': %r is reserved by the API; reserved names"
                   " are %s" % (name, ', '.join(RESERVED_NAMES)))


def _columns(body):
    """Column values of a create/update body (dates parsed)."""
    values = {}
    for field, value in body.items():
        if field == 'projects':
            continue
        if field in _DATES:
            value = utils.parse_date(value, field) if value else None
        values[field] = value
    return values


def _check_window(start, end):
    if start and end:
        gauntlet.check_order(start, end)


def _positive_int(params, name, default):
    value = params.get(name)
    if value is None:
        return default
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = 0
    if number < 1 or str(value).strip() != str(number):
        raise exception.Invalid(
            reason="query parameter '%s' must be a positive integer, not "
                   "%r" % (name, value))
    return number


def _check_not_too_long(start, end):
    if end - start > datetime.timedelta(days=CONF.booking.max_query_days):
        raise exception.Invalid(
            reason='the window from %s to %s is longer than %d days' % (
                timeutils.isoformat(start), timeutils.isoformat(end),
                CONF.booking.max_query_days))


class FlavorProjectsController(rest.RestController):
    """/v1/flavors/{id}/projects: the grants of a private flavor."""

    def __init__(self, flavor_ref):
        self.flavor_ref = flavor_ref

    def _flavor(self, ctx):
        return flavors_db.flavor_get(ctx, self.flavor_ref)

    # An unknown query parameter is refused before the policy, as it was.
    @method.expose(policy=policies.PROJECT_LIST, params=(),
                   params_first=True)
    def get_all(self, *, ctx):
        flavor = self._flavor(ctx)
        return {'projects': [{'project_id': p} for p in flavor.project_ids]}

    @method.expose(policy=policies.PROJECT_CREATE, body=schema.grant,
                   status=201, item_methods='DELETE')
    def post(self, *args, ctx, body):
        flavor = self._flavor(ctx)
        flavors_db.grant_add(ctx, flavor.id, body['project_id'])
        utils.set_location('%s/%s/projects/%s' % (PATH, flavor.id,
                                                  body['project_id']))
        return {'project': {'project_id': body['project_id']}}

    @method.expose(policy=policies.PROJECT_DELETE, status=204)
    def delete(self, project_id=None, *, ctx):
        flavor = self._flavor(ctx)
        flavors_db.grant_remove(ctx, flavor.id, project_id)


class FreeSlotsController(rest.RestController):
    """/v1/flavors/{id}/free-slots: where a booking fits."""

    def __init__(self, flavor_ref):
        self.flavor_ref = flavor_ref

    @method.expose(policy=policies.FREE_SLOTS, params=FREE_SLOTS_PARAMS)
    def get_all(self, *, ctx, params):
        flavor = catalogue.visible(ctx, self.flavor_ref, _sees_hidden(ctx))
        # A spot flavor has no calendar: it is never booked.
        gauntlet.check_not_spot(flavor)
        now = timeutils.utcnow()
        start = (utils.parse_date(params['start'], 'start')
                 if 'start' in params else now)
        end = (utils.parse_date(params['end'], 'end') if 'end' in params
               else start + datetime.timedelta(
                   days=CONF.booking.free_slots_default_days))
        utils.check_query_order(start, end)
        _check_not_too_long(start, end)
        count = _positive_int(params, 'instance_count', 1)
        gaps = admission.free_slots(
            ctx, flavor, start, end, count,
            bypass_maintenance=utils.can(
                ctx, reservation_policies.BYPASS_MAINTENANCE))
        return views.free_slots_view(flavor, count, start, end, gaps)


@method.handler(policy=policies.AVAILABILITY, params=AVAILABILITY_PARAMS)
def availability(*, ctx, params):
    """GET /v1/flavors/availability[?start&end]: per visible flavor, the
    slots offered (total: the catalogue's slots capped by the GPUs of the
    enrolled hosts) and the fewest free at any instant of the window, or
    now (available). Read live from the calendar (on a SQLite file the
    answer is kept until a commit or the next second: kept_answers)."""
    start, end = utils.query_window(params) or (None, None)
    if start is not None:
        _check_not_too_long(start, end)
    filters = {k: params[k] for k in ('category', 'availability_zone')
               if k in params}
    # The counts read no grants.
    flavors = catalogue.visible_list(ctx, _sees_hidden(ctx), filters,
                                     grants=False)
    # total: the most the flavor offers at once, its slots capped by
    # what the reservable hosts hold of its nova flavor when empty.
    offered, free = admission.offered_and_available(ctx, flavors, start,
                                                    end)
    # spot_available (since 1.4): what the GPUs lent now still hold.
    spot = (spot_flavors.available(ctx, flavors)
            if microversion.serves(microversion.SPOT) else None)
    return views.availability_view(flavors, start, end, offered, free, spot)


class OptInController(rest.RestController):
    """/v1/flavors/{id}/opt-in (since 1.4): the caller's project, or with
    ``?project_id=`` another one (administrators), opts in to a spot
    flavor (POST) or out of it (DELETE); both answer 204, and either
    done twice is no error."""

    def __init__(self, flavor_ref):
        self.flavor_ref = flavor_ref

    @pecan.expose('json')
    def post(self, *remainder):
        return self._opt(remainder, True)

    @pecan.expose('json')
    def delete(self, *remainder):
        return self._opt(remainder, False)

    def _opt(self, remainder, opt_in):
        spot_routes.check_version()
        if remainder:
            pecan.abort(404)
        return _opt_in(self.flavor_ref, opt_in)


@method.handler(policy=policies.SPOT_OPT_IN, params=OPT_IN_PARAMS,
                status=204)
def _opt_in(flavor_ref, opt_in, *, ctx, params):
    """The project the caller names (its own by default) opts in or out.
    An entry the caller cannot see is 404, as its GET is; naming another
    project needs the rule on that project (administrators)."""
    project_id = params.get('project_id') or ctx.project_id
    if project_id != ctx.project_id:
        utils.authorize(ctx, policies.SPOT_OPT_IN, project_id)
    flavor = catalogue.visible(ctx, flavor_ref, _sees_hidden(ctx))
    if opt_in:
        spot_flavors.check_opt_in(flavor, project_id)
        if flavors_db.spot_opt_in(ctx, flavor.id, project_id):
            LOG.info('Project %s opted in to spot flavor %s', project_id,
                     flavor.name)
    else:
        spot_flavors.check_spot(flavor)
        if flavors_db.spot_opt_out(ctx, flavor.id, project_id):
            LOG.info('Project %s opted out of spot flavor %s', project_id,
                     flavor.name)


_SUBRESOURCES = {'projects': FlavorProjectsController,
                 'free-slots': FreeSlotsController,
                 'opt-in': OptInController}


class FlavorsController(rest.RestController):

    @pecan.expose('json')
    def _lookup(self, flavor_ref, *remainder):
        return utils.subresource(_SUBRESOURCES, flavor_ref, remainder)

    @method.expose(policy=policies.LIST, params=LIST_PARAMS)
    def get_all(self, *, ctx, params):
        hidden = _sees_hidden(ctx)
        filters = {k: params[k] for k in ('category', 'availability_zone')
                   if k in params}
        for name in ('is_public', 'active'):
            if name in params:
                filters[name] = utils.parse_bool(name, params[name])
        limit = utils.parse_limit(params)
        marker = utils.check_marker(
            params, lambda m: catalogue.visible(ctx, m, hidden))
        flavors = catalogue.visible_list(ctx, hidden, filters, limit=limit,
                                         marker=marker)
        return utils.collection(
            'flavors', [views.flavor_view(f, hidden, ctx.project_id)
                        for f in flavors], limit, params, PATH)

    @pecan.expose('json')
    def get_one(self, flavor_ref):
        # A word of the URL, with its own policy and parameters.
        if flavor_ref == AVAILABILITY:
            return availability()
        return self._show(flavor_ref)

    @method.handler(policy=policies.GET, params=())
    def _show(self, flavor_ref, *, ctx):
        hidden = _sees_hidden(ctx)
        flavor = catalogue.visible(ctx, flavor_ref, hidden)
        return {'flavor': views.detail(ctx, flavor, hidden)}

    @method.expose(policy=policies.CREATE, body=schema.served_create,
                   status=201)
    def post(self, *args, ctx, body):
        _check_name(body['name'])
        values = _columns(body)
        _check_window(values.get('start'), values.get('end'))
        values.setdefault('max_length_hours',
                          CONF.booking.default_max_length_hours)
        spot = bool(values.get('spot'))
        if spot:
            # Never booked: its slots mean nothing.
            values.setdefault('slots', 0)
        _read_nova_flavor(ctx, values, spot=spot)
        flavor = flavors_db.flavor_create(ctx, values,
                                          body.get('projects', ()))
        utils.set_location('%s/%s' % (PATH, flavor.id))
        return {'flavor': views.detail(
            ctx, flavors_db.flavor_get(ctx, flavor.id), True)}

    @method.expose(policy=policies.UPDATE, body=schema.served_update)
    def patch(self, flavor_ref=None, *, ctx, body):
        flavor = flavors_db.flavor_get(ctx, flavor_ref)
        if 'name' in body:
            _check_name(body['name'])
        values = _columns(body)
        _check_window(values.get('start', flavor.start),
                      values.get('end', flavor.end))
        # Every update reads the nova flavor again: the way to refresh
        # the entry after the nova flavor changed.
        values.setdefault('nova_flavor_id', flavor.nova_flavor_id)
        spot = bool(values.get('spot', flavor.spot))
        _read_nova_flavor(ctx, values, current=flavor, spot=spot)
        if spot and not flavor.spot:
            spot_flavors.become_spot(ctx, flavor.id, values)
        else:
            flavors_db.flavor_update(ctx, flavor.id, values)
        return {'flavor': views.detail(
            ctx, flavors_db.flavor_get(ctx, flavor.id), True)}

    @method.expose(policy=policies.DELETE, status=204)
    def delete(self, flavor_ref=None, *, ctx):
        flavor = flavors_db.flavor_get(ctx, flavor_ref)
        flavors_db.flavor_destroy(ctx, flavor.id)
