"""Client side of the manager's RPC API (topic reserve-manager).

1.0 - the first release: create_lease, update_lease, delete_lease,
      sync_lease (cast), create_host, refresh_host, host_domains,
      sync_fence (cast), and of a device reservation the booking desk
      admitted: affirm, attach/detach a domain, set the domains, move the
      end
1.1 - diagnose (one reservation's layers, read live) and doctor (every
      live reservation with a mismatch)
1.2 - spot devices: release devices of a device reservation, reclaim
      them (or its dry run), hand one on the market to a spot domain
1.3 - detach_spot_device: a spot domain gives its device back

Dates cross as datetimes (reserve.common.rpc's serializer). A method
added later names its version in its call; [upgrade_levels] manager caps
what this node sends while older managers run (RPCVersionCapped).
"""
from oslo_config import cfg

from reserve.common import rpc

CONF = cfg.CONF


class ManagerAPI:
    RPC_API_VERSION = '1.3'

    def __init__(self, timeout=120):
        self._client = rpc.get_client(
            rpc.MANAGER_TOPIC, self.RPC_API_VERSION, timeout=timeout,
            version_cap=CONF.upgrade_levels.manager)

    def _prepare(self, method, version):
        return rpc.prepare(self._client, 'manager', method, version)

    def _call(self, context, method, version='1.0', **kwargs):
        return self._prepare(method, version).call(context, method,
                                                   **kwargs)

    def _cast(self, context, method, version='1.0', **kwargs):
        self._prepare(method, version).cast(context, method, **kwargs)

    def sync_lease(self, context, lease_id):
        """Cast: bring the lease's cloud objects in line with its
        allocations (hosts moved under a running lease)."""
        self._cast(context, 'sync_lease', lease_id=lease_id)

    def sync_fence(self, context):
        """Cast: fence every reservable nova host, unfence the others."""
        self._cast(context, 'sync_fence')

    def create_lease(self, context, request):
        """Create the lease of a LeaseRequest (reserve.common.
        lease_request), or return its owner's. Returns the lease as a
        dict (reserve.manager.views.lease).
        """
        lease_values = request.as_message()
        return self._call(context, 'create_lease', lease_values=lease_values)

    def update_lease(self, context, lease_id, values):
        """Move a lease's end (values: end, a naive UTC datetime).
        Returns the lease."""
        return self._call(context, 'update_lease', lease_id=lease_id,
                          values=values)

    def delete_lease(self, context, lease_id):
        """Tear a lease down now and remove it."""
        return self._call(context, 'delete_lease', lease_id=lease_id)

    def create_host(self, context, values):
        """Enroll a nova hypervisor by name (values: name, capabilities,
        reservable). Looks it up in nova and placement; returns the host
        as a dict. Raises HypervisorNotFound or HostAlreadyEnrolled.
        With values['uri']: a libvirt host, connected to and discovered
        by the manager (LibvirtHostUnreachable)."""
        return self._call(context, 'create_host', values=values)

    # diagnosis -------------------------------------------------------------

    def diagnose(self, context, kind, reservation_id):
        """The diagnosis of a reservation (kind 'reservation') or a device
        reservation ('device_reservation'): reserve.diagnosis.findings."""
        return self._call(context, 'diagnose', version='1.1', kind=kind,
                          reservation_id=reservation_id)

    def doctor(self, context, kind=None):
        """{checked, reservations: [the diagnoses with a mismatch]} of
        every live reservation (of ``kind`` only, when given)."""
        return self._call(context, 'doctor', version='1.1', kind=kind)

    # GPU devices on libvirt hosts --------------------------------------------

    def refresh_host(self, context, host_id):
        """Rediscover a libvirt host; returns what changed: devices,
        added, missing, previous_generation, topology_generation,
        needs_review and restored (reservation ids)."""
        return self._call(context, 'refresh_host', host_id=host_id)

    def host_domains(self, context, host_id, name=None):
        """The domains of a libvirt host (name, uuid, running,
        persistent, hostdevs), or the one named with its xml."""
        return self._call(context, 'host_domains', host_id=host_id,
                          name=name)

    def affirm_device_reservation(self, context, device_reservation_id, who):
        return self._call(context, 'affirm_device_reservation',
                          device_reservation_id=device_reservation_id, who=who)

    def attach_device_domain(self, context, device_reservation_id, domain,
                             device_ids, project_id):
        return self._call(context, 'attach_device_domain',
                          device_reservation_id=device_reservation_id,
                          domain=domain, device_ids=device_ids,
                          project_id=project_id)

    def detach_device_domain(self, context, device_reservation_id, domain,
                             project_id=None):
        """project_id: only that project's attachments may go (None:
        any)."""
        return self._call(context, 'detach_device_domain',
                          device_reservation_id=device_reservation_id,
                          domain=domain, project_id=project_id)

    def set_device_domains(self, context, device_reservation_id, domains,
                           project_id):
        return self._call(context, 'set_device_domains',
                          device_reservation_id=device_reservation_id,
                          domains=domains, project_id=project_id)

    def release_devices(self, context, device_reservation_id, device_ids):
        return self._call(context, 'release_devices', version='1.2',
                          device_reservation_id=device_reservation_id,
                          device_ids=device_ids)

    def reclaim_devices(self, context, device_reservation_id, device_ids,
                        dry_run):
        """device_ids: None for every device lent out."""
        return self._call(context, 'reclaim_devices', version='1.2',
                          device_reservation_id=device_reservation_id,
                          device_ids=device_ids, dry_run=dry_run)

    def attach_spot_device(self, context, device_id, domain, project_id):
        return self._call(context, 'attach_spot_device', version='1.2',
                          device_id=device_id, domain=domain,
                          project_id=project_id)

    def detach_spot_device(self, context, device_id, domain, project_id):
        """project_id: the spot domain must be that project's (None:
        any project's)."""
        return self._call(context, 'detach_spot_device', version='1.3',
                          device_id=device_id, domain=domain,
                          project_id=project_id)

    def move_device_reservation_end(self, context, device_reservation_id, end):
        """end: a naive UTC datetime, or None for open-ended."""
        return self._call(context, 'move_device_reservation_end',
                          device_reservation_id=device_reservation_id, end=end)
