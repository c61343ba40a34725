"""The allocations of the reserve API."""
from reserveclient.v1 import base
from reserveclient.v1 import names


class AllocationManager(base.Manager):
    """/v1/allocations: which hosts back which reservations (admin)."""

    path = '/v1/allocations'
    key = 'allocation'
    collection_key = 'allocations'
    what = 'allocation'

    def list(self, limit=None, marker=None, **filters):
        """Filters: project_id, host_id, lease_reservation_id (sent as
        reservation_id before API 1.2), lease_id."""
        return self._list(names.sent(self.http, names.ALLOCATION, filters),
                          limit=limit, marker=marker)
