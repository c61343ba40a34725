"""/v1/series (since 1.7): recurring bookings.

POST books a flavor for a window repeated by a recurrence rule (an
iCalendar RRULE subset, reserve.booking.rrule): each occurrence is a
reservation of its own (/v1/reservations/{id}, with its series_id),
admitted together by reserve.booking.series, all or nothing unless
``series_policy`` is ``as_many_as_fit``. GET shows a series and the
status of each occurrence; DELETE cancels those not yet ended, all or
from one on (``?from=<reservation id>``). One occurrence alone is
cancelled by DELETE /v1/reservations/{id}.
"""
import pecan
from pecan import rest

from reserve.api.controllers.v1 import method
from reserve.api.controllers.v1 import utils
from reserve.api import microversion
from reserve.api.schemas import series as schema
from reserve.api.views import series as views
from reserve.booking import catalogue
from reserve.booking import series as series_booking
from reserve.common import exception
from reserve.common.policies import flavors as flavor_policies
from reserve.common.policies import reservations as booking_policies
from reserve.common.policies import series as policies
from reserve.db import series as series_db

PATH = '/v1/series'

LIST_PARAMS = ('all_projects', 'project_id', 'limit', 'marker')


def _gate():
    """Series are served from 1.7: before, the resource is not there."""
    if not microversion.serves(microversion.SERIES):
        pecan.abort(404)


def _visible(ctx, series_id):
    """The series, 404 when it is not visible to the caller."""
    return series_db.series_get(
        ctx, series_id,
        project_id=utils.show_scope(ctx, policies.LIST_ALL_PROJECTS))


@method.handler(policy=policies.LIST, params=LIST_PARAMS)
def _list(*, ctx, params):
    project_id = utils.list_scope(ctx, params, policies.LIST_ALL_PROJECTS)
    limit = utils.parse_limit(params)
    marker = utils.check_marker(
        params, lambda m: series_db.series_get(ctx, m,
                                               project_id=project_id))
    found = series_db.series_list(ctx, project_id=project_id, limit=limit,
                                  marker=marker)
    return utils.collection(
        'series', [views.series_view(s, series_db.occurrences(ctx, s.id))
                   for s in found], limit, params, PATH)


@method.handler(policy=policies.GET, view=views.show)
def _show(series_id, *, ctx):
    series = _visible(ctx, series_id)
    utils.authorize(ctx, policies.GET, series.project_id)
    return series, series_db.occurrences(ctx, series.id)


@method.handler(policy=policies.CREATE, body=schema.create, status=201,
                view=views.show)
def _create(*, ctx, body):
    start = utils.parse_date(body['start'], 'start')
    end = utils.parse_date(body['end'], 'end')
    occurrences = series_booking.windows(body['recurrence'], start, end)
    flavor = catalogue.bookable(
        ctx, body['flavor_id'],
        utils.can(ctx, flavor_policies.LIST_HIDDEN))
    count = int(body.get('instance_count', 1))
    policy = body.get('series_policy', series_booking.ALL_OR_NOTHING)
    try:
        series, admitted, _refused = series_booking.book(
            ctx, flavor, body['recurrence'], occurrences, count, policy,
            bypass_maintenance=utils.can(
                ctx, booking_policies.BYPASS_MAINTENANCE))
    except exception.SeriesDoesNotFit as refusal:
        raise refusal.described([
            views.refusal_view(*refused)
            for refused in refusal.refused]) from None
    for booking in admitted:
        utils.cast('reservation', 'create_lease', ctx, booking.id)
    utils.set_location('%s/%s' % (PATH, series.id))
    return series_db.series_get(ctx, series.id), admitted


@method.handler(policy=policies.DELETE, params=('from',), status=204)
def _delete(series_id, *, ctx, params):
    series = _visible(ctx, series_id)
    utils.authorize_write(ctx, series.project_id,
                          policies.DELETE_ALL_PROJECTS)
    first = None
    if params.get('from') is not None:
        first = next((b for b in series_db.occurrences(ctx, series.id)
                      if b.id == params['from']), None)
        if first is None:
            raise exception.Invalid(
                reason='from: %s is not an occurrence of series %s' % (
                    params['from'], series.id))
    for booking in series_booking.cancel_from(ctx, series, ctx.user_id,
                                              first):
        utils.cast('reservation', 'delete_lease', ctx, booking.id,
                   lease_id=booking.lease_id)


class SeriesController(rest.RestController):

    @pecan.expose('json')
    def get_all(self):
        _gate()
        return _list()

    @pecan.expose('json')
    def get_one(self, series_id):
        _gate()
        return _show(series_id)

    @pecan.expose('json')
    def post(self, *args):
        _gate()
        if args:
            utils.method_not_allowed('GET, DELETE')
        return _create()

    @pecan.expose('json')
    def delete(self, series_id=None):
        _gate()
        if series_id is None:
            utils.method_not_allowed(utils.COLLECTION_METHODS)
        return _delete(series_id)
