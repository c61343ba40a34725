"""/v1/reservations: a project's bookings of a flavor for a window.

A booking names a catalogue flavor (/v1/flavors) by id or name; creating
one and moving its end go through the booking desk's admission
(reserve.booking.admission), which runs the gauntlet and writes the row
in one transaction per flavor. Since 1.8 a booking asked with standby
that does not fit waits for room (reserve.booking.standby); a cancel and
an earlier end ask the worker for a pass of that list at once.
"""
from oslo_config import cfg
import pecan
from pecan import rest

from reserve.api.controllers.v1 import diagnoses
from reserve.api.controllers.v1 import method
from reserve.api.controllers.v1 import sharing
from reserve.api.controllers.v1 import utils
from reserve.api import microversion
from reserve.api.schemas import reservations as schema
from reserve.api.views import reservations as views
from reserve.booking import admission
from reserve.booking import cancel
from reserve.booking import catalogue
from reserve.booking import counter_offer
from reserve.booking import standby
from reserve.common import exception
from reserve.common.policies import flavors as flavor_policies
from reserve.common.policies import reservations as policies
from reserve.common import states
from reserve.common import timeutils
from reserve.db import bookings as bookings_db
from reserve.db import deliveries as deliveries_db
from reserve.db import flavors as flavors_db
from reserve.db import leases as leases_db
from reserve.db import offers as offers_db
from reserve.diagnosis import findings

CONF = cfg.CONF

PATH = '/v1/reservations'

LIST_PARAMS = ('all_projects', 'project_id', 'flavor_id', 'status',
               'limit', 'marker')


def _visible(ctx, booking_id):
    """The booking, 404 when it is not visible to the caller."""
    return bookings_db.booking_get(
        ctx, booking_id,
        project_id=utils.show_scope(ctx, policies.LIST_ALL_PROJECTS))


class _DiagnosisController(diagnoses.Diagnosis):
    """GET /v1/reservations/{id}/diagnosis (1.3)."""

    kind = findings.RESERVATION

    def check(self, ctx, ref):
        utils.authorize(ctx, policies.DIAGNOSE)
        booking = _visible(ctx, ref)
        utils.authorize(ctx, policies.DIAGNOSE, booking.project_id)
        return booking.id


_SUBRESOURCES = {diagnoses.SUBRESOURCE: _DiagnosisController,
                 sharing.SUBRESOURCE: sharing.SharedProjectsController}


def _offering(ctx, refusal, flavor, start, end, count, bypass):
    """The refusal of a booking, saying what fits instead; since 1.6 the
    error object carries it as counter_offer."""
    offer = counter_offer.search(ctx, flavor, start, end, count, bypass)
    body = None
    if microversion.serves(_version(refusal)):
        body = views.counter_offer_view(flavor, count, _free(refusal),
                                        offer['before'], offer['after'])
    return refusal.offering(body, counter_offer.describe(offer) +
                            _free_slots_pointer(refusal, flavor))


def _offering_end(ctx, refusal, booking, end, bypass):
    """The refusal of a later end, saying the latest end that fits; since
    1.6 the error object carries it as counter_offer's latest_end."""
    flavor = flavors_db.flavor_get(ctx, booking.flavor_id)
    latest = admission.latest_end(ctx, booking, flavor, end, bypass)
    body = None
    if microversion.serves(_version(refusal)):
        body = views.counter_offer_view(
            flavor, booking.instance_count, _free(refusal),
            latest_end=latest and timeutils.isoformat(latest))
    return refusal.offering(body, counter_offer.describe_end(latest) +
                            _free_slots_pointer(refusal, flavor))


# A refusal for maintenance carries its counter offer since 1.11, with the
# device refusals'; NoCapacity's since 1.6.
def _version(refusal):
    if isinstance(refusal, exception.MaintenanceConflict):
        return microversion.DEVICE_COUNTER_OFFER
    return microversion.COUNTER_OFFER


def _free(refusal):
    """The most instances that fit in the asked window: none during
    maintenance, which takes every slot."""
    return refusal.kwargs.get('free', 0)


def _free_slots_pointer(refusal, flavor):
    """NoCapacity's message names free-slots itself."""
    if isinstance(refusal, exception.MaintenanceConflict):
        return (' GET /v1/flavors/%s/free-slots lists the windows that '
                'fit.' % flavor.id)
    return ''


def _check_required(body):
    for field in schema.create['required']:
        if field not in body:
            raise exception.Invalid(
                reason="missing required field '%s' (or give an offer_id "
                       "alone: a booking of an offer of GET /v1/offers)" %
                field)


def _admit(ctx, body, flavor, start, end, count, offer_id=None):
    """The booking admitted, or on standby when asked and refused for
    capacity (or the refusal with its counter offer); the lease of an
    admitted one asked for."""
    bypass = utils.can(ctx, policies.BYPASS_MAINTENANCE)
    shared = sharing.requested(ctx, body)
    waiting = False
    try:
        if body.get('standby'):
            booking, waiting = standby.book_or_wait(
                ctx, flavor, start, end, count, _standby_until(body),
                bypass_maintenance=bypass, shared_project_ids=shared)
        else:
            booking = admission.book(ctx, flavor, start, end, count,
                                     bypass_maintenance=bypass,
                                     shared_project_ids=shared,
                                     offer_id=offer_id)
    except (exception.NoCapacity,
            exception.MaintenanceConflict) as refusal:
        raise _offering(ctx, refusal, flavor, start, end, count,
                        bypass) from None
    if not waiting:
        utils.cast('reservation', 'create_lease', ctx, booking.id)
    utils.set_location('%s/%s' % (PATH, booking.id))
    return booking


def _book_offer(ctx, body):
    """POST /v1/reservations {"offer_id": ...} (1.10): the offer booked as
    is, through the admission, and marked used in its transaction."""
    fixed = sorted(set(body) & set(schema.OFFER_FIXES))
    if fixed:
        raise exception.Invalid(
            reason='an offer fixes %s: give offer_id alone, or search '
                   'again (GET /v1/offers) for another shape' %
                   ', '.join(fixed))
    offer = offers_db.offer_get(ctx, body['offer_id'], ctx.project_id)
    offers_db.check_open(offer, timeutils.utcnow(),
                         CONF.booking.offer_hold_seconds)
    flavor = catalogue.bookable(
        ctx, offer.flavor_id, utils.can(ctx, flavor_policies.LIST_HIDDEN))
    return _admit(ctx, body, flavor, offer.start, offer.end,
                  offer.instance_count, offer_id=offer.id)


class ReservationsController(rest.RestController):

    @pecan.expose('json')
    def _lookup(self, booking_id, *remainder):
        return utils.subresource(_SUBRESOURCES, booking_id, remainder)

    def _get(self, ctx, booking_id):
        return _visible(ctx, booking_id)

    @method.expose(policy=policies.LIST, params=LIST_PARAMS)
    def get_all(self, *, ctx, params):
        project_id = utils.list_scope(ctx, params, policies.LIST_ALL_PROJECTS)
        status = utils.choice(params, 'status', states.Booking.ALL)
        limit = utils.parse_limit(params)
        marker = utils.check_marker(
            params,
            lambda m: bookings_db.booking_get(ctx, m, project_id=project_id))
        flavor_id = params.get('flavor_id')
        if flavor_id is not None:
            # A name or an id; an unknown one simply matches nothing.
            flavor_id = flavors_db.flavor_find_id(ctx, flavor_id) or flavor_id
        bookings = bookings_db.booking_list(
            ctx, project_id=project_id, flavor_id=flavor_id,
            status=status, limit=limit, marker=marker)
        return utils.collection(
            'reservations', views.reservations_view(bookings),
            limit, params, PATH)

    @method.expose(policy=policies.GET, view=views.show_one)
    def get_one(self, booking_id, *, ctx):
        booking = sharing.shown(ctx, booking_id, self._get, policies.GET)
        return booking, deliveries_db.delivery_get(
            ctx, states.Owner.BOOKING, booking.id)

    @method.expose(policy=policies.CREATE, body=schema.served_create,
                   status=201, view=views.show)
    def post(self, *args, ctx, body):
        if 'offer_id' in body:
            return _book_offer(ctx, body)
        _check_required(body)
        start = utils.parse_date(body['start'], 'start')
        end = utils.parse_date(body['end'], 'end')
        _standby_until(body)
        flavor = catalogue.bookable(
            ctx, body['flavor_id'],
            utils.can(ctx, flavor_policies.LIST_HIDDEN))
        count = int(body.get('instance_count', 1))
        return _admit(ctx, body, flavor, start, end, count)

    @method.expose(policy=policies.UPDATE, body=schema.update,
                   view=views.show)
    def patch(self, booking_id=None, *, ctx, body):
        booking = self._get(ctx, booking_id)
        utils.authorize_write(ctx, booking.project_id,
                              policies.UPDATE_ALL_PROJECTS)
        end = utils.parse_date(body['end'], 'end')
        bypass = utils.can(ctx, policies.BYPASS_MAINTENANCE)
        try:
            updated = admission.change_end(ctx, booking, end,
                                           bypass_maintenance=bypass)
        except (exception.NoCapacity,
                exception.MaintenanceConflict) as refusal:
            raise _offering_end(ctx, refusal, booking, end,
                                bypass) from None
        utils.cast('reservation', 'update_lease', ctx, booking.id)
        if updated.end < booking.end:
            _freed(ctx, booking.id)
        return updated

    @method.expose(policy=policies.DELETE, status=204)
    def delete(self, booking_id=None, *, ctx):
        booking = self._get(ctx, booking_id)
        utils.authorize_write(ctx, booking.project_id,
                              policies.DELETE_ALL_PROJECTS)
        if booking.status == states.Booking.STANDBY:
            if standby.cancel(ctx, booking.id, ctx.user_id):
                return
            # Admitted (or lapsed) meanwhile: cancelled as it is now.
            booking = self._get(ctx, booking_id)
        if booking.status in states.Booking.LIVE:
            # The row stays, COMPLETE, for the audit trail.
            cancelled = cancel.booking(ctx, booking.id, ctx.user_id)
            utils.cast('reservation', 'delete_lease', ctx, booking.id,
                       lease_id=cancelled.lease_id)
            _freed(ctx, booking.id)
        else:
            # Already over: deleting it removes the row, once its lease
            # has torn down (its allocations are what the teardown
            # releases, and what the capacity model counts till then).
            # The worker gets the lease id, since it can no longer read
            # it from the booking.
            _check_torn_down(ctx, booking)
            bookings_db.booking_destroy(ctx, booking.id)
            if booking.lease_id:
                utils.cast('reservation', 'delete_lease', ctx, booking.id,
                           lease_id=booking.lease_id)


def _standby_until(body):
    """The deadline of a standby request, or None; 400 when given
    without standby."""
    if body.get('standby_until') is None:
        return None
    if not body.get('standby'):
        raise exception.Invalid(
            reason='standby_until is the deadline of a reservation on '
                   'standby: give it with "standby": true')
    return utils.parse_date(body['standby_until'], 'standby_until')


def _freed(ctx, booking_id):
    """Capacity was freed: the standby list's pass runs now (a lost
    cast waits for the next interval's)."""
    utils.cast('reservation', 'promote_standby', ctx, booking_id)


def _check_torn_down(ctx, booking):
    """409 while the booking's lease is not TERMINATED (a cancel's
    teardown still running): its row stays until then."""
    if not booking.lease_id:
        return
    try:
        lease = leases_db.lease_get(ctx, booking.lease_id)
    except exception.LeaseNotFound:
        return
    if lease.status != states.Lease.TERMINATED:
        raise exception.InvalidState(
            what='Reservation %s' % booking.id, status=booking.status,
            reason='its lease is still being torn down (%s); delete it '
                   'again once that is done' % lease.status)
