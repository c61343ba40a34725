"""Shared reservations (since 1.9): the projects, beside its owner,
allowed to boot a reservation's reserved flavor
(reserve.booking.sharing).

* ``shared_project_ids`` of ``POST /v1/reservations``;
* ``/v1/reservations/{id}/shared-projects``: PUT the whole list, PUT or
  DELETE ``/{project_id}`` one project, while the reservation lives.
  Only its project's members (and administrators) change it; the change
  reaches the lease at once (the worker has the manager sync it), and
  the repair task keeps it;
* a reader of a project it is shared with may GET the reservation
  (``reserve:reservation:get:shared``): the reserved flavor to boot,
  with no other project named. It reaches nothing else of it (404).
"""
import pecan
from pecan import rest

from reserve.api.controllers.v1 import method
from reserve.api.controllers.v1 import utils
from reserve.api import microversion
from reserve.api.schemas import sharing as schema
from reserve.booking import sharing
from reserve.common import exception
from reserve.common.policies import reservations as reservation_policies
from reserve.common.policies import sharing as policies
from reserve.db import bookings as bookings_db
from reserve.db import sharing as sharing_db

SUBRESOURCE = 'shared-projects'


def requested(ctx, body):
    """The projects a new booking is shared with, checked (400)."""
    if schema.FIELD not in body:
        return []
    if not microversion.serves(microversion.SHARING):
        raise exception.Invalid(
            reason="field '%s' needs microversion %s or later" % (
                schema.FIELD, microversion.SHARING))
    return sharing.check(ctx.project_id, body[schema.FIELD])


def shown(ctx, booking_id, owned, get_policy):
    """The booking a GET shows: the caller's as ``owned(ctx, id)`` finds
    it, authorized by ``get_policy``; else one shared with the caller's
    project, when its policy lets it; else the same 404."""
    try:
        booking = owned(ctx, booking_id)
    except exception.BookingNotFound:
        if not (utils.can(ctx, policies.GET_SHARED) and
                sharing_db.shared_with(ctx, booking_id, ctx.project_id)):
            raise
        return bookings_db.booking_get(ctx, booking_id)
    utils.authorize(ctx, get_policy, booking.project_id)
    return booking


def _check_version():
    if not microversion.serves(microversion.SHARING):
        pecan.abort(404)


def _answer(shared):
    return {schema.FIELD: shared}


def _change(ctx, ref, change):
    """Apply ``change(owner, current list)`` to the live booking ``ref``
    the caller may write, and have its lease follow."""
    booking = bookings_db.booking_get(
        ctx, ref, project_id=utils.show_scope(
            ctx, reservation_policies.LIST_ALL_PROJECTS))
    utils.authorize_write(ctx, booking.project_id,
                          policies.SHARE_ALL_PROJECTS)
    _, shared = sharing_db.shares_change(
        ctx, booking.id, lambda current: change(booking.project_id, current))
    utils.cast('reservation', 'share_lease', ctx, booking.id)
    return shared


@method.handler(policy=policies.SHARE, body=schema.replace, view=_answer)
def _replace(ref, *, ctx, body):
    wanted = body[schema.FIELD]
    return _change(ctx, ref,
                   lambda owner, current: sharing.check(owner, wanted))


@method.handler(policy=policies.SHARE, view=_answer)
def _add(ref, project_id, *, ctx):
    return _change(ctx, ref, lambda owner, current: sharing.add(
        owner, current, project_id))


def _without(project_id):
    def change(owner, current):
        if project_id not in current:
            raise exception.NotFound(
                message='The reservation is not shared with project %s.'
                % project_id)
        return [p for p in current if p != project_id]
    return change


@method.handler(policy=policies.SHARE, status=204)
def _remove(ref, project_id, *, ctx):
    _change(ctx, ref, _without(project_id))


class SharedProjectsController(rest.RestController):
    """/v1/reservations/{id}/shared-projects[/{project_id}]."""

    def __init__(self, booking_ref):
        self.booking_ref = booking_ref

    @pecan.expose('json')
    def put(self, *remainder):
        _check_version()
        if not remainder:
            return _replace(self.booking_ref)
        if len(remainder) == 1:
            return _add(self.booking_ref, remainder[0])
        pecan.abort(404)

    @pecan.expose('json')
    def delete(self, *remainder):
        _check_version()
        if not remainder:
            utils.method_not_allowed('PUT')
        if len(remainder) == 1:
            return _remove(self.booking_ref, remainder[0])
        pecan.abort(404)
