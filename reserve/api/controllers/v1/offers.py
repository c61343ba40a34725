"""/v1/offers (from microversion 1.10): the offer search.

``GET /v1/offers?flavor=<id or name>&duration=<length>[&count=<n>]
[&earliest_start=<date>][&latest_start=<date or length>]
[&any_flavor_with=gpu_model][&sort=start|hosts][&limit=<n>]``

Up to ``limit`` offers of ``count`` instances of the flavor for
``duration``, starting within [earliest_start, latest_start], each one a
window that admission would take now (reserve.booking.offers). Every
offer is stored for the caller's project and can be booked as is, for
[booking] offer_hold_seconds, by POST /v1/reservations {"offer_id": ...}.
An offer holds no capacity: a search answers many, and holding them all
for every searcher would close the cloud to everyone else (EC2 Capacity
Block offers are not held either). Booking one runs the admission
again, and a window taken meanwhile is refused with its counter offer.

``duration`` is an ISO 8601 duration (PT4H, P1DT2H) or hours (4, 1.5);
``latest_start`` a date, or a length after earliest_start (P14D);
``any_flavor_with=gpu_model`` searches every flavor the caller may book
whose instances ask for the same GPUs as the flavor's.
"""
import datetime

from oslo_config import cfg
import pecan
from pecan import rest

from reserve.api.controllers.v1 import method
from reserve.api.controllers.v1 import utils
from reserve.api import durations
from reserve.api import microversion
from reserve.api.schemas import reservations as reservation_schema
from reserve.api.views import offers as views
from reserve.booking import catalogue
from reserve.booking import offers
from reserve.common import exception
from reserve.common.policies import flavors as flavor_policies
from reserve.common.policies import offers as policies
from reserve.common.policies import reservations as reservation_policies
from reserve.common import timeutils
from reserve.db import offers as offers_db

CONF = cfg.CONF

PATH = '/v1/offers'
PARAMS = ('flavor', 'count', 'duration', 'earliest_start', 'latest_start',
          'any_flavor_with', 'sort', 'limit')
DEFAULT_LIMIT = 10
MAX_LIMIT = 50
# The starts searched when latest_start is not given.
DEFAULT_RANGE = datetime.timedelta(days=14)


def _whole_number(params, name, default, maximum):
    value = params.get(name)
    if value is None:
        return default
    text = str(value).strip()
    if not text.isdigit() or not 1 <= int(text) <= maximum:
        raise exception.Invalid(
            reason="query parameter '%s' must be a whole number from 1 to "
                   "%d, not %r" % (name, maximum, value))
    return int(text)


def _latest_start(params, earliest):
    value = params.get('latest_start')
    if value is None:
        return earliest + DEFAULT_RANGE
    text = str(value).strip()
    if text.upper().startswith('P') or durations.HOURS.match(text):
        latest = earliest + durations.parse(text, 'latest_start')
    else:
        latest = utils.parse_date(text, 'latest_start')
    if latest < earliest:
        raise exception.Invalid(
            reason="query parameter 'latest_start' %s is before "
                   "'earliest_start' %s" % (timeutils.isoformat(latest),
                                            timeutils.isoformat(earliest)))
    return latest


def _range(params, now):
    """(earliest_start, latest_start, duration) asked."""
    if 'duration' not in params:
        raise exception.Invalid(
            reason="query parameter 'duration' is required: how long each "
                   "offer is, an ISO 8601 duration (PT4H, P1DT2H) or hours")
    length = durations.parse(params['duration'], 'duration')
    earliest = (utils.parse_date(params['earliest_start'], 'earliest_start')
                if 'earliest_start' in params else now)
    latest = _latest_start(params, earliest)
    if latest + length <= now:
        raise exception.Invalid(
            reason="query parameter 'latest_start' %s is in the past (now "
                   "is %s)" % (timeutils.isoformat(latest),
                               timeutils.isoformat(now)))
    most = datetime.timedelta(days=CONF.booking.max_query_days)
    if latest + length - max(earliest, now) > most:
        raise exception.Invalid(
            reason='the offers would reach %s, more than %d days ([booking] '
                   'max_query_days) after %s: ask for a shorter range of '
                   'starts' % (timeutils.isoformat(latest + length),
                               CONF.booking.max_query_days,
                               timeutils.isoformat(max(earliest, now))))
    return earliest, latest, length


def _check_flavor_given(params):
    if not params.get('flavor'):
        raise exception.Invalid(
            reason="query parameter 'flavor' is required: the catalogue "
                   "flavor (id or name) to search offers of")


def _flavors(ctx, params):
    sees_hidden = utils.can(ctx, flavor_policies.LIST_HIDDEN)
    flavor = catalogue.visible(ctx, params['flavor'], sees_hidden)
    if utils.choice(params, 'any_flavor_with', offers.ANY_FLAVOR_WITH):
        return offers.same_gpu_model(
            flavor, catalogue.visible_list(ctx, sees_hidden))
    return [flavor]


@method.handler(params=PARAMS)
def _search(*, ctx, params):
    utils.authorize(ctx, policies.SEARCH)
    _check_flavor_given(params)
    now = timeutils.utcnow()
    earliest, latest, length = _range(params, now)
    count = _whole_number(params, 'count', 1,
                          reservation_schema.MAX_INSTANCE_COUNT)
    limit = _whole_number(params, 'limit', DEFAULT_LIMIT, MAX_LIMIT)
    sort = utils.choice(params, 'sort', offers.SORTS) or offers.SORT_START
    flavors = _flavors(ctx, params)
    found = offers.search(
        ctx, flavors, count, length, earliest, latest, sort, limit,
        bypass_maintenance=utils.can(
            ctx, reservation_policies.BYPASS_MAINTENANCE))
    expires_at = now + datetime.timedelta(
        seconds=CONF.booking.offer_hold_seconds)
    rows = offers_db.offers_create(ctx, [
        {'project_id': ctx.project_id, 'user_id': ctx.user_id,
         'flavor_id': f.flavor.id, 'start': f.start, 'end': f.end,
         'instance_count': f.count, 'expires_at': expires_at}
        for f in found], now)
    return views.offers_view(rows, found)


class OffersController(rest.RestController):

    @pecan.expose('json')
    def get_all(self):
        if not microversion.serves(microversion.OFFERS):
            pecan.abort(404)
        return _search()

    @pecan.expose('json')
    def _lookup(self, *remainder):
        pecan.abort(404)
