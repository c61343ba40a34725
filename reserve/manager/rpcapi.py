"""Client side of the manager's RPC API (topic reserve-manager).

1.0 - create_lease, update_lease, delete_lease, create_host
"""
from reserve.common import rpc


class ManagerAPI:
    RPC_API_VERSION = '1.0'

    def __init__(self, timeout=120):
        self._client = rpc.get_client(rpc.MANAGER_TOPIC,
                                      self.RPC_API_VERSION, timeout=timeout)

    def _call(self, context, method, **kwargs):
        return self._client.prepare(version='1.0').call(context, method,
                                                        **kwargs)

    def create_lease(self, context, lease_values):
        """Create a lease, or return the one already named so.

        lease_values: name, project_id, user_id, start_date, end_date
        (ISO 8601) and reservations, a list of dicts with resource_type
        and the plugin's parameters. Returns the lease as a dict.
        """
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
        as a dict. Raises HypervisorNotFound or HostAlreadyEnrolled."""
        return self._call(context, 'create_host', values=values)
