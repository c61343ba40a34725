"""The lease engine's RPC endpoint: creates, moves and deletes leases.

Creation picks the hosts and writes the lease, its reservations,
allocations and three events in one transaction, then builds the
artefacts early; the event loop (events.py) does the rest when the
events fall due.
"""

from oslo_config import cfg
from oslo_log import log as logging
import oslo_messaging as messaging

from reserve.capacity import aggregate_gpus
from reserve.capacity import refresh as capacity_refresh
from reserve.capacity import store as capacity_store
from reserve.common import exception
from reserve.common import lease_request
from reserve.common import nova
from reserve.common import placement
from reserve.common import states
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import device_reservations as device_reservations_db
from reserve.db import events as events_db
from reserve.db import hosts as hosts_db
from reserve.db import leases as leases_db
from reserve.devices import lifecycle as device_lifecycle
from reserve.devices import portable
from reserve.devices import refresh as device_refresh
from reserve.devices import runs as device_runs
from reserve.devices import spot as device_spot
from reserve.devices import states as device_states
from reserve.diagnosis import booking as booking_diagnosis
from reserve.diagnosis import device as device_diagnosis
from reserve.diagnosis import doctor
from reserve.diagnosis import findings
from reserve.fence import fence
from reserve.manager import delivery
from reserve.manager import leftovers
from reserve.manager import notify
from reserve.manager import owners
from reserve.manager import schedule
from reserve.manager import views
from reserve import plugins

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

# Within one process, decisions queue here (see capacity.store).
_SELECTION_LOCK = capacity_store.PROCESS_LOCK
# A move of a lease's end that lost to another move is tried again on
# what that one wrote, this many times in all.
_MOVE_ATTEMPTS = 5


def _awaits_lease(reservation):
    """Whether a device reservation is admitted and live, its lease yet
    to be made (by the worker)."""
    return (reservation is not None and reservation.released_at is None
            and reservation.status in device_states.DeviceReservation.LIVE)


class LeaseManager:
    target = messaging.Target(version='1.3')

    def __init__(self, wake=None, nova_client=None, placement_client=None):
        self._wake = wake or (lambda due=None: None)
        self._nova = nova_client or nova.NovaClient()
        self._placement = placement_client or placement.PlacementClient()

    # leases ------------------------------------------------------------------

    def create_lease(self, context, lease_values):
        """Create the lease a LeaseRequest's message asks for (its
        dates naive UTC datetimes)."""
        return self.make_lease(
            context, lease_request.LeaseRequest.of_message(lease_values))

    def make_lease(self, context, request):
        """Make the lease of ``request``'s owner unless it has one
        already. The owner moves with it (owners.py): a booking
        ALLOCATED, or ERROR when refused."""
        try:
            return self._make_lease(context, request)
        except exception.ReserveException as exc:
            owners.refused(context, request.owner_type, request.owner_id,
                           exc)
            raise

    def _make_lease(self, context, request):
        existing = leases_db.lease_state_by_owner(
            context, request.owner_type, request.owner_id)
        lease_id = (self._write_lease(context, request) if existing is None
                    else None)
        if lease_id is None:
            # Made already (a recast creation, or a race lost to another
            # manager): the same answer again.
            existing = leases_db.lease_get_by_owner(
                context, request.owner_type, request.owner_id)
            owners.announce(context, owners.allocated(context, existing))
            return views.lease(existing)
        self._wake(due=request.start)   # its first event (lease_events)
        LOG.info('Lease %s (%s) created for project %s', lease_id,
                 request.name, request.project_id)
        # Read once: the build writes no lease row, and the status is
        # the one written below (read again only if something else moved
        # it first, a cancel).
        made = leases_db.lease_get(context, lease_id)
        reason = self._build(context, made)
        with db_api.writer.using(context):
            pending = leases_db.lease_update(
                context, lease_id, {'status': states.Lease.PENDING,
                                    'status_reason': reason},
                expected_status=states.Lease.CREATING)
            moved = owners.allocated(context, made)
        owners.announce(context, moved)
        if pending:
            now = {'status': states.Lease.PENDING, 'status_reason': reason}
        else:
            made = leases_db.lease_get(context, lease_id)
            now = {'status': made.status,
                   'status_reason': made.status_reason}
        delivery.opened(context, made)
        notify.emit(context, 'lease.create', made, **now)
        return dict(views.lease(made), **now)

    def _write_lease(self, context, request):
        """The new lease's id, its reservations and events written under
        the capacity lock; None when the owner's lease was written
        meanwhile."""
        row = {'name': request.name, 'owner_type': request.owner_type,
               'owner_id': request.owner_id,
               'project_id': request.project_id,
               'user_id': request.user_id, 'start': request.start,
               'end': request.end, 'status': states.Lease.CREATING}
        # What needs the cloud (a nova flavor's record) is read first,
        # outside the lock.
        requests = [plugins.get_plugin(v.get('resource_type'))
                    .prepare(context, v) for v in request.reservations]
        try:
            with _SELECTION_LOCK, db_api.writer.using(context):
                capacity_store.lock(context)
                reservations = []
                allocates = False
                for values in requests:
                    plugin = plugins.get_plugin(values.get('resource_type'))
                    rsv = plugin.reserve(context, row, values)
                    rsv['status'] = states.LeaseReservation.PENDING
                    reservations.append(rsv)
                    allocates = allocates or plugin.capacity_allocations
                lease_id = leases_db.lease_create(
                    context, row, reservations,
                    schedule.lease_events(request.start, request.end))
                # Only capacity allocations count (an open-ended device
                # lease would hold longest_allocation at thousands of
                # years).
                if allocates:
                    capacity_store.note_allocations(context, request.start,
                                                    request.end)
                return lease_id
        except exception.Conflict:
            if leases_db.lease_state_by_owner(
                    context, request.owner_type, request.owner_id) is None:
                raise
            return None

    def _build(self, context, lease):
        """Build the lease's artefacts now; the reason shown when some
        are left for its start (None when all were built)."""
        try:
            for reservation in lease.reservations:
                plugins.get_plugin(reservation.resource_type).build(
                    context, lease, reservation)
        except Exception as exc:
            # Not fatal: start_lease builds whatever is missing. The lease
            # is shown to its project: reserve's words, the text logged.
            LOG.warning('Lease %s: artefacts not built yet (request %s): %s',
                        lease.id, context.request_id, exc,
                        exc_info=not isinstance(
                            exc, exception.ReserveException))
            return 'artefacts will be built at start: %s' % (
                exception.public_message(exc, context.request_id))
        return None

    def update_lease(self, context, lease_id, values):
        """Move the end of a lease, if its hosts stay free that long.

        A compare-and-swap on the lease's status and end: a lease being
        deleted (a cancel) is never moved, whatever the order the two
        requests arrive in (409); a move that lost to another move is
        tried again on what that one wrote. values['end']: a naive
        UTC datetime."""
        end = values['end']
        for _ in range(_MOVE_ATTEMPTS):
            lease = leases_db.lease_get(context, lease_id)
            if lease.status not in states.Lease.CHANGEABLE:
                raise exception.InvalidState(
                    what='Lease %s' % lease_id, status=lease.status,
                    reason='only a pending or active lease can be changed')
            if end <= max(lease.start, timeutils.utcnow()):
                raise exception.Invalid(
                    reason='the new end must be after the start and in '
                           'the future')
            if self._move_end(context, lease, end):
                break
        else:
            raise exception.InvalidState(
                what='Lease %s' % lease_id, status='changing',
                reason='its end kept changing while being moved; try '
                       'again')
        self._wake()
        lease = leases_db.lease_get(context, lease_id)
        delivery.moved_end(context, lease, lease.end)
        notify.emit(context, 'lease.update', lease)
        return views.lease(lease)

    def _move_end(self, context, lease, end):
        """One attempt of update_lease: False when the lease's status or
        end changed since ``lease`` was read (nothing written)."""
        with _SELECTION_LOCK, db_api.writer.using(context):
            capacity_store.lock(context)
            # The lease's row first: a deletion that got there before
            # makes this fail; one that comes after moves the end back.
            if not leases_db.lease_update(
                    context, lease.id, {'end': end},
                    expected_status=states.Lease.CHANGEABLE,
                    expected_end=lease.end):
                return False
            for reservation in lease.reservations:
                plugins.get_plugin(reservation.resource_type)\
                    .check_new_window(context, lease, reservation,
                                      lease.start, end)
            if end != lease.end:
                schedule.move_end_events(context, lease, end)
        return True

    def delete_lease(self, context, lease_id):
        """Tear a lease down now; the row goes once teardown is done.
        Idempotent: a lease DELETING already has its end made due now
        again (a recast after a lost or undone one)."""
        end_status = events_db.end_status(context, lease_id)
        if end_status is None:
            return None  # gone
        if end_status == states.Event.DONE:
            try:
                lease = leases_db.lease_get(context, lease_id)
            except exception.LeaseNotFound:
                return None  # destroyed meanwhile
            leases_db.lease_destroy(context, lease_id)
            notify.emit(context, 'lease.delete', lease)
            return None
        leases_db.lease_mark_deleting(context, lease_id, timeutils.utcnow())
        self._wake()
        return None

    # hosts -------------------------------------------------------------------

    @portable.portable_errors
    def create_host(self, context, values):
        if values.get('uri'):
            host = device_refresh.enroll(context, values)
            return views.host(host)
        name = values['name']
        hypervisor = self._nova.find_hypervisor(name)
        if hypervisor is None:
            raise exception.HypervisorNotFound(name=name)
        provider = self._placement.get_provider(hypervisor.id)
        if provider is None:
            provider = self._placement.get_provider_by_name(name)
        row = {
            'name': name, 'kind': 'nova',
            'service_name': hypervisor.service['host'],
            'provider_uuid': provider['uuid'] if provider else None,
            'vcpus': getattr(hypervisor, 'vcpus', 0) or 0,
            'memory_mb': getattr(hypervisor, 'memory_mb', 0) or 0,
            'local_gb': getattr(hypervisor, 'local_gb', 0) or 0,
            'reservable': values.get('reservable', True),
        }
        if provider:
            # What the capacity model counts on it (capacity.refresh);
            # without placement, the hypervisor's figures stand until the
            # periodic refresh reads it.
            try:
                by_host = capacity_refresh.gpus_by_host(self._nova) or {}
                row.update(capacity_refresh.read(
                    self._placement, provider['uuid'],
                    aggregate_gpus.of_host(by_host, row['service_name'],
                                           name)))
                row['capacity_read_at'] = timeutils.utcnow()
            except exception.CloudError as exc:
                LOG.warning('Host %s: capacity not read from placement '
                            'yet: %s', name, exc)
        host = hosts_db.host_create(context, row, values.get('capabilities'))
        LOG.info('Host %s enrolled as %s', name, host.id)
        if host.reservable:
            try:
                fence.fence_host(self._nova, self._placement, host)
            except exception.CloudError as exc:
                # Enrolled all the same: the periodic sync_fence repairs.
                LOG.warning('Host %s not fenced yet: %s', name, exc)
        return views.host(hosts_db.host_get(context, host.id))

    def sync_fence(self, context):
        """Repair the fence of the hosts; returns what it repaired."""
        return fence.sync(context, self._nova, self._placement)

    def sync_lease(self, context, lease_id):
        """Make a started lease's cloud objects match its allocations
        (cast after hosts were moved under it)."""
        try:
            lease = leases_db.lease_get(context, lease_id)
        except exception.LeaseNotFound:
            return
        if lease.status != states.Lease.ACTIVE:
            return  # a lease yet to start starts on its allocations
        for reservation in lease.reservations:
            for what in plugins.get_plugin(reservation.resource_type).sync(
                    context, lease, reservation):
                LOG.info('Lease %s: %s', lease_id, what)
        LOG.info('Lease %s synced with its allocations', lease_id)

    def _refresh_capacity(self, context):
        """Read every nova host's capacity record again (the periodic
        task); returns how many changed."""
        return capacity_refresh.refresh_all(context, self._placement,
                                            self._nova)

    # diagnosis ---------------------------------------------------------------

    @portable.portable_errors
    def diagnose(self, context, kind, reservation_id):
        """The layers of one reservation, read live (reserve.diagnosis)."""
        if kind == findings.DEVICE_RESERVATION:
            return device_diagnosis.diagnose(context, reservation_id)
        if kind != findings.RESERVATION:
            raise exception.Invalid(reason='no diagnosis of a %r' % kind)
        return booking_diagnosis.diagnose(context, reservation_id,
                                          self._nova, self._placement)

    def doctor(self, context, kind=None):
        """Every live reservation diagnosed; those with a mismatch."""
        return doctor.sweep(
            context, self._nova, self._placement, kind,
            leftovers=lambda: leftovers.find(self._nova, self._placement))

    # GPU devices on libvirt hosts -------------------------------------------

    @portable.portable_errors
    def refresh_host(self, context, host_id):
        """Rediscover a libvirt host, or read a nova host's capacity
        record, now; returns what changed."""
        host = hosts_db.host_get(context, host_id)
        if host.kind == 'nova':
            return {'capacity_changed': capacity_refresh.refresh(
                context, host, self._placement, self._nova)}
        return device_refresh.refresh(context, host_id)

    @portable.portable_errors
    def host_domains(self, context, host_id, name=None):
        """The domains of a libvirt host, or one with its XML."""
        return device_refresh.domains(context, host_id, name)

    @portable.portable_errors
    def affirm_device_reservation(self, context, device_reservation_id, who):
        device_lifecycle.affirm(context, device_reservation_id, who)

    @portable.portable_errors
    def attach_device_domain(self, context, device_reservation_id, domain,
                             device_ids, project_id):
        device_lifecycle.attach(context, device_reservation_id, domain,
                                device_ids, project_id)

    @portable.portable_errors
    def detach_device_domain(self, context, device_reservation_id, domain,
                             project_id=None):
        device_lifecycle.detach(context, device_reservation_id, domain,
                                project_id)

    @portable.portable_errors
    def set_device_domains(self, context, device_reservation_id, domains,
                           project_id):
        device_lifecycle.set_domains(context, device_reservation_id, domains,
                                     project_id)

    @portable.portable_errors
    def release_devices(self, context, device_reservation_id, device_ids):
        device_spot.release(context, device_reservation_id, device_ids)

    @portable.portable_errors
    def reclaim_devices(self, context, device_reservation_id, device_ids,
                        dry_run):
        return device_spot.reclaim(context, device_reservation_id,
                                   device_ids, dry_run)

    @portable.portable_errors
    def attach_spot_device(self, context, device_id, domain, project_id):
        return device_spot.attach(context, device_id, domain, project_id)

    @portable.portable_errors
    def detach_spot_device(self, context, device_id, domain,
                           project_id=None):
        return device_spot.detach(context, device_id, domain, project_id)

    @portable.portable_errors
    def move_device_reservation_end(self, context, device_reservation_id, end):
        """Move the end of a live device reservation (None: open-ended)
        through its lease, if its devices stay free that long (``end``: a
        naive UTC datetime)."""
        lease = device_reservations_db.device_reservation_lease_state(
            context, device_reservation_id)
        found = device_reservations_db.device_reservation_find(
            context, device_reservation_id)
        if lease is None and _awaits_lease(found):
            # Its lease, not made yet (the worker's cast still on its
            # way), is made now to take the new end.
            self.make_lease(context, device_runs.lease_request(
                found.id, found.project_id, found.user_id,
                found.start, found.end))
            lease = device_reservations_db.device_reservation_lease_state(
                context, device_reservation_id)
        if lease is None:
            raise exception.InvalidState(
                what='Device reservation %s' % device_reservation_id,
                status='over', reason='its lease has ended')
        try:
            self.update_lease(context, lease.id,
                              {'end': end or device_states.OPEN_END})
        except exception.InvalidState:
            # Said of the reservation, not of its lease, once it is over.
            found = device_reservations_db.device_reservation_find(
                context, device_reservation_id)
            if found is None or found.status in \
                    device_states.DeviceReservation.LIVE:
                raise
            raise exception.InvalidState(
                what='Device reservation %s' % device_reservation_id,
                status=device_states.in_words(found.status),
                reason='a cancelled or ended reservation\'s end cannot '
                       'move')
