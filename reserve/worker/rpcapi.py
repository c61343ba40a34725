"""Client side of the worker's RPC API (topic reserve-worker).

1.0 - the first release: create_lease, update_lease, delete_lease (of a
      booking); create_device_lease, delete_device_lease (of a device
      reservation the booking desk holds)
1.1 - promote_standby: capacity was freed, run a pass of the standby
      list now
1.2 - share_lease: a booking's shared projects changed

A method added later names its version in its cast; [upgrade_levels]
worker caps what this node sends while older workers run
(RPCVersionCapped).
"""
from oslo_config import cfg

from reserve.common import rpc

CONF = cfg.CONF


class WorkerAPI:
    RPC_API_VERSION = '1.2'

    def __init__(self):
        self._client = rpc.get_client(
            rpc.WORKER_TOPIC, self.RPC_API_VERSION,
            version_cap=CONF.upgrade_levels.worker)

    def _cast(self, context, method, version='1.0', **kwargs):
        rpc.prepare(self._client, 'worker', method, version).cast(
            context, method, **kwargs)

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

    def promote_standby(self, context, booking_id):
        """Capacity was freed (``booking_id`` cancelled or ended
        earlier): run a pass of the standby list now rather than at the
        next interval."""
        self._cast(context, 'promote_standby', version='1.1',
                   booking_id=booking_id)

    def share_lease(self, context, booking_id):
        """Give a running booking's shared projects their access, and take
        it from those no longer shared."""
        self._cast(context, 'share_lease', version='1.2',
                   booking_id=booking_id)

    def create_device_lease(self, context, device_reservation_id):
        """Make the lease of a held device reservation (idempotent)."""
        self._cast(context, 'create_device_lease',
                   device_reservation_id=device_reservation_id)

    def delete_device_lease(self, context, device_reservation_id):
        """Tear a cancelled device reservation's lease down, or release
        its hold when it has none."""
        self._cast(context, 'delete_device_lease',
                   device_reservation_id=device_reservation_id)
