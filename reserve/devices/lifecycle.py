"""The life of a device reservation, as the manager runs it (what its
lease runs, through the device:gpu plugin, is in ``runs``).

* ``create``: one transaction claims the units (selection under the
  host's lock, overlap refused), writes the reservation and its lease
  (owned by it, one ``device:gpu`` reservation of
  the same id, three events). A reservation starting now is attached in
  that same transaction: if an mdev creation or an attach fails, every
  step is undone and nothing stays claimed, created or attached. A count
  naming ``domains`` but no host is taken from a host that has them all
  (their names read first, outside every lock).
* ``cancel``: the lease's delete path (its end runs now).
* ``affirm``: a reservation in review (see ``runs.rediscover``) made
  good again against the host's topology now.
* ``attach`` / ``detach``: domains named while a reservation lives.
* ``settle``: what a lost step left behind.
"""
from oslo_log import log as logging

from reserve.common import exception
from reserve.common import states as engine_states
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import devices as devices_db
from reserve.db import hosts as hosts_db
from reserve.db import leases as leases_db
from reserve.devices import attachments
from reserve.devices import claims
from reserve.devices import hosts
from reserve.devices import plan
from reserve.devices import runs
from reserve.devices import states

LOG = logging.getLogger(__name__)

Status = states.Reservation


def window_of(values):
    """(start, end) of a creation's values; an absent end is open."""
    now = timeutils.utcnow()
    start = (timeutils.parse(values['start'], 'start')
             if values.get('start') else now)
    end = (timeutils.parse(values['end'], 'end') if values.get('end')
           else states.OPEN_END)
    if end <= start:
        raise exception.Invalid(reason='end must be after start')
    return start, end


def _domain_names(host):
    """The names of a host's domains (one libvirt call, no lock of
    reserve's held)."""
    return {d.name for d in hosts.connect(host.uri).domains()}


def _check_domains(conn, host, domains):
    known = {d.name for d in conn.domains()}
    for name in domains or ():
        if name not in known:
            raise exception.DomainNotFound(name=name, host=host.name)


# creation ----------------------------------------------------------------

def create(context, values, selection_lock, lease_events):
    """Claim, write the lease, and attach a reservation starting now.
    Idempotent by ``values['id']``; returns the reservation id."""
    if devices_db.reservation_find(context, values['id']) is not None:
        return values['id']
    start, end = window_of(values)
    # Domains named without a host or units steer the choice to the
    # hosts that have them: read here, before any lock or transaction.
    request = claims.on_hosts_with_domains(
        context, runs.request_of(values), start, end, values.get('domains'),
        _domain_names, viewer=values.get('viewer'))
    # The dry run finds the host (and fails early); the claim runs it
    # again under the host's lock.
    chosen = claims.check(context, request, start, end,
                          viewer=values.get('viewer'))
    host = hosts_db.host_get(context, chosen.host_id)
    values = dict(values, host_id=host.id)
    # A reservation that starts now is attached while it is claimed, so
    # that a failure is the request's answer. (Later ones by their start
    # event: their units may be held until then.)
    immediate = start <= timeutils.utcnow()
    lease_row = {'name': states.lease_name(values['id']),
                 'owner_type': engine_states.Owner.DEVICE_RESERVATION,
                 'owner_id': values['id'],
                 'project_id': values['project_id'],
                 'user_id': values.get('user_id') or '',
                 'start_date': start, 'end_date': end,
                 'status': engine_states.Lease.PENDING}
    with hosts.host_lock(host.id):
        # The host is asked only when it must be: for the domains named,
        # or to attach now.
        conn = None
        if values.get('domains') or immediate:
            conn = hosts.connect(host.uri)
            _check_domains(conn, host, values.get('domains'))
        with attachments.saga() as undo:
            with selection_lock, db_api.writer.using(context):
                # What the device:gpu plugin's reserve does.
                row = runs.claim(context, lease_row, values)
                row['status'] = engine_states.Reservation.PENDING
                leases_db.lease_create(context, lease_row, [row],
                                       lease_events(start, end))
                if immediate:
                    reservation = devices_db.reservation_get(context,
                                                             values['id'])
                    runs.realize(context, conn, reservation,
                                 reservation.attachments, undo)
        if immediate and conn is not None:
            runs.resync(context, host, conn)
    LOG.info('Device reservation %s claims %s on %s', values['id'],
             ', '.join(u.pci_address for u in chosen.units), host.name)
    return values['id']


# cancellation ------------------------------------------------------------

def cancel(context, reservation_id, delete_lease, reason):
    """Cancel a live reservation: its lease's delete path runs its end
    now. Returns False when it was not live any more."""
    if not devices_db.reservation_update(
            context, reservation_id,
            {'status': Status.CANCELLED, 'status_reason': reason},
            expected_status=Status.LIVE):
        return False
    _finish_cancel(context, reservation_id, delete_lease)
    return True


def _finish_cancel(context, reservation_id, delete_lease):
    lease = devices_db.reservation_lease(context, reservation_id)
    if lease is not None and lease.status != engine_states.Lease.TERMINATED:
        delete_lease(context, lease.id)
    else:
        runs.end(context, reservation_id)


# review ------------------------------------------------------------------

def affirm(context, reservation_id, who):
    """Re-affirm a reservation in review against the host's topology
    now: active again (attached) if its window has started, else
    pending. Refused while one of its units is missing."""
    reservation = devices_db.reservation_get(context, reservation_id)
    if reservation.status != Status.NEEDS_REVIEW:
        raise exception.InvalidState(
            what='Device reservation %s' % reservation_id,
            status=reservation.status,
            reason='only a reservation in needs-review can be affirmed')
    host = runs.host_of(context, reservation)
    with hosts.host_lock(host.id):
        conn = hosts.connect(host.uri)
        generation = runs.rediscover(context, host,
                                     conn)['topology_generation']
        reservation = devices_db.reservation_get(context, reservation_id)
        gone = [u.device.pci_address for u in reservation.units
                if u.device.state == states.Device.MISSING]
        if gone:
            raise exception.UnitsUnavailable(
                reason='%s no longer on host %s; cancel the reservation' %
                (', '.join(gone), host.name))
        started = reservation.start_date <= timeutils.utcnow()
        with attachments.saga() as undo, db_api.writer.using(context):
            if not devices_db.reservation_update(
                    context, reservation_id, {
                        'status': Status.ACTIVE if started
                        else Status.PENDING,
                        'topology_generation': generation,
                        'status_reason': 'affirmed by %s at %s' % (
                            who, timeutils.isoformat(timeutils.utcnow()))},
                    expected_status=Status.NEEDS_REVIEW):
                raise exception.InvalidState(
                    what='Device reservation %s' % reservation_id,
                    status='changing', reason='try again')
            if started:
                runs.realize(context, conn, reservation,
                             reservation.attachments, undo)


# domains -----------------------------------------------------------------

def _unit_views(context, reservation):
    """The reservation's units as selection.Units (for planning)."""
    units = claims.units(context, reservation.start_date,
                         reservation.end_date,
                         host_ids=[reservation.host_id],
                         exclude=reservation.id)
    mine = {u.device_id for u in reservation.units}
    return sorted((u for u in units if u.id in mine),
                  key=lambda u: u.pci_address)


def _check_live(reservation):
    if reservation.status not in (Status.PENDING, Status.ACTIVE):
        raise exception.InvalidState(
            what='Device reservation %s' % reservation.id,
            status=reservation.status,
            reason='domains can be given units while it is pending or '
                   'active')


def attach(context, reservation_id, domain, unit_ids, project_id):
    """Give a domain units of a live reservation: now when it is
    active (undone on failure), at its start when it is pending."""
    reservation = devices_db.reservation_get(context, reservation_id)
    _check_live(reservation)
    host = runs.host_of(context, reservation)
    with hosts.host_lock(host.id):
        conn = hosts.connect(host.uri)
        _check_domains(conn, host, [domain])
        rows = plan.for_one_domain(
            reservation, _unit_views(context, reservation), domain,
            unit_ids, project_id)
        _add_attachments(context, conn, reservation, rows)
        runs.resync(context, host, conn)


def _add_attachments(context, conn, reservation, rows):
    """Write attachment rows, and realize them if the reservation is
    active; all or nothing."""
    with attachments.saga() as undo, db_api.writer.using(context):
        added = devices_db.attachments_add(context, reservation.id, rows)
        if reservation.status == Status.ACTIVE:
            ids = {a.id for a in added}
            current = devices_db.reservation_get(context, reservation.id)
            runs.realize(context, conn, current,
                         [a for a in current.attachments if a.id in ids],
                         undo)


def detach(context, reservation_id, domain, project_id=None):
    """Take a reservation's units back from a domain (only those
    ``project_id`` attached, when given). The domain keeps running."""
    reservation = devices_db.reservation_get(context, reservation_id)
    rows = [a for a in reservation.attachments if a.domain == domain and
            a.state != states.Attachment.DETACHED]
    if not rows:
        raise exception.Invalid(
            reason='domain %s holds no unit of device reservation %s' % (
                domain, reservation_id))
    if project_id is not None and any(a.project_id != project_id
                                      for a in rows):
        raise exception.Forbidden(
            action='detach units another project attached')
    host = runs.host_of(context, reservation)
    with hosts.host_lock(host.id):
        conn = hosts.connect(host.uri)
        attachments.release(context, conn, rows)
        devices_db.attachments_delete(context, [a.id for a in rows])
        runs.resync(context, host, conn)
    return [{'device_id': a.device_id, 'domain': a.domain, 'kind': a.kind,
             'mdev_uuid': a.mdev_uuid, 'project_id': a.project_id,
             'state': states.Attachment.PLANNED} for a in rows]


def set_domains(context, reservation_id, domains, project_id):
    """Make the reservation's domains exactly ``domains``: the others
    detached first (their units may be what the new ones get), then the
    new ones attached as by ``attach``. If an attach fails, the domains
    detached get their units back: the reservation is left as it was."""
    reservation = devices_db.reservation_get(context, reservation_id)
    _check_live(reservation)
    current = {a.domain for a in reservation.attachments
               if a.state != states.Attachment.DETACHED}
    host = runs.host_of(context, reservation)
    with hosts.host_lock(host.id), attachments.saga() as undo:
        for domain in sorted(current - set(domains)):
            rows = detach(context, reservation_id, domain)
            undo.push('give %s its units back' % domain, _give_back,
                      context, host, reservation_id, rows)
        for domain in domains:
            if domain not in current:
                attach(context, reservation_id, domain, None, project_id)
                undo.push('detach %s' % domain, detach, context,
                          reservation_id, domain)


def _give_back(context, host, reservation_id, rows):
    conn = hosts.connect(host.uri)
    _add_attachments(context, conn,
                     devices_db.reservation_get(context, reservation_id),
                     rows)
    runs.resync(context, host, conn)


# reconciliation ----------------------------------------------------------

def settle(context, delete_lease):
    """What a lost step left behind: a cancelled reservation whose
    lease still runs, or a reservation whose lease is gone unreleased.
    Returns the ids it moved on."""
    moved = []
    for reservation in devices_db.reservations_unreleased(context):
        lease = devices_db.reservation_lease(context, reservation.id)
        if lease is None:
            LOG.warning('Device reservation %s has no lease: releasing it',
                        reservation.id)
            runs.end(context, reservation.id)
        elif (reservation.status == Status.CANCELLED and lease.status not in
              (engine_states.Lease.DELETING,
               engine_states.Lease.TERMINATED)):
            LOG.warning('Device reservation %s is cancelled but its lease '
                        '%s is %s: deleting the lease', reservation.id,
                        lease.id, lease.status)
            delete_lease(context, lease.id)
        else:
            continue
        moved.append(reservation.id)
    return moved
