"""Client side of the manager's RPC API (topic reserve-manager).

1.0 - create_lease, update_lease, delete_lease, create_host
1.1 - create_host takes a libvirt uri; refresh_host, host_domains and the
      device reservations: create, cancel, affirm, attach/detach a domain,
      set the domains, move the end
1.2 - sync_lease (cast): make a lease's cloud objects match its
      allocations; refresh_host reads a nova host's capacity; sync_fence
1.3 - a device:gpu lease adopts the claim the booking desk wrote (the
      worker's create_lease); create_device_reservation makes the lease
      of a reservation claimed already
1.4 - a flavor:instance request of create_lease names its nova flavor
      nova_flavor_id (was flavor_id) and its size instance_count (was
      amount); the answer names each reserved flavor reserved_flavor_id
      beside flavor_id
"""
from oslo_config import cfg
from oslo_log import log as logging

from reserve.common import exception
from reserve.common import rpc
from reserve.plugins import flavor_instance

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


# The version from which the manager adopts the booking desk's claims of
# GPU units.
UNIT_CLAIMS_VERSION = '1.3'
# The version from which a flavor:instance request takes the glossary's
# names; to an older manager they go under the names it knows.
GLOSSARY_NAMES_VERSION = '1.4'
_PREVIOUS_NAMES = {new: old for old, new
                   in flavor_instance.PREVIOUS_NAMES.items()}


class ManagerAPI:
    RPC_API_VERSION = '1.4'

    def __init__(self, timeout=120):
        self._client = rpc.get_client(
            rpc.MANAGER_TOPIC, self.RPC_API_VERSION, timeout=timeout,
            version_cap=CONF.upgrade_levels.manager)

    def _prepare(self, method, version):
        if not self._client.can_send_version(version):
            raise exception.RPCVersionCapped(
                topic='reserve-manager', method=method, version=version,
                group='manager', cap=CONF.upgrade_levels.manager)
        return self._client.prepare(version=version)

    def _call(self, context, method, version='1.0', **kwargs):
        return self._prepare(method, version).call(context, method,
                                                   **kwargs)

    def _repair(self, context, method, **kwargs):
        """A 1.2 cast that only repairs: managers of 1.1 do without it
        (their periodic task repairs in time)."""
        if not self._client.can_send_version('1.2'):
            LOG.info('Not asking reserve-manager to %s: [upgrade_levels] '
                     'manager caps messages at %s', method,
                     CONF.upgrade_levels.manager)
            return
        self._client.prepare(version='1.2').cast(context, method, **kwargs)

    def sync_lease(self, context, lease_id):
        """Cast: bring the lease's cloud objects in line with its
        allocations (hosts moved under a running lease)."""
        self._repair(context, 'sync_lease', lease_id=lease_id)

    def sync_fence(self, context):
        """Cast: fence every reservable nova host, unfence the others."""
        self._repair(context, 'sync_fence')

    def create_lease(self, context, request):
        """Create the lease of a LeaseRequest (reserve.common.
        lease_request), or return its owner's. Returns the lease as a
        dict.
        """
        lease_values = request.as_message()
        if not self._client.can_send_version(GLOSSARY_NAMES_VERSION):
            lease_values = dict(lease_values, reservations=[
                {_PREVIOUS_NAMES.get(k, k): v for k, v in r.items()}
                for r in lease_values.get('reservations') or []])
        return self._call(context, 'create_lease', lease_values=lease_values)

    def update_lease(self, context, lease_id, values):
        """Move a lease's end (values: end_date). Returns the lease."""
        return self._call(context, 'update_lease', lease_id=lease_id,
                          values=values)

    def delete_lease(self, context, lease_id):
        """Tear a lease down now and remove it."""
        return self._call(context, 'delete_lease', lease_id=lease_id)

    def create_host(self, context, values):
        """Enroll a nova hypervisor by name (values: name, capabilities,
        reservable). Looks it up in nova and placement; returns the host
        as a dict. Raises HypervisorNotFound or HostAlreadyEnrolled.
        With values['uri'] (1.1): a libvirt host, connected to and
        discovered by the manager (LibvirtHostUnreachable)."""
        if values.get('uri'):
            return self._call(context, 'create_host', version='1.1',
                              values=values)
        return self._call(context, 'create_host', values=values)

    # GPU devices on libvirt hosts (1.1) --------------------------------------

    def refresh_host(self, context, host_id):
        """Rediscover a libvirt host; returns what changed: devices,
        added, missing, previous_generation, topology_generation,
        needs_review and restored (reservation ids)."""
        return self._call(context, 'refresh_host', version='1.1',
                          host_id=host_id)

    def host_domains(self, context, host_id, name=None):
        """The domains of a libvirt host (name, uuid, running,
        persistent, hostdevs), or the one named with its xml."""
        return self._call(context, 'host_domains', version='1.1',
                          host_id=host_id, name=name)

    def adopts_unit_claims(self):
        """Whether [upgrade_levels] manager lets through what needs a
        manager that adopts the booking desk's claims (1.3); if not, the
        manager claims the units itself, as in the previous release."""
        return self._client.can_send_version(UNIT_CLAIMS_VERSION)

    def create_device_reservation(self, context, values, claimed=False):
        """Claim GPU units (values: id, project_id, user_id, viewer, the
        request: unit_ids or count/model/host_id/numa_local, mdev_type,
        allowed_projects, managing_projects, start, end, domains,
        contract_ref, reason) and make their lease; with ``claimed``
        (1.3), only make the lease of the units the booking desk claimed.
        Idempotent by id; returns {id}."""
        return self._call(context, 'create_device_reservation',
                          version=UNIT_CLAIMS_VERSION if claimed else '1.1',
                          values=values)

    def cancel_device_reservation(self, context, reservation_id, reason):
        """Cancel a live device reservation; False if it was not live."""
        return self._call(context, 'cancel_device_reservation',
                          version='1.1', reservation_id=reservation_id,
                          reason=reason)

    def affirm_device_reservation(self, context, reservation_id, who):
        return self._call(context, 'affirm_device_reservation',
                          version='1.1', reservation_id=reservation_id,
                          who=who)

    def attach_device_domain(self, context, reservation_id, domain,
                             unit_ids, project_id):
        return self._call(context, 'attach_device_domain', version='1.1',
                          reservation_id=reservation_id, domain=domain,
                          unit_ids=unit_ids, project_id=project_id)

    def detach_device_domain(self, context, reservation_id, domain,
                             project_id=None):
        """project_id: only that project's attachments may go (None:
        any)."""
        return self._call(context, 'detach_device_domain', version='1.1',
                          reservation_id=reservation_id, domain=domain,
                          project_id=project_id)

    def set_device_domains(self, context, reservation_id, domains,
                           project_id):
        return self._call(context, 'set_device_domains', version='1.1',
                          reservation_id=reservation_id, domains=domains,
                          project_id=project_id)

    def move_device_reservation_end(self, context, reservation_id, end):
        """end: ISO 8601, or None for open-ended."""
        return self._call(context, 'move_device_reservation_end',
                          version='1.1', reservation_id=reservation_id,
                          end=end)
