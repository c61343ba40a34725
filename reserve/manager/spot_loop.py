"""The manager's spot task (reserve.spot.lending) in a thread of its own,
every [spot]interval seconds: its runs must come often, for the owners'
boots beyond the margin wait for the next one."""
import threading

from oslo_config import cfg
from oslo_log import log as logging

from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import nova
from reserve.common import placement
from reserve.spot import lending

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


class SpotLoop:
    def __init__(self, spot_lending=None):
        self.lending = spot_lending or lending.SpotLending(
            nova.NovaClient(), placement.PlacementClient())
        self._stopped = threading.Event()
        self._thread = None
        self._unconfigured = False

    def run_once(self, context=None):
        context = context or reserve_context.get_admin_context()
        try:
            return self.lending.run(context)
        except exception.CloudNotConfigured as exc:
            if not self._unconfigured:  # GPU hosts without nova
                LOG.info('Spot task skipped: %s', exc)
                self._unconfigured = True
        except Exception as exc:  # the next run tries again
            LOG.warning('Spot task failed: %s: %s', type(exc).__name__, exc)
        return None

    def start(self):
        interval = CONF.spot.interval
        if not interval:
            return
        self._thread = threading.Thread(
            target=self._run, args=(interval,), name='reserve-spot',
            daemon=True)
        self._thread.start()

    def _run(self, interval):
        while not self._stopped.wait(interval):
            self.run_once()

    def stop(self, timeout=30):
        self._stopped.set()
        if self._thread is not None:
            self._thread.join(timeout)
