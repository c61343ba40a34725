"""The manager's periodic capacity task.

Every [manager]capacity_refresh_interval seconds (and once at start):

* each nova host's capacity record is read again from placement
  (capacity.refresh), so that instances other projects had on a host
  when it was enrolled stop counting once they are gone;
* the fence is repaired (reserve.fence.fence.sync): a reservable host taken
  out of the fence aggregate, or stripped of its trait, by hand is put
  back;
* the hosts' health is checked (reserve.manager.health), on its own
  interval;
* a booking left behind its lease (catch_up) is moved on.

The cloud objects of leases are the repair task's (reserve.manager.repair,
every [manager]repair_interval).

Each step is idempotent and only logs what it cannot do now; the next
run tries again. A step that needs a cloud this process has none of
(the all-in-one without nova and placement) is skipped, said once at
INFO, as the repair task does: nothing is wrong then.
"""
import threading

from oslo_config import cfg
from oslo_log import log as logging

from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.manager import catch_up
from reserve.manager import health

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


class CapacityLoop:
    def __init__(self, lease_manager):
        self._manager = lease_manager
        self._health = health.HealthCheck(lease_manager)
        self._stop = threading.Event()
        self._thread = None
        self._unconfigured = set()

    def start(self):
        if not CONF.manager.capacity_refresh_interval:
            return
        self._thread = threading.Thread(target=self._loop,
                                        name='reserve-capacity',
                                        daemon=True)
        self._thread.start()

    def run_once(self):
        context = reserve_context.get_admin_context()
        steps = (('capacity refresh', self._manager._refresh_capacity),
                 ('fence repair', self._manager.sync_fence),
                 ('host health', self._health.run_if_due),
                 ('owner catch-up', catch_up.follow_lagging_owners))
        for name, step in steps:
            try:
                step(context)
            except exception.CloudNotConfigured as exc:
                if name not in self._unconfigured:
                    LOG.info('Periodic %s skipped: %s', name, exc)
                    self._unconfigured.add(name)
            except Exception as exc:  # next run tries again
                LOG.warning('Periodic %s failed: %s: %s', name,
                            type(exc).__name__, exc)

    def _loop(self):
        self.run_once()
        while not self._stop.wait(CONF.manager.capacity_refresh_interval):
            self.run_once()

    def stop(self, timeout=30):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
