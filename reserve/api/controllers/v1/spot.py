"""Spot devices (microversion 1.4): ``POST
/v1/device-reservations/{id}/release {device_ids}`` puts devices of an
active reservation on the spot market; ``POST .../reclaim {device_ids?,
dry_run?}`` takes them back from the spot domains (all by default), or
says what it would terminate and skip. The reservation is found as its
GET finds it (404 for a project outside it); then only its maker, its
managers while it lives, or an administrator may act (403). The
manager, which alone talks to libvirt, does the rest
(reserve.devices.spot). Below 1.4 these routes do not exist (404).
"""
import pecan
from pecan import rest

from reserve.api.controllers.v1 import device_access
from reserve.api.controllers.v1 import method
from reserve.api.controllers.v1 import utils
from reserve.api import microversion
from reserve.api.schemas import spot as schema
from reserve.common import exception
from reserve.common.policies import device_reservations as policies


def _owner(ctx, reservation_id, what):
    reservation = device_access.get(ctx, reservation_id)
    if not device_access.acts_for_owner(ctx, reservation,
                                        policies.SPOT_ALL_PROJECTS):
        raise exception.Forbidden(
            action="%s the devices of another project's device "
                   'reservation' % what)
    return reservation


class _SpotAction(rest.RestController):

    def __init__(self, reservation_id):
        self.reservation_id = reservation_id


class _ReleaseController(_SpotAction):

    @method.expose(policy=policies.RELEASE, params=(), params_first=True,
                   body=schema.release, item_methods=())
    def post(self, *args, ctx, body):
        reservation = _owner(ctx, self.reservation_id, 'release')
        utils.rpc_call('release devices of device reservation %s' %
                       reservation.id, device_access.manager().release_devices,
                       ctx, reservation.id, body['device_ids'])
        return device_access.show(ctx, reservation.id)


class _ReclaimController(_SpotAction):

    @method.expose(policy=policies.RECLAIM, params=(), params_first=True,
                   body=schema.reclaim, item_methods=())
    def post(self, *args, ctx, body):
        reservation = _owner(ctx, self.reservation_id, 'reclaim')
        dry_run = bool(body.get('dry_run', False))
        answer = utils.rpc_call(
            'reclaim devices of device reservation %s' % reservation.id,
            device_access.manager().reclaim_devices, ctx, reservation.id,
            body.get('device_ids'), dry_run)
        return dict(answer, dry_run=dry_run)


ACTIONS = {'release': _ReleaseController, 'reclaim': _ReclaimController}


def check_version():
    """Below 1.4 the spot routes do not exist: 404, as any unknown
    route."""
    if not microversion.serves(microversion.SPOT):
        pecan.abort(404)
