"""Which road a unit reservation's POST and DELETE take
(/v1/device-reservations): through the booking desk
(reserve.booking.units) and the worker, or, while [upgrade_levels] caps
the daemons below the releases that know that road, to the manager.

* managers capped below 1.3 cannot adopt the desk's claim: the manager
  claims the units itself, as in the previous release;
* workers capped below 1.1 cannot take the casts: the desk claims, and
  the manager makes the lease at once (and cancels).
"""
import pecan

from reserve.api.controllers.v1 import utils
from reserve.booking import cancel as desk_cancel
from reserve.booking import units


def _manager():
    return pecan.request.manager_api


def _worker():
    return pecan.request.worker_api


def create(ctx, values, start, end, read_domains):
    """Reserve the units of ``values`` (see units.reserve); returns the
    reservation's id."""
    if not _manager().adopts_unit_claims():
        utils.rpc_call('reserve GPU units',
                       _manager().create_device_reservation, ctx, values)
        return values['id']
    # Claimed here (pending, no lease yet); the worker has the manager
    # build its lease, whose start event attaches.
    reservation_id = units.reserve(ctx, values, start, end, read_domains)
    if _worker().takes_units():
        utils.cast('device reservation', 'create_unit_lease', ctx,
                   reservation_id)
    else:
        utils.rpc_call('reserve GPU units',
                       _manager().create_device_reservation, ctx, values,
                       claimed=True)
    return reservation_id


def cancel(ctx, reservation_id, reason):
    """Cancel a live reservation; False when it was not live any more."""
    if not (_worker().takes_units() and _manager().adopts_unit_claims()):
        return utils.rpc_call(
            'cancel device reservation %s' % reservation_id,
            _manager().cancel_device_reservation, ctx, reservation_id,
            reason)
    if not desk_cancel.unit_reservation(ctx, reservation_id, reason):
        return False
    utils.cast('device reservation', 'delete_unit_lease', ctx,
               reservation_id)
    return True
