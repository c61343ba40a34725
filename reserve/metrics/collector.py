"""The figures read from the database: at the scrape, or after the
previous one (reserve.metrics.ahead).

Every family is read by an administrator's context, a
query or two grouped by the database (reserve.db.metrics, and the
catalogue's through reserve.booking.admission), whatever the number of
flavors and bookings; the catalogue's in the scrape's thread, the others
meanwhile in a few threads of their own.
A database that does not answer does not fail the scrape: the counters
of the API process are still exported, with
``reserve_metrics_database_up 0``.
"""
import threading
import time

import futurist
from oslo_log import log as logging
from prometheus_client import core

from reserve.common import context as reserve_context
from reserve.db import api as db_api
from reserve.metrics import catalogue
from reserve.metrics import events
from reserve.metrics import repairs
from reserve.metrics import states

LOG = logging.getLogger(__name__)


# The reads besides the catalogue's, in the order they are exported; each
# runs in a reader transaction of its own, in a thread of the pool while
# the catalogue's (most of it Python: the capacity model) runs in the
# scrape's: the database counts while Python works.
_READS = (
    lambda context: [states.bookings(context),
                     states.device_reservations(context)],
    lambda context: [states.devices(context), events.lateness(context),
                     events.due(context)],
    repairs.families,
)

_POOL_LOCK = threading.Lock()
_POOL = []


def _pool():
    """The threads of this process's scrapes, made at its first (after
    the WSGI server forked its workers)."""
    with _POOL_LOCK:
        if not _POOL:
            _POOL.append(futurist.ThreadPoolExecutor(
                max_workers=len(_READS)))
        return _POOL[0]


def _read(read):
    context = reserve_context.get_admin_context()
    with db_api.reader.using(context):
        return read(context)


def database_families(context):
    """Every family read from the database."""
    futures = [_pool().submit(_read, read) for read in _READS]
    with db_api.reader.using(context):
        found = list(catalogue.families(context))
    for future in futures:
        found += future.result()
    return found


def read_database():
    """Every family read from the database, then whether it answered and
    how long the reads took, as a list."""
    began = time.perf_counter()
    up = 1
    try:
        found = database_families(reserve_context.get_admin_context())
    except Exception as exc:  # noqa: BLE001 - the scrape goes on
        db_api.log_failure(LOG, 'Metrics not read from the database', exc)
        found, up = [], 0
    found.append(core.GaugeMetricFamily(
        'reserve_metrics_database_up',
        'Whether the database answered the read of these figures (0: '
        'the figures read from it are missing).', value=up))
    found.append(core.GaugeMetricFamily(
        'reserve_metrics_database_seconds',
        'Seconds the read of these figures took.',
        value=time.perf_counter() - began))
    return found


class DatabaseCollector:
    """A prometheus_client collector of the database's figures: read when
    scraped, or, given a reserve.metrics.ahead.ReadAhead, the ones it
    read after the previous scrape."""

    def __init__(self, ahead=None):
        self.ahead = ahead

    def describe(self):
        # Nothing to describe ahead: registering must not read the
        # database.
        return []

    def collect(self):
        if self.ahead is None:
            found, age = read_database(), 0.0
        else:
            found, age = self.ahead.current()
        yield from found
        yield core.GaugeMetricFamily(
            'reserve_metrics_database_age_seconds',
            'Seconds since the read of the database\'s figures of this '
            'scrape began: 0 when read at the scrape, the time since the '
            'previous scrape with [metrics] read_ahead.', value=age)
