"""Who reaches a device reservation, shared by the controllers of
/v1/device-reservations and of its spot actions."""
import pecan

from reserve.api.controllers.v1 import utils
from reserve.api.views import device_reservations as views
from reserve.common.policies import device_reservations as policies
from reserve.db import device_reservations as device_reservations_db
from reserve.devices import states

Status = states.DeviceReservation


def get(ctx, reservation_id):
    """The reservation, 404 when the caller is not one of its projects."""
    return device_reservations_db.device_reservation_get(
        ctx, reservation_id,
        project_id=utils.show_scope(ctx, policies.LIST_ALL_PROJECTS))


def get_listed(ctx, reservation_id):
    """get()'s reservation as the list reads it (device_reservation_list's
    tuple: its columns, projects, devices and attachments), for a view
    or a check of them."""
    return device_reservations_db.device_reservation_listed(
        ctx, reservation_id,
        project_id=utils.show_scope(ctx, policies.LIST_ALL_PROJECTS))


def acts_for_owner(ctx, reservation, all_projects_action):
    """The project that made it, its managing projects while it lives
    (they act on the owner's behalf inside its term), or a caller with
    the explicit write rule ``all_projects_action``. Reading every
    project (``ctx.all_projects``) grants no write."""
    if ctx.project_id == reservation.project_id or (
            reservation.status in Status.LIVE and ctx.project_id in
            reservation.project_ids(states.Role.MANAGING)):
        return True
    return utils.can(ctx, all_projects_action)


def show(ctx, reservation_id):
    found = device_reservations_db.device_reservation_listed(
        ctx, reservation_id)
    return {'device_reservation': views.reservation_view(ctx, found)}


def manager():
    return pecan.request.manager_api
