"""The database's figures read one scrape ahead (``[metrics] read_ahead``).

On a large site the database's figures take longer to gather than a
scrape should (tests/benchmarks/bench_metrics.py: 1,000 flavors and
100,000 bookings, most of it the capacity model in Python). Read ahead,
a scrape answers with the figures that the read started after the
previous scrape gathered, then starts the next read in a thread of its
own once its answer is rendered:

* the figures are one scrape old, never more: a scrape whose read is
  still under way waits for it;
* a scrape reads at once when it holds nothing to answer with (the
  first one of the process) or only figures read more than ``[metrics]
  max_age`` seconds ago (under gunicorn each worker holds its own, and
  a worker the scrapes have not reached for a while holds old ones);
* ``reserve_metrics_database_age_seconds`` says how old they are.

One ReadAhead per API application (reserve.api.metrics), its thread made
at the first scrape, after the WSGI server forked its workers.
"""
import threading
import time

import futurist
from oslo_log import log as logging

LOG = logging.getLogger(__name__)


class ReadAhead:
    """Figures of ``read()`` (a list of metric families), one scrape
    ahead."""

    def __init__(self, read, max_age, clock=time.monotonic):
        self._read = read
        self.max_age = max_age
        self._clock = clock
        self._lock = threading.Lock()
        self._held = None  # (families, when their read began)
        self._next = None  # the read under way: a future of the same
        self._executor = None

    def _timed_read(self):
        began = self._clock()
        return self._read(), began

    def current(self):
        """(families, their age in seconds) for this scrape."""
        with self._lock:
            if self._next is not None:
                try:
                    self._held = self._next.result()
                except Exception as exc:  # noqa: BLE001 - read it again
                    LOG.warning('The metrics read ahead failed (%s); '
                                'reading them now', exc)
                    self._held = None
                self._next = None
            if self._held is None or \
                    self._clock() - self._held[1] > self.max_age:
                self._held = self._timed_read()
            families, began = self._held
            return families, max(0.0, self._clock() - began)

    def start_next(self):
        """The read the next scrape answers with, under way (unless one
        is already)."""
        with self._lock:
            if self._next is not None:
                return
            if self._executor is None:
                self._executor = futurist.ThreadPoolExecutor(max_workers=1)
            self._next = self._executor.submit(self._timed_read)
