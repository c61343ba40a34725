"""A daemon's heartbeat in the database, from a thread of its own.

Work a daemon takes in the database (a manager's events) names it by
[DEFAULT]host; once its heartbeat is older than
[DEFAULT]service_down_time, other daemons of its kind take that work
over. A clean stop removes the row after the daemon has handed its work
back, so nothing waits for the timeout then.
"""
import threading
import time

from oslo_config import cfg
from oslo_log import log as logging

from reserve.common import context as reserve_context
from reserve.common import timeutils
from reserve.db import services as services_db

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


class Heartbeat:
    def __init__(self, binary):
        self.binary = binary
        self._stop = threading.Event()
        self._thread = None
        self._failing = False
        self._written = None        # time.monotonic() of the last beat

    def fresh(self):
        """Whether other daemons see this one alive for a while yet: its
        last beat is younger than [DEFAULT]service_down_time less one
        interval. Work taken while it is not could be taken over at
        once."""
        if self._written is None:
            return False
        margin = CONF.service_down_time - CONF.heartbeat_interval
        return time.monotonic() - self._written < max(margin, 1)

    def beat(self):
        """One heartbeat; True when it was written."""
        try:
            services_db.beat(reserve_context.get_admin_context(),
                             self.binary, CONF.host, timeutils.utcnow())
        except Exception as exc:
            if not self._failing:
                LOG.warning('%s on %s: heartbeat not written (%s); other '
                            'daemons take its work over after %d s',
                            self.binary, CONF.host, exc,
                            CONF.service_down_time)
            self._failing = True
            return False
        self._written = time.monotonic()
        if self._failing:
            LOG.info('%s on %s: heartbeat written again', self.binary,
                     CONF.host)
        self._failing = False
        return True

    def start(self):
        """The first beat now, so work taken from here on is seen
        alive; then one every [DEFAULT]heartbeat_interval."""
        self.beat()
        self._thread = threading.Thread(target=self._loop,
                                        name='reserve-heartbeat',
                                        daemon=True)
        self._thread.start()

    def _loop(self):
        while not self._stop.wait(CONF.heartbeat_interval):
            self.beat()

    def stop(self, remove=True):
        """Stop beating; ``remove`` the row (the daemon handed its work
        back) so that nothing waits for it to be taken for dead."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(CONF.heartbeat_interval + 5)
        if remove:
            try:
                services_db.remove(reserve_context.get_admin_context(),
                                   self.binary, CONF.host)
            except Exception as exc:
                LOG.warning('%s on %s: heartbeat row not removed (%s)',
                            self.binary, CONF.host, exc)
