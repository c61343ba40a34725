"""The life of a device reservation, as the manager runs it once the
booking desk (reserve.booking.device_admission) holds it (what its lease runs,
through the device:gpu plugin, is in ``runs``).

* ``affirm``: a reservation in review (see ``runs.rediscover``) made
  good again against the host's topology now.
* ``attach`` / ``detach``: domains named while a reservation lives.
* ``settle``: what a lost step left attached.

A cancel is final: each request that gives devices takes the reservation's
row with a compare-and-swap on its status first (``_hold``), in the
transaction that writes what it gives. A cancel that came before refuses
it (409); one that comes after waits for it, and its end then takes
back what it gave.
"""
from oslo_log import log as logging

from reserve.common import exception
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import device_reservations as device_reservations_db
from reserve.devices import attachments
from reserve.devices import holds
from reserve.devices import hosts
from reserve.devices import owners
from reserve.devices import plan
from reserve.devices import runs
from reserve.devices import states
from reserve.devices import status

LOG = logging.getLogger(__name__)

Status = states.DeviceReservation


# review ------------------------------------------------------------------

def affirm(context, reservation_id, who):
    """Re-affirm a reservation in review against the host's topology
    now: active again (attached) if its window has started, else
    pending. Refused while one of its devices is missing."""
    reservation = device_reservations_db.device_reservation_get(
        context, reservation_id)
    if reservation.status != Status.NEEDS_REVIEW:
        raise exception.InvalidState(
            what='Device reservation %s' % reservation_id,
            status=states.in_words(reservation.status),
            reason='only a reservation in needs-review can be affirmed')
    host = runs.host_of(context, reservation)
    with hosts.host_lock(host.id):
        conn = hosts.connect(host.uri)
        generation = runs.rediscover(context, host,
                                     conn)['topology_generation']
        reservation = device_reservations_db.device_reservation_get(
            context, reservation_id)
        gone = [u.device.pci_address for u in reservation.devices
                if u.device.state == states.Device.MISSING]
        if gone:
            raise exception.DevicesUnavailable(
                reason='%s no longer on host %s; cancel the reservation' %
                (', '.join(gone), host.name))
        started = reservation.start <= timeutils.utcnow()
        if started:
            ids = runs.to_attach(context, host, conn,
                                 reservation.attachments)
        with attachments.saga() as undo, db_api.writer.using(context):
            if not status.move(
                    context, reservation_id,
                    'affirmed_started' if started else 'affirmed',
                    topology_generation=generation,
                    status_reason='affirmed by %s at %s' % (
                        who, timeutils.isoformat(timeutils.utcnow()))):
                current = device_reservations_db.device_reservation_find(
                    context, reservation_id)
                raise exception.InvalidState(
                    what='Device reservation %s' % reservation_id,
                    status=(states.in_words(current.status) if current
                            else 'gone'),
                    reason='only a reservation in needs-review can be '
                           'affirmed; it changed meanwhile')
            if started:
                runs.realize(context, conn, reservation, ids, undo)


# domains -----------------------------------------------------------------

def _device_views(context, reservation):
    """The reservation's devices as selection.Devices (for planning)."""
    devices = holds.devices_over(context, reservation.start,
                                 reservation.end,
                                 host_ids=[reservation.host_id],
                                 exclude=reservation.id)
    mine = {u.device_id for u in reservation.devices}
    return sorted((u for u in devices if u.id in mine),
                  key=lambda u: u.pci_address)


def _check_live(reservation):
    if reservation.status not in (Status.PENDING, Status.ACTIVE):
        raise exception.InvalidState(
            what='Device reservation %s' % reservation.id,
            status=states.in_words(reservation.status),
            reason='domains can be given devices while it is pending or '
                   'active')


def lock_live(context, reservation_id, statuses, what):
    """The compare-and-swap that comes first in a transaction giving
    devices (see the module's docstring): InvalidState (409) once the
    reservation has none of ``statuses`` (cancelled, ended)."""
    if not device_reservations_db.device_reservation_lock_live(
            context, reservation_id, statuses):
        current = device_reservations_db.device_reservation_find(
            context, reservation_id)
        raise exception.InvalidState(
            what='Device reservation %s' % reservation_id,
            status=(states.in_words(current.status) if current
                    else 'gone'),
            reason='%s: it was cancelled or changed meanwhile' % what)


def attach(context, reservation_id, domain, device_ids, project_id):
    """Give a domain devices of a live reservation: now when it is
    active (undone on failure), at its start when it is pending."""
    reservation = device_reservations_db.device_reservation_get(
        context, reservation_id)
    _check_live(reservation)
    host = runs.host_of(context, reservation)
    with hosts.host_lock(host.id):
        conn = hosts.connect(host.uri)
        found = owners.check(context, host, conn, [domain],
                             owners.projects_of(reservation),
                             owners.unowned_ok(context))
        lent = set(reservation.lent_device_ids())
        if lent & set(device_ids or ()):
            raise exception.Conflict(
                reason='devices %s are lent out (on the spot market); '
                       'reclaim them first' % ', '.join(
                           sorted(lent & set(device_ids))))
        rows = owners.record_owners(plan.for_one_domain(
            reservation, [u for u in _device_views(context, reservation)
                          if u.id not in lent], domain,
            device_ids, project_id), found)
        add_attachments(context, conn, reservation, rows)
        runs.resync(context, host, conn)


def add_attachments(context, conn, reservation, rows):
    """Write attachment rows, and realize them if the reservation is
    active; all or nothing. The rows of an active one are committed as
    ATTACHING first (a crash before libvirt's answer is recorded
    leaves them for release to take back), while it is still live."""
    live = (Status.PENDING, Status.ACTIVE)
    with db_api.writer.using(context):
        lock_live(context, reservation.id, live, 'no device can be attached')
        active = device_reservations_db.device_reservation_get(
            context, reservation.id).status == Status.ACTIVE
        if active:
            rows = [dict(r, state=states.Attachment.ATTACHING)
                    for r in rows]
        ids = {a.id for a in device_reservations_db.attachments_add(
            context, reservation.id, rows)}
    if not active:
        return
    try:
        with attachments.saga() as undo, db_api.writer.using(context):
            lock_live(context, reservation.id, (Status.ACTIVE,),
                      'no device can be attached')
            current = device_reservations_db.device_reservation_get(
                context, reservation.id)
            runs.realize(context, conn, current, ids, undo)
    except Exception:
        # Undone on the host: the rows go too (a cancel's end that read
        # them meanwhile finds nothing attached).
        device_reservations_db.attachments_delete(context, ids)
        raise


def detach(context, reservation_id, domain, project_id=None):
    """Take a reservation's devices back from a domain (only those
    ``project_id`` attached, when given). The domain keeps running."""
    reservation = device_reservations_db.device_reservation_get(
        context, reservation_id)
    if reservation.status not in Status.LIVE:
        raise exception.InvalidState(
            what='Device reservation %s' % reservation_id,
            status=states.in_words(reservation.status),
            reason='its end takes every device back; there is nothing to '
                   'detach')
    rows = [a for a in reservation.attachments if a.domain == domain and
            a.state != states.Attachment.DETACHED]
    if not rows:
        raise exception.Invalid(
            reason='domain %s holds no device of device reservation %s' % (
                domain, reservation_id))
    if project_id is not None and any(a.project_id != project_id
                                      for a in rows):
        raise exception.Forbidden(
            action='detach devices another project attached')
    host = runs.host_of(context, reservation)
    with hosts.host_lock(host.id):
        conn = hosts.connect(host.uri)
        attachments.release(context, conn, rows)
        device_reservations_db.attachments_delete(context,
                                                  [a.id for a in rows])
        runs.resync(context, host, conn)
    return [{'device_id': a.device_id, 'domain': a.domain, 'kind': a.kind,
             'mdev_uuid': a.mdev_uuid, 'project_id': a.project_id,
             'domain_owner': a.domain_owner,
             'state': states.Attachment.PLANNED} for a in rows]


def set_domains(context, reservation_id, domains, project_id):
    """Make the reservation's domains exactly ``domains``: the others
    detached first (their devices may be what the new ones get), then the
    new ones attached as by ``attach``. If an attach fails, the domains
    detached get their devices back: the reservation is left as it was."""
    reservation = device_reservations_db.device_reservation_get(
        context, reservation_id)
    _check_live(reservation)
    current = {a.domain for a in reservation.attachments
               if a.state != states.Attachment.DETACHED}
    host = runs.host_of(context, reservation)
    with hosts.host_lock(host.id), attachments.saga() as undo:
        for domain in sorted(current - set(domains)):
            rows = detach(context, reservation_id, domain)
            undo.push('give %s its devices back' % domain, _give_back,
                      context, host, reservation_id, rows)
        for domain in domains:
            if domain not in current:
                attach(context, reservation_id, domain, None, project_id)
                undo.push('detach %s' % domain, detach, context,
                          reservation_id, domain)


def _give_back(context, host, reservation_id, rows):
    conn = hosts.connect(host.uri)
    add_attachments(context, conn,
                    device_reservations_db.device_reservation_get(
                        context, reservation_id),
                    rows)
    runs.resync(context, host, conn)


# reconciliation ----------------------------------------------------------

def settle(context):
    """What a lost step left on a host: a reservation whose lease is
    gone while something of it may be attached (active, or an
    attachment attached) is released. Returns the ids it moved on.

    A reservation waiting for its lease, or cancelled before it got one,
    holds nothing on the host: the worker's reconciler builds or
    releases it, and deletes the leases of cancelled ones."""
    moved = []
    unreleased = device_reservations_db.device_reservations_unreleased(context)
    for reservation in unreleased:
        attached = reservation.status == Status.ACTIVE or any(
            a.state in states.Attachment.MAY_BE_ATTACHED
            for a in reservation.attachments)
        if not attached or \
                device_reservations_db.device_reservation_lease_state(
                    context, reservation.id) is not None:
            continue
        LOG.warning('Device reservation %s has no lease: releasing it',
                    reservation.id)
        runs.end(context, reservation.id)
        moved.append(reservation.id)
    return moved
