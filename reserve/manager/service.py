"""reserve-manager: the RPC server on topic reserve-manager, the event
loop, the periodic rediscovery of libvirt GPU hosts, the capacity task,
the repair task and the spot task, in one process."""
from oslo_log import log as logging

from reserve.common import rpc
from reserve.db import events as events_db
from reserve.db import heartbeat
from reserve.devices import refresh as device_refresh
from reserve.manager import events
from reserve.manager import manager
from reserve.manager import periodic
from reserve.manager import repair
from reserve.manager import spot_loop

LOG = logging.getLogger(__name__)


class ManagerService:
    def __init__(self):
        self.heartbeat = heartbeat.Heartbeat(events_db.MANAGER_BINARY)
        self.event_loop = events.EventLoop(alive=self.heartbeat.fresh)
        self.endpoint = manager.LeaseManager(wake=self.event_loop.wake)
        self.device_refresh = device_refresh.RefreshLoop()
        self.capacity = periodic.CapacityLoop(self.endpoint)
        self.repair = repair.RepairLoop()
        self.spot = spot_loop.SpotLoop()
        self._server = None

    def start(self):
        # Alive before taking anything, so no other manager takes over
        # what this one takes (the event loop takes nothing while the
        # heartbeat is not fresh: a start with the database away).
        self.heartbeat.start()
        self._server = rpc.get_server(rpc.MANAGER_TOPIC,
                                      self.endpoint.target.version,
                                      [self.endpoint])
        self._server.start()
        self.event_loop.start()
        self.device_refresh.start()
        self.capacity.start()
        self.repair.start()
        self.spot.start()
        LOG.info('reserve-manager started')

    def stop(self):
        if self._server is not None:
            self._server.stop()
            self._server.wait()
        self.device_refresh.stop()
        self.capacity.stop()
        self.repair.stop()
        self.spot.stop()
        self.event_loop.stop()
        # Only once its events are finished or handed back.
        self.heartbeat.stop()
        LOG.info('reserve-manager stopped')
