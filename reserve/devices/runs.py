"""What the lease engine runs of a device reservation, through the
device:gpu plugin (reserve.plugins.device_gpu):

* ``hold`` (the booking desk, reserve.booking.device_admission): select
  and write the devices, the reservation and its attachment plan,
  inside the caller's transaction.
* ``lease_request`` and ``adopt``: the lease the worker asks the manager
  for, and the plugin's reserve taking over the hold the desk wrote.
  The hold is what keeps the devices; the lease only schedules the start
  and the end, so it is asked for when the start comes within
  [devices]lease_lead_seconds (``lease_due``): at once for most, by the
  worker's reconciler for a reservation made further ahead.
* ``start`` / ``end`` (the lease's start_lease / end_lease events):
  attach the planned devices (undone on failure, the event is retried), or
  take everything back (the domain keeps running unless
  [devices]end_action is 'destroy') and free the devices.
* ``rediscover``: a host's discovery; when its topology generation moved,
  its pending and active reservations need review: they grant nothing
  (their devices are detached) and keep withholding their devices until an
  administrator affirms them (reserve.devices.lifecycle). Active
  reservations get back what they lost (after a restart of a test:///
  host, for instance).

The plugin imports this module, never lifecycle: lifecycle drives the
manager's requests and builds on this one.
"""
import datetime

from oslo_config import cfg
from oslo_log import log as logging

from reserve.common import exception
from reserve.common import lease_request as lease_requests
from reserve.common import states as engine_states
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import device_reservations as device_reservations_db
from reserve.db import hosts as hosts_db
from reserve.db import spot_devices as spot_devices_db
from reserve.devices import attachments
from reserve.devices import holds
from reserve.devices import hosts
from reserve.devices import inventory
from reserve.devices import owners
from reserve.devices import plan
from reserve.devices import portable
from reserve.devices import selection
from reserve.devices import states
from reserve.devices import status

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

Status = states.DeviceReservation


# hold --------------------------------------------------------------------

def request_of(values):
    """The selection.Request of a creation's values."""
    return selection.Request(
        device_ids=tuple(values.get('device_ids') or ()),
        device_count=int(values.get('device_count') or 0),
        model=values.get('model'), host_id=values.get('host_id'),
        numa_local=bool(values.get('numa_local')),
        mdev_type=values.get('mdev_type'))


def _projects(values):
    allowed = values.get('allowed_projects') or [values['project_id']]
    return {states.Role.ALLOWED: allowed,
            states.Role.MANAGING: values.get('managing_projects') or []}


def hold(context, values, start, end, admit=None):
    """Select and write the devices of ``values`` over [start, end) (inside
    the caller's transaction): the reservation, pending, with no lease
    yet. ``admit``: see holds.hold."""
    request = request_of(values)
    host = hosts_db.host_ref(context, request.host_id) if request.host_id \
        else None
    domains = list(values.get('domains') or ())

    def planned(chosen):
        return owners.record_owners(
            plan.for_domains(values['id'], chosen.devices, domains,
                             request.mdev_type, values['project_id']),
            values.get('domain_owners') or {})

    row = {
        'id': values['id'], 'project_id': values['project_id'],
        'user_id': values.get('user_id') or '',
        'start': start, 'end': end, 'status': Status.PENDING,
        'mdev_type': request.mdev_type,
        'request': _request_record(request),
        'contract_ref': values.get('contract_ref'),
        'reason': values.get('reason'),
        'topology_generation': (host.topology_generation if host else '')
        or '',
    }
    reservation_id, chosen = holds.hold(
        context, request, start, end, values.get('viewer'), row,
        _projects(values), planned, admit=admit)
    if host is None:
        host = hosts_db.host_ref(context, chosen.host_id)
        device_reservations_db.device_reservation_update(
            context, reservation_id,
            {'topology_generation': host.topology_generation or ''})


def _lease_lead():
    return datetime.timedelta(seconds=CONF.devices.lease_lead_seconds)


def lease_due_at(start):
    """When a held reservation starting at ``start`` is to have its
    lease."""
    return start - _lease_lead()


def lease_due(start, now):
    return lease_due_at(start) <= now


def latest_due_start(now):
    """The latest start of a reservation whose lease is due by ``now``
    (lease_due's bound, for a query)."""
    return now + _lease_lead()


def lease_request(reservation_id, project_id, user_id, start, end):
    """The LeaseRequest of a device reservation the booking desk holds:
    owned by it, one device:gpu request (the plugin's reserve adopts the
    hold)."""
    return lease_requests.LeaseRequest.for_owner(
        engine_states.Owner.DEVICE_RESERVATION, reservation_id, project_id,
        user_id, start, end,
        [{'resource_type': states.RESOURCE_TYPE,
          'device_reservation': {'id': reservation_id}}])


def adopt(context, reservation):
    """The plugin's reserve of a reservation the desk holds: the
    columns of its lease reservation, whose id is the device
    reservation's. Refused once it is no longer live (cancelled before
    its lease was made)."""
    if reservation.status not in Status.LIVE or reservation.released_at:
        raise exception.InvalidState(
            what='Device reservation %s' % reservation.id,
            status=states.in_words(reservation.status),
            reason='only a live reservation gets a lease')
    count = len(reservation.devices)
    return {'id': reservation.id, 'resource_type': states.RESOURCE_TYPE,
            'amount': count,
            # The devices' host held over the window (the capacity model
            # counts nova hosts; this one shows in /v1/allocations).
            'allocations': [{'host_id': reservation.host_id, 'amount': count,
                             'start': reservation.start,
                             'end': reservation.end}]}


def _request_record(request):
    if request.device_ids:
        return {'device_ids': list(request.device_ids)}
    return {'device_count': request.device_count, 'model': request.model,
            'numa_local': request.numa_local}


# start and end -----------------------------------------------------------

def to_attach(context, host, conn, rows):
    """The ids of the rows of ``rows`` that may be attached: those whose
    domain still has the owner it had when it was named (each other one
    is logged once and stays as it is). The planned ones among them are
    committed as ATTACHING before libvirt is asked (call it outside
    any transaction: the mark must outlive a crash of what follows).
    A spot attachment known detached (its spot domain gave the device
    back, or a reclaim took it, and a crash came before the row was
    deleted) is never attached again: the settle deletes it."""
    rows = [a for a in rows if not (
        a.spot and a.state == states.Attachment.DETACHED)]
    rows = owners.still_theirs(context, host, conn, rows, 'attached')
    attachments.mark_attaching(context, rows)
    return {a.id for a in rows}


def realize(context, conn, reservation, ids, undo):
    """attachments.realize of the reservation's rows of ``ids`` (from
    to_attach, or rows just added); its failure crosses the RPC API
    (portable)."""
    try:
        return attachments.realize(
            context, conn, reservation,
            [a for a in reservation.attachments if a.id in ids], undo)
    except exception.ReserveException as exc:
        raise portable.portable(
            exc, 'attaching the devices of device reservation %s failed and '
                 'was undone' % reservation.id) from exc


def resync(context, host, conn):
    """Rewrite the host's device rows after reserve changed the host
    (instances available, mdevs); a failure waits for the next
    discovery."""
    try:
        inventory.sync(context, host, conn)
    except exception.ReserveException as exc:
        LOG.warning('Devices of host %s not rewritten: %s', host.name, exc)


def host_of(context, reservation):
    """The reservation's host row (HostNotFound once it is gone)."""
    return hosts_db.host_get(context, reservation.host_id)


def start(context, reservation_id):
    """start_lease: attach the planned devices, unless the reservation
    needs review (or must: the host's topology moved since it was
    written). A failure undoes what this start did and is raised (the
    event is retried); the devices stay the reservation's."""
    reservation = device_reservations_db.device_reservation_find(
        context, reservation_id)
    if reservation is None or reservation.status not in (
            Status.PENDING, Status.ACTIVE):
        return
    # Back to back on a device, the end before gives it back first: were it
    # late, this start would attach what that end then takes away.
    held = device_reservations_db.unreleased_predecessors(context, reservation)
    if held:
        raise exception.DevicesNotReleased(
            devices=', '.join(sorted({u for us in held.values() for u in us})),
            holders=', '.join(sorted(held)))
    host = host_of(context, reservation)
    with hosts.host_lock(host.id):
        conn = hosts.connect(host.uri)
        if conn.topology_generation() != reservation.topology_generation:
            rediscover(context, host, conn)
            return
        try:
            ids = to_attach(context, host, conn,
                            device_reservations_db.device_reservation_get(
                                context, reservation_id).attachments)
            with attachments.saga() as undo, db_api.writer.using(context):
                # The compare-and-swap first: a cancel that came before
                # wins (nothing is attached; its end closes the rows),
                # one that comes after waits, and its end takes back.
                if not status.move(context, reservation_id, 'started',
                                   status_reason=None):
                    return
                reservation = device_reservations_db.device_reservation_get(
                    context, reservation_id)
                realize(context, conn, reservation, ids, undo)
        except exception.ReserveException as exc:
            device_reservations_db.device_reservation_update(
                context, reservation_id,
                {'status_reason': 'start failed, retried: %s' %
                 exc.user_message})
            raise
        resync(context, host, conn)


def end(context, reservation_id):
    """end_lease (also after a cancellation): take every device back and
    free them. Idempotent."""
    reservation = device_reservations_db.device_reservation_find(
        context, reservation_id)
    if reservation is None or reservation.released_at is not None:
        return
    try:
        host = host_of(context, reservation)
    except exception.HostNotFound:
        # Gone with its devices: nothing is attached any more.
        _released(context, reservation_id)
        return
    with hosts.host_lock(host.id):
        conn = hosts.connect(host.uri)
        # Read again under the lock: an attach that held it may have
        # added rows since.
        reservation = device_reservations_db.device_reservation_find(
            context, reservation_id)
        theirs = _theirs(context, host, conn, reservation.attachments,
                         states.Attachment.DETACHED)
        # Only these are taken from the host (attachments.release): a
        # reservation that never started changes nothing there.
        on_host = any(a.state in states.Attachment.MAY_BE_ATTACHED
                      for a in theirs)
        # What it lent out comes back first: the spot domains lose it.
        attachments.release(context, conn, [a for a in theirs if a.spot],
                            end_action=CONF.devices.spot_reclaim_action)
        attachments.release(context, conn,
                            [a for a in theirs if not a.spot],
                            end_action=CONF.devices.end_action)
        _released(context, reservation_id)
        if on_host:
            resync(context, host, conn)
    LOG.info('Device reservation %s released its devices', reservation_id)


def _theirs(context, host, conn, rows, final_state):
    """The attachments an end or a review may take back: those whose
    domain is still the reservation's (reserve.devices.owners); the
    others are let go of in the records only."""
    # Planned ones too: one may hold a hostdev its commit never saw.
    live = [a for a in rows if a.state != states.Attachment.DETACHED]
    kept = owners.still_theirs(context, host, conn, live,
                               'detached or powered off')
    owners.leave_alone(context, [a for a in live if a not in kept],
                       final_state)
    return [a for a in rows if a not in live or a in kept]


def _released(context, reservation_id):
    status.move(context, reservation_id, 'ended')
    spot_devices_db.take_back(context, reservation_id)
    device_reservations_db.device_reservation_update(
        context, reservation_id, {'released_at': timeutils.utcnow()})


# review ------------------------------------------------------------------

def rediscover(context, host, conn):
    """Discover a host (under its lock): devices and generation written,
    reservations written against another generation put in review,
    active ones given back what they lost. Returns a report."""
    needs_review = _review(context, host, conn, conn.topology_generation())
    restored = _converge(context, host, conn)
    # Written last, the rows show the host as reviewing and restoring
    # left it (instances available, what reserve holds).
    report = inventory.sync(context, host, conn)
    report.update(needs_review=needs_review, restored=restored)
    return report


def _review(context, host, conn, generation):
    moved = []
    for reservation in device_reservations_db.device_reservations_of_host(
            context, host.id, (Status.PENDING, Status.ACTIVE)):
        if reservation.topology_generation == generation:
            continue
        reason = ('the GPU topology of host %s changed (generation %s… '
                  'became %s…) at %s: it grants nothing until an '
                  'administrator re-affirms it' % (
                      host.name, reservation.topology_generation[:12],
                      generation[:12],
                      timeutils.isoformat(timeutils.utcnow())))
        if not status.move(context, reservation.id, 'to_review',
                           status_reason=reason):
            continue
        attachments.release(context, conn,
                            _theirs(context, host, conn,
                                    reservation.attachments,
                                    states.Attachment.PLANNED),
                            final_state=states.Attachment.PLANNED)
        LOG.warning('Device reservation %s needs review: %s',
                    reservation.id, reason)
        moved.append(reservation.id)
    return moved


def restore(context, host, conn, reservation, rows):
    """Attach again what of ``rows`` (attachments of an active
    reservation, under the host's lock) is not on the host. Returns (the
    ids of the rows still the reservation's, how many changes were
    made), or None once it is no longer active (its end releases)."""
    ids = to_attach(context, host, conn, rows)
    with attachments.saga() as undo, db_api.writer.using(context):
        if not device_reservations_db.device_reservation_lock_live(
                context, reservation.id, (Status.ACTIVE,)):
            return None
        return ids, realize(context, conn, reservation, ids, undo)


def _converge(context, host, conn):
    restored = []
    for reservation in device_reservations_db.device_reservations_of_host(
            context, host.id, (Status.ACTIVE,)):
        try:
            done = restore(context, host, conn, reservation,
                           reservation.attachments)
            if done is None:
                continue
            changed = done[1]
        except exception.ReserveException as exc:
            LOG.warning('Device reservation %s: attachments not restored: '
                        '%s', reservation.id, exc)
            device_reservations_db.device_reservation_update(
                context, reservation.id,
                {'status_reason': 'attachments could not be restored: %s' %
                 exc.user_message})
            continue
        if changed:
            restored.append(reservation.id)
    return restored
