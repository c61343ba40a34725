"""The worker's pass of the standby list (reserve.booking.standby).

Every [booking] standby_interval seconds, and at once when woken (the
worker's promote_standby: the API freed capacity), the waiters whose
start or deadline has come lapse and those that fit are admitted; each
admitted one is cast to create_lease like any new booking. Several
workers may run their passes at the same instant: admission's capacity
lock gives each freed slot to one waiter only. A lost cast is the
reconciler's (a PENDING_CREATE booking with no lease is cast again).
"""
import threading

from oslo_config import cfg
from oslo_log import log as logging

from reserve.booking import standby
from reserve.common import context as reserve_context
from reserve.db import api as db_api

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


class StandbyLoop:
    def __init__(self, worker_api):
        self._worker_api = worker_api
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = None

    def start(self):
        self._thread = threading.Thread(target=self._loop,
                                        name='reserve-standby', daemon=True)
        self._thread.start()

    def wake(self):
        """Run a pass now (requests coming together make one pass)."""
        self._wake.set()

    def stop(self):
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(10)

    def _loop(self):
        while not self._stop.is_set():
            self._wake.wait(CONF.booking.standby_interval)
            self._wake.clear()
            if not self._stop.is_set():
                self.run_once(reserve_context.get_admin_context())

    def run_once(self, context):
        """One pass; its standby.Pass, or None when it failed (logged:
        the next one tries again)."""
        try:
            done = standby.run(context)
        except Exception as exc:
            db_api.log_failure(LOG, 'Standby pass failed', exc)
            return None
        for booking in done.promoted:
            try:
                self._worker_api.create_lease(context, booking.id)
            except Exception:  # noqa: BLE001 - the reconciler recasts
                LOG.exception('Could not cast create_lease for reservation '
                              '%s admitted from standby', booking.id)
        return done
