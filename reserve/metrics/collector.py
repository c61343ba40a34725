"""The figures read from the database, gathered at each scrape.

Every family comes from one reader transaction of an administrator's
context, so they all describe the same moment; each is a query or two
grouped by the database (reserve.db.metrics, and the catalogue's through
reserve.booking.admission), whatever the number of flavors and bookings.
A database that does not answer does not fail the scrape: the counters
of the API process are still exported, with
``reserve_metrics_database_up 0``.
"""
import time

from oslo_log import log as logging
from prometheus_client import core

from reserve.common import context as reserve_context
from reserve.db import api as db_api
from reserve.metrics import catalogue
from reserve.metrics import events
from reserve.metrics import repairs
from reserve.metrics import states

LOG = logging.getLogger(__name__)


def database_families(context):
    """Every family read from the database, in one transaction."""
    with db_api.reader.using(context):
        found = list(catalogue.families(context))
        found += [states.bookings(context),
                  states.device_reservations(context),
                  states.devices(context),
                  events.lateness(context), events.due(context)]
        found += repairs.families(context)
    return found


class DatabaseCollector:
    """A prometheus_client collector reading the database when scraped."""

    def describe(self):
        # Nothing to describe ahead: registering must not read the
        # database.
        return []

    def collect(self):
        began = time.perf_counter()
        up = 1
        try:
            yield from database_families(
                reserve_context.get_admin_context())
        except Exception as exc:  # noqa: BLE001 - the scrape goes on
            db_api.log_failure(LOG, 'Metrics not read from the database',
                               exc)
            up = 0
        yield core.GaugeMetricFamily(
            'reserve_metrics_database_up',
            'Whether the database answered this scrape (0: the figures '
            'read from it are missing).', value=up)
        yield core.GaugeMetricFamily(
            'reserve_metrics_database_seconds',
            'Seconds this scrape took to read the database.',
            value=time.perf_counter() - began)
