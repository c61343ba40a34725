"""/v1/reservations: a project's bookings of a flavor for a window."""
import datetime

from oslo_config import cfg
import pecan
from pecan import rest

from reserve.api.controllers.v1 import utils
from reserve.api.schemas import reservations as schema
from reserve.api import validation
from reserve.common import exception
from reserve.common import states
from reserve.common import timeutils
from reserve.db import api as db_api

CONF = cfg.CONF

POLICY = 'reserve:reservation:%s'
ALL_PROJECTS = POLICY % 'list:all_projects'
PATH = '/v1/reservations'

LIST_PARAMS = ('all_projects', 'project_id', 'flavor_id', 'status',
               'limit', 'marker')


def reservation_view(booking):
    """The API representation of a booking."""
    return {
        'id': booking.id,
        'project_id': booking.project_id,
        'user_id': booking.user_id,
        'flavor_id': booking.flavor_id,
        'instance_count': booking.instance_count,
        'start': utils.format_date(booking.start_date),
        'end': utils.format_date(booking.end_date),
        'status': booking.status,
        'status_reason': booking.status_reason,
        'lease_id': booking.lease_id,
        'compute_flavor': booking.compute_flavor,
        'created_at': utils.format_date(booking.created_at),
        'updated_at': utils.format_date(booking.updated_at),
    }


def _check_window(start, end):
    """Refuse windows that are empty or already over."""
    now = timeutils.utcnow()
    if end <= start:
        raise exception.Invalid(
            reason='end %s must be after start %s' % (
                timeutils.isoformat(end), timeutils.isoformat(start)))
    tolerance = datetime.timedelta(seconds=CONF.api.past_tolerance)
    if start < now - tolerance:
        raise exception.Invalid(
            reason='start %s is in the past (now is %s)' % (
                timeutils.isoformat(start), timeutils.isoformat(now)))
    if end <= now:
        raise exception.Invalid(
            reason='end %s is in the past (now is %s)' % (
                timeutils.isoformat(end), timeutils.isoformat(now)))


class ReservationsController(rest.RestController):

    def _get(self, ctx, booking_id):
        """The booking, 404 when it is not visible to the caller."""
        return db_api.booking_get(ctx, booking_id,
                                  project_id=utils.show_scope(ctx,
                                                              ALL_PROJECTS))

    @pecan.expose('json')
    def get_all(self, **kwargs):
        ctx = utils.context()
        utils.authorize(ctx, POLICY % 'list')
        params = utils.query_params(LIST_PARAMS)
        project_id = utils.list_scope(ctx, params, ALL_PROJECTS)
        status = utils.choice(params, 'status', states.Booking.ALL)
        limit = utils.parse_limit(params)
        marker = utils.check_marker(
            params,
            lambda m: db_api.booking_get(ctx, m, project_id=project_id))
        bookings = db_api.booking_list(
            ctx, project_id=project_id, flavor_id=params.get('flavor_id'),
            status=status, limit=limit, marker=marker)
        return utils.collection(
            'reservations', [reservation_view(b) for b in bookings], limit,
            params, PATH)

    @pecan.expose('json')
    def get_one(self, booking_id):
        ctx = utils.context()
        utils.authorize(ctx, POLICY % 'get')
        booking = self._get(ctx, booking_id)
        utils.authorize(ctx, POLICY % 'get', booking.project_id)
        return {'reservation': reservation_view(booking)}

    @pecan.expose('json')
    def post(self, *args, **kwargs):
        if args:
            utils.method_not_allowed(utils.ITEM_METHODS)
        ctx = utils.context()
        utils.authorize(ctx, POLICY % 'create')
        body = validation.load_and_validate(pecan.request, schema.create)
        start = utils.parse_date(body['start'], 'start')
        end = utils.parse_date(body['end'], 'end')
        _check_window(start, end)
        booking = db_api.booking_create(ctx, {
            'project_id': ctx.project_id,
            'user_id': ctx.user_id,
            'flavor_id': body['flavor_id'],
            'instance_count': int(body.get('instance_count', 1)),
            'start_date': start,
            'end_date': end,
            'status': states.Booking.PENDING_CREATE,
        })
        utils.cast('reservation', 'create_lease', ctx, booking.id)
        utils.set_created('%s/%s' % (PATH, booking.id))
        return {'reservation': reservation_view(booking)}

    @pecan.expose('json')
    def patch(self, booking_id=None):
        if booking_id is None:
            utils.method_not_allowed(utils.COLLECTION_METHODS)
        ctx = utils.context()
        utils.authorize(ctx, POLICY % 'update')
        booking = self._get(ctx, booking_id)
        utils.authorize(ctx, POLICY % 'update', booking.project_id)
        body = validation.load_and_validate(pecan.request, schema.update)
        end = utils.parse_date(body['end'], 'end')
        if booking.status not in states.Booking.LIVE:
            raise exception.InvalidState(
                what='Reservation %s' % booking.id, status=booking.status,
                reason='only %s reservations can be changed' %
                ', '.join(states.Booking.LIVE))
        now = timeutils.utcnow()
        if end <= booking.start_date:
            raise exception.Invalid(
                reason='end %s must be after the start %s' % (
                    timeutils.isoformat(end),
                    timeutils.isoformat(booking.start_date)))
        if end <= now:
            raise exception.Invalid(
                reason='end %s is in the past (now is %s)' % (
                    timeutils.isoformat(end), timeutils.isoformat(now)))
        updated = db_api.booking_update(ctx, booking.id, {'end_date': end},
                                        expected_status=states.Booking.LIVE)
        if updated is None:
            current = db_api.booking_get(ctx, booking.id)
            raise exception.InvalidState(
                what='Reservation %s' % booking.id, status=current.status,
                reason='it changed while being updated')
        utils.cast('reservation', 'update_lease', ctx, booking.id)
        return {'reservation': reservation_view(updated)}

    @pecan.expose()
    def delete(self, booking_id=None):
        if booking_id is None:
            utils.method_not_allowed(utils.COLLECTION_METHODS)
        ctx = utils.context()
        utils.authorize(ctx, POLICY % 'delete')
        booking = self._get(ctx, booking_id)
        utils.authorize(ctx, POLICY % 'delete', booking.project_id)
        if booking.status in states.Booking.LIVE:
            # Cancel: the row stays, COMPLETE, for the audit trail.
            reason = 'Cancelled by %s at %s' % (
                ctx.user_id, timeutils.isoformat(timeutils.utcnow()))
            updated = db_api.booking_update(
                ctx, booking.id,
                {'status': states.Booking.COMPLETE, 'status_reason': reason},
                expected_status=states.Booking.LIVE)
            if updated is None:
                current = db_api.booking_get(ctx, booking.id)
                raise exception.InvalidState(
                    what='Reservation %s' % booking.id,
                    status=current.status,
                    reason='it changed while being cancelled; try again')
            utils.cast('reservation', 'delete_lease', ctx, booking.id,
                       lease_id=updated.lease_id)
        else:
            # Already over: deleting it removes the row. The worker gets the
            # lease id, since it can no longer read it from the booking.
            db_api.booking_destroy(ctx, booking.id)
            if booking.lease_id:
                utils.cast('reservation', 'delete_lease', ctx, booking.id,
                           lease_id=booking.lease_id)
        return utils.no_content()
