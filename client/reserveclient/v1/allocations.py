"""The allocations of the reserve API."""
from reserveclient.v1 import base


class AllocationManager(base.Manager):
    """/v1/allocations: which hosts back which reservations (admin)."""

    path = '/v1/allocations'
    key = 'allocation'
    collection_key = 'allocations'
    what = 'allocation'
