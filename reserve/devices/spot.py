"""Spot devices: what an active device reservation lends out, and takes
back.

* ``release``: the owner (its maker, its managers, an administrator)
  puts devices of an active reservation, inside its window, on the spot
  market. Only devices none of its own domains uses (passed through
  whole: an mdev reservation shares its devices and lends nothing). They
  stay the reservation's: its domains cannot be given them until they
  are reclaimed, and they come back first at its end.
* ``attach``: any project hands a device on the market to one of its
  own domains, a *spot domain* (one per device). A reservation in
  needs-review withholds what it lent: nothing of it is on the market.
* ``detach``: the spot user gives the device back before any reclaim;
  it is on the market again (still lent). Only a spot attachment goes
  this way, never one of the reservation's own domains.
* ``reclaim``: the owner takes lent devices back (all by default). Its
  dry run answers what it would terminate (the spot domains holding
  them) and skip (a domain that is no longer a spot workload: it changed
  owner, or is the reservation's own), and changes nothing; for real the
  reclaim is recorded first (``reclaiming_since``, committed), then the
  spot domains lose the devices ([devices]spot_reclaim_action: detach,
  or destroy them first), the devices are the owner's again, and what
  its domains had planned on them is attached. A crash in between
  leaves the record: ``finish_reclaims`` (the manager's start and each
  refresh) runs the rest. The dry run and the reclaim read the same
  plan (``_plan``) under the host's lock, so what the one says the
  other does unless something changed in between.
"""
from oslo_config import cfg
from oslo_log import log as logging

from reserve.common import exception
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import device_reservations as device_reservations_db
from reserve.db import spot_devices as spot_devices_db
from reserve.devices import attachments
from reserve.devices import hosts
from reserve.devices import lifecycle
from reserve.devices import owners
from reserve.devices import runs
from reserve.devices import states

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

Status = states.DeviceReservation
_A = states.Attachment


def _live_rows(reservation, device_ids):
    return [a for a in reservation.attachments
            if a.device_id in device_ids and a.state != _A.DETACHED]


def _check_devices(reservation, device_ids):
    mine = {u.device_id for u in reservation.devices}
    unknown = sorted(set(device_ids) - mine)
    if unknown:
        raise exception.Invalid(
            reason='not devices of device reservation %s: %s' % (
                reservation.id, ', '.join(unknown)))


def _in_term(reservation, what):
    now = timeutils.utcnow()
    if reservation.status != Status.ACTIVE or not (
            reservation.start <= now < reservation.end):
        raise exception.InvalidState(
            what='Device reservation %s' % reservation.id,
            status=states.in_words(reservation.status),
            reason='%s only while it is active and inside its window' %
            what)


def release(context, reservation_id, device_ids):
    """Put ``device_ids`` of the reservation on the spot market."""
    reservation = device_reservations_db.device_reservation_get(
        context, reservation_id)
    _check_devices(reservation, device_ids)
    _in_term(reservation, 'devices are released to the spot market')
    if reservation.mdev_type is not None:
        raise exception.Conflict(
            reason='device reservation %s shares its devices as mediated '
                   'devices (%s): only devices passed through whole are '
                   'lent out' % (reservation.id, reservation.mdev_type))
    host = runs.host_of(context, reservation)
    with hosts.host_lock(host.id):
        # Read again under the lock: an attach may have run meanwhile.
        reservation = device_reservations_db.device_reservation_get(
            context, reservation_id)
        used = sorted('%s (domain %s)' % (a.device_id, a.domain)
                      for a in _live_rows(reservation, set(device_ids))
                      if not a.spot)
        if used:
            raise exception.Conflict(
                reason='devices used by domains of the reservation are '
                       'not lent out; detach them first: %s' %
                       ', '.join(used))
        with db_api.writer.using(context):
            lifecycle.lock_live(context, reservation_id, (Status.ACTIVE,),
                                'nothing can be released')
            spot_devices_db.lend(context, reservation_id, device_ids,
                                 timeutils.utcnow())
    LOG.info('Device reservation %s lent out %s', reservation_id,
             ', '.join(sorted(device_ids)))


# spot domains -------------------------------------------------------------

def _lender(context, device_id):
    market = spot_devices_db.on_market(context, Status.ACTIVE, _A.DETACHED)
    if device_id not in market:
        raise exception.Conflict(
            reason='device %s is not on the spot market' % device_id)
    if market[device_id]:
        raise exception.Conflict(
            reason='device %s is already used by a spot domain' %
            device_id)
    for reservation in device_reservations_db.device_reservations_unreleased(
            context, (Status.ACTIVE,)):
        if device_id in reservation.lent_device_ids():
            return reservation
    raise exception.Conflict(
        reason='device %s is not on the spot market' % device_id)


def attach(context, device_id, domain, project_id):
    """Hand a device on the spot market to a domain of ``project_id``
    (a spot domain); 409 unless the device is on the market and free."""
    reservation = _lender(context, device_id)
    host = runs.host_of(context, reservation)
    with hosts.host_lock(host.id):
        conn = hosts.connect(host.uri)
        # Read again under the lock: a reclaim or another spot attach
        # may have run meanwhile.
        if _lender(context, device_id).id != reservation.id:
            raise exception.Conflict(
                reason='device %s changed hands meanwhile' % device_id)
        found = owners.check(context, host, conn, [domain], {project_id},
                             owners.unowned_ok(context))
        reservation = device_reservations_db.device_reservation_get(
            context, reservation.id)
        lifecycle.add_attachments(context, conn, reservation, [{
            'device_id': device_id, 'domain': domain, 'kind': _A.PCI,
            'mdev_uuid': None, 'project_id': project_id,
            'state': _A.PLANNED, 'spot': True,
            'domain_owner': found[domain]}])
        runs.resync(context, host, conn)
    return reservation.id


def _spot_row(context, device_id, domain, project_id):
    """(reservation, attachment) of the spot domain ``domain`` holding
    ``device_id``: 403 when another project's spot domain holds it
    (``project_id`` None: any project's may go), 409 when ``domain``
    does not hold it or holds it as one of the reservation's own."""
    rows = [(r, a) for r in
            device_reservations_db.device_reservations_unreleased(
                context, (Status.ACTIVE, Status.NEEDS_REVIEW))
            for a in _live_rows(r, {device_id})]
    spot_rows = [a for _, a in rows if a.spot]
    if project_id is not None and spot_rows and not any(
            a.project_id == project_id for a in spot_rows):
        raise exception.Forbidden(
            action='detach a spot device from a domain of another project')
    found = [(r, a) for r, a in rows if a.domain == domain]
    if not found:
        raise exception.Conflict(
            reason='device %s is not attached to domain %s' % (device_id,
                                                               domain))
    reservation, row = found[0]
    if not row.spot:
        raise exception.Conflict(
            reason='the attachment of device %s to domain %s is not a '
                   "spot attachment (the domain is one of its device "
                   "reservation's own): only a spot attachment is "
                   'detached here' % (device_id, domain))
    return reservation, row


def detach(context, device_id, domain, project_id=None):
    """The spot user gives a device back: its spot domain ``domain``
    loses it (the domain keeps running) and the device is on the market
    again, still lent. ``project_id``: the caller's project, whose spot
    domain it must be (None: any project's). Returns the id of the
    reservation that lent it.

    A crash between libvirt's detach and the rows (see _let_go): with
    the row still ATTACHED, the next refresh of the host attaches the
    device to the spot domain again (runs.restore): records and host
    agree, the spot user keeps the device and may detach it again. With
    the row DETACHED but not yet deleted, the device is free on the
    market already; nothing attaches it again (runs.to_attach) and the
    settle deletes the row (``drop_detached``)."""
    reservation, _ = _spot_row(context, device_id, domain, project_id)
    host = runs.host_of(context, reservation)
    with hosts.host_lock(host.id):
        conn = hosts.connect(host.uri)
        # Read again under the lock: a reclaim or another detach may
        # have run meanwhile.
        current, row = _spot_row(context, device_id, domain, project_id)
        if current.id != reservation.id:
            raise exception.Conflict(
                reason='device %s changed hands meanwhile' % device_id)
        if _changed_owner(owners.read(context, host, conn), row):
            raise exception.Conflict(
                reason='domain %s changed owner since device %s was '
                       'attached to it: it is not touched' % (domain,
                                                              device_id))
        _let_go(context, conn, [row], 'detach')
        runs.resync(context, host, conn)
    LOG.info('Device %s given back by spot domain %s (device reservation '
             '%s)', device_id, domain, reservation.id)
    return reservation.id


def _let_go(context, conn, rows, end_action, forget=()):
    """Spot domains lose the devices of ``rows`` (a reclaim's, or a
    spot user's detach): each hostdev detached, or its domain powered
    off first with ``end_action`` 'destroy' (attachments.release, which
    marks each row DETACHED once libvirt answered), then the rows go,
    with those of ``forget`` (let go of in the records only)."""
    attachments.release(context, conn, rows, end_action=end_action)
    device_reservations_db.attachments_delete(
        context, [a.id for a in list(rows) + list(forget)])


def drop_detached(context):
    """Delete the spot attachments a crash left DETACHED between
    libvirt's detach and their deletion (the settle); returns how many.
    Nothing holds their devices any more: they are on the market."""
    dropped = spot_devices_db.drop_detached(context, _A.DETACHED)
    if dropped:
        LOG.warning('Dropped %d spot attachment(s) a crash left detached',
                    dropped)
    return dropped


# reclaim -----------------------------------------------------------------

def _plan(context, host, conn, reservation, device_ids):
    """(what to terminate, what to skip) of a reclaim of ``device_ids``:
    each lent device's spot domains, or why one is left alone."""
    rows = _live_rows(reservation, set(device_ids))
    now = owners.read(context, host, conn) if rows else {}
    terminate, skip = [], []
    for row in sorted(rows, key=lambda a: (a.device_id, a.domain)):
        if not row.spot:
            skip.append((row, 'not a spot domain: one of the '
                              "reservation's own"))
        elif _changed_owner(now, row):
            skip.append((row, 'no longer a spot workload: the domain '
                              'changed owner'))
        else:
            terminate.append(row)
    return terminate, skip


def _changed_owner(now, row):
    """Whether the domain of ``row`` has another owner now (``now``:
    owners.read's) than when it was attached: no longer a spot
    workload, never touched."""
    return row.domain in now and now[row.domain] != row.domain_owner


def _terminated(row):
    return {'device_id': row.device_id, 'domain': row.domain,
            'project_id': row.project_id}


def _skipped(pair):
    row, reason = pair
    return {'device_id': row.device_id, 'domain': row.domain,
            'reason': reason}


def reclaim(context, reservation_id, device_ids=None, dry_run=False):
    """Take lent devices back (None: all it lent); see the module.
    Returns {device_ids, would_terminate, would_skip} for a dry run,
    else {device_ids, terminated, skipped}."""
    reservation = device_reservations_db.device_reservation_get(
        context, reservation_id)
    if reservation.status not in (Status.ACTIVE, Status.NEEDS_REVIEW):
        raise exception.InvalidState(
            what='Device reservation %s' % reservation_id,
            status=states.in_words(reservation.status),
            reason='its end took back everything it lent')
    if device_ids:
        _check_devices(reservation, device_ids)
        not_lent = sorted(set(device_ids) -
                          set(reservation.lent_device_ids()))
        if not_lent:
            raise exception.Invalid(
                reason='not lent out by device reservation %s: %s' % (
                    reservation_id, ', '.join(not_lent)))
    host = runs.host_of(context, reservation)
    with hosts.host_lock(host.id):
        conn = hosts.connect(host.uri)
        reservation = device_reservations_db.device_reservation_get(
            context, reservation_id)
        wanted = sorted(device_ids or reservation.lent_device_ids())
        if dry_run:
            terminate, skip = _plan(context, host, conn, reservation,
                                    wanted)
            return {'device_ids': wanted,
                    'would_terminate': [_terminated(r) for r in terminate],
                    'would_skip': [_skipped(p) for p in skip]}
        # The intent first, committed: a crash from here on is finished
        # by finish_reclaims.
        spot_devices_db.mark_reclaiming(context, reservation_id, wanted,
                                        timeutils.utcnow())
        done = _finish(context, host, conn, reservation_id)
    return dict(done, device_ids=wanted)


def _finish(context, host, conn, reservation_id):
    """The rest of the reclaims recorded on a reservation (under its
    host's lock): spot domains lose the devices, the devices are the
    owner's again, its planned attachments on them made."""
    reservation = device_reservations_db.device_reservation_get(
        context, reservation_id)
    taken = {u.device_id for u in reservation.devices
             if u.reclaiming_since is not None}
    terminate, skip = _plan(context, host, conn, reservation, taken)
    # A spot domain that changed hands is let go of in the records only.
    _let_go(context, conn, terminate, CONF.devices.spot_reclaim_action,
            [row for row, _ in skip if row.spot])
    spot_devices_db.take_back(context, reservation_id, sorted(taken))
    reservation = device_reservations_db.device_reservation_get(
        context, reservation_id)
    theirs = [a for a in _live_rows(reservation, taken)
              if not a.spot and a.state not in _A.MAY_BE_ATTACHED]
    if theirs and reservation.status == Status.ACTIVE:
        runs.restore(context, host, conn, reservation, theirs)
    runs.resync(context, host, conn)
    LOG.info('Device reservation %s reclaimed %s', reservation_id,
             ', '.join(sorted(taken)))
    return {'terminated': [_terminated(r) for r in terminate],
            'skipped': [_skipped(p) for p in skip]}


def finish_reclaims(context):
    """Finish the reclaims a crash interrupted (the manager's start and
    each refresh); returns the ids of the reservations finished."""
    finished = []
    for reservation_id in spot_devices_db.reclaiming(context):
        reservation = device_reservations_db.device_reservation_find(
            context, reservation_id)
        try:
            host = runs.host_of(context, reservation)
        except exception.HostNotFound:
            # Gone with its host: nothing of it is attached any more.
            spot_devices_db.take_back(context, reservation_id)
            continue
        with hosts.host_lock(host.id):
            _finish(context, host, hosts.connect(host.uri), reservation_id)
        LOG.warning('Device reservation %s: an interrupted reclaim was '
                    'finished', reservation_id)
        finished.append(reservation_id)
    return finished
