"""The doctor: every live reservation diagnosed, those with a mismatch
listed (/v1/diagnoses), and the leases no owner has.

Checked are the bookings that are live or whose lease has not finished
its end, the device reservations that have not released their devices,
and every lease not TERMINATED whose owner row is gone (unknown_lease).
"""
from oslo_config import cfg
from oslo_log import log as logging

from reserve.common import exception
from reserve.common import states
from reserve.common import timeutils
from reserve.db import bookings as bookings_db
from reserve.db import device_reservations as device_reservations_db
from reserve.db import leases as leases_db
from reserve.diagnosis import booking
from reserve.diagnosis import device
from reserve.diagnosis import findings
from reserve.diagnosis import lease as lease_layers

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

_OWNER_KINDS = {states.Owner.BOOKING: findings.RESERVATION,
                states.Owner.DEVICE_RESERVATION: findings.DEVICE_RESERVATION}


def _booking_ids(context, leases):
    """``leases``: those whose owner exists."""
    ids = [b.id for status in states.Booking.LIVE
           for b in bookings_db.booking_list(context, status=status)]
    # Over, with a teardown that has not finished: leftovers are likely.
    ids.extend(lease.owner_id for lease in leases
               if lease.owner_type == states.Owner.BOOKING and
               lease.status != states.Lease.TERMINATED and
               lease_layers.teardown_pending(lease) and
               lease.owner_id not in ids)
    return ids


def _owner_exists(context, lease):
    if lease.owner_type == states.Owner.DEVICE_RESERVATION:
        return device_reservations_db.device_reservation_find(
            context, lease.owner_id) is not None
    if lease.owner_type != states.Owner.BOOKING:
        return False
    try:
        bookings_db.booking_get(context, lease.owner_id)
    except exception.BookingNotFound:
        return False
    return True


def _unknown(lease, now):
    kind = _OWNER_KINDS.get(lease.owner_type, findings.RESERVATION)
    layers = [findings.layer(
        'booking', {'owner': lease.owner_id, 'exists': True},
        {'owner': lease.owner_id, 'exists': False},
        [findings.advise(
            'lease %s (%s) belongs to no %s' % (
                lease.id, lease.name, kind.replace('_', ' ')),
            findings.UNKNOWN_LEASE, kind == findings.RESERVATION,
            'the worker\'s reconciler deletes a lease whose booking is '
            'gone; if it stays, check reserve-worker',
            'no reservation will end it: check what it holds, then '
            'delete its row once its devices are released')]),
        lease_layers.lease_layer(lease, now),
        lease_layers.events_layer(lease, now)]
    return findings.diagnosis(kind, lease.owner_id or lease.id, layers)


def _objects_of_nobody(context, found, reported):
    """A diagnosis for each lease reservation id whose cloud objects
    (``found``: {id: leftover with flavor, aggregate, resource_class,
    children}) no lease not TERMINATED holds and no diagnosis named."""
    live = {rsv_id.lower() for rsv_id in
            leases_db.lease_reservation_ids_live(context)}
    for rsv_id, left in sorted(found.items()):
        if rsv_id in live or rsv_id in reported:
            continue
        held = {'flavor': bool(left.flavor),
                'aggregate': bool(left.aggregate),
                'resource_class': bool(left.resource_class),
                'inventory_on': sorted(p['name'] for p in left.children)}
        layers = [findings.layer(
            'flavor', {'reservation': rsv_id, 'exists': False},
            held, [findings.advise(
                'the cloud holds objects of reservation %s, which no lease '
                'holds: %s' % (rsv_id, ', '.join(
                    k for k, v in held.items() if v)),
                findings.LEFTOVERS, CONF.manager.repair_interval,
                'the repair task\'s sweep takes them down within '
                '[manager]repair_interval seconds (servers of the flavor '
                'first)',
                'remove them by hand (openstack flavor delete, aggregate '
                'delete, resource class delete): the repair task is off')])]
        yield findings.diagnosis(findings.RESERVATION, rsv_id, layers)


def sweep(context, nova, placement, kind=None, leftovers=None):
    """{checked, reservations: [the diagnoses with a mismatch]}, of one
    ``kind`` of findings.KINDS or both. ``leftovers()``, when given,
    finds the cloud objects named after lease reservations (those no
    lease holds are listed as leftovers)."""
    now = timeutils.utcnow()
    leases, unknown = [], []
    for lease in leases_db.lease_list(context):
        if _owner_exists(context, lease):
            leases.append(lease)
        elif lease.status != states.Lease.TERMINATED and _OWNER_KINDS.get(
                lease.owner_type, findings.RESERVATION) in (
                    (kind,) if kind else findings.KINDS):
            unknown.append(lease)
    work = []
    if kind in (None, findings.RESERVATION):
        work.extend((findings.RESERVATION, rid) for rid in
                    _booking_ids(context, leases))
    if kind in (None, findings.DEVICE_RESERVATION):
        work.extend((findings.DEVICE_RESERVATION, r.id) for r in
                    device_reservations_db.device_reservations_unreleased(
                        context))
    found = []
    for what, reservation_id in work:
        try:
            if what == findings.RESERVATION:
                result = booking.diagnose(context, reservation_id, nova,
                                          placement)
            else:
                result = device.diagnose(context, reservation_id)
        except Exception:  # noqa: BLE001 - one must not stop the sweep
            LOG.exception('Doctor: the diagnosis of %s %s failed', what,
                          reservation_id)
            continue
        if result['mismatch']:
            found.append(result)
    found.extend(_unknown(lease, now) for lease in unknown)
    checked = len(work) + len(unknown)
    if leftovers is not None and kind in (None, findings.RESERVATION):
        reported = {str(d['reservation_id']).lower() for d in found}
        try:
            objects = leftovers()
        except exception.ReserveException as exc:  # no nova here, say
            LOG.info('Doctor: the cloud objects of reservations not read: '
                     '%s', exc)
            objects = {}
        nobodys = list(_objects_of_nobody(context, objects, reported))
        found.extend(nobodys)
        checked += len(nobodys)
    return {'checked': checked, 'reservations': found}
