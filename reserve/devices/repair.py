"""Drift of an active device reservation: a hostdev or mdev it attached
that is no longer in its domain (detached by hand, a guest redefined
without it) is attached again, through the host's connection under its
lock, as reserve.devices.runs attaches at start."""
from reserve.db import device_reservations as device_reservations_db
from reserve.devices import attachments
from reserve.devices import hosts
from reserve.devices import runs
from reserve.devices import states


def reattach(context, reservation_id):
    """Put back what an active reservation's ATTACHED attachments lost;
    returns what it put back, one sentence each."""
    reservation = device_reservations_db.device_reservation_find(
        context, reservation_id)
    if reservation is None or \
            reservation.status != states.DeviceReservation.ACTIVE:
        return []
    host = runs.host_of(context, reservation)
    with hosts.host_lock(host.id):
        conn = hosts.connect(host.uri)
        # Read again under the lock: an attach or a detach may have
        # changed the rows meanwhile.
        reservation = device_reservations_db.device_reservation_get(
            context, reservation_id)
        lost = attachments.missing(conn, reservation.attachments)
        if not lost:
            return []
        done = runs.restore(context, host, conn, reservation, lost)
        if done is None:
            return []
        runs.resync(context, host, conn)
    ids = done[0]
    return ['%s re-attached to domain %s' % (attachments.describe(a),
                                             a.domain)
            for a in lost if a.id in ids]
