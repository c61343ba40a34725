"""Client side of the worker's RPC API (topic reserve-worker).

1.0 - create_lease, update_lease, delete_lease
"""
from oslo_config import cfg

from reserve.common import rpc

CONF = cfg.CONF


class WorkerAPI:
    RPC_API_VERSION = '1.0'

    def __init__(self):
        self._client = rpc.get_client(
            rpc.WORKER_TOPIC, self.RPC_API_VERSION,
            version_cap=CONF.upgrade_levels.worker)

    def _cast(self, context, method, **kwargs):
        self._client.prepare(version='1.0').cast(context, method, **kwargs)

    def create_lease(self, context, booking_id):
        """Turn a PENDING_CREATE booking into a lease (idempotent)."""
        self._cast(context, 'create_lease', booking_id=booking_id)

    def update_lease(self, context, booking_id):
        """Carry a booking's new end over to its lease."""
        self._cast(context, 'update_lease', booking_id=booking_id)

    def delete_lease(self, context, booking_id, lease_id=None):
        """Tear a cancelled booking's lease down.

        Pass lease_id when the booking row is already gone.
        """
        self._cast(context, 'delete_lease', booking_id=booking_id,
                   lease_id=lease_id)
