"""How late the manager runs the lease events, read from the events
table.

Each event records its time and when a manager took it (taken_at, the
take that ran it): its lateness is the difference, so it needs nothing
from the manager's process, which runs elsewhere. The figure is a gauge
histogram of a sliding window (the events due in the last
[metrics] event_window seconds that have run), not a counter: leases
are deleted with their events, so no total over the table could only
grow. Its buckets are read as they are, with no rate(): the 99th
percentile of the window is ``histogram_quantile(0.99, max by (le)
(reserve_event_lateness_seconds_bucket))``.

An event not run yet has no lateness: ``reserve_events_due`` counts the
events whose time has come and that are not done, by type and status,
the first thing to watch when no manager runs them.
"""
import datetime

from oslo_config import cfg
from prometheus_client import core

from reserve.common import states
from reserve.common import timeutils
from reserve.db import metrics as metrics_db

CONF = cfg.CONF

# Seconds late; the database keeps dates to the second, and the event
# loop polls every [manager]event_interval seconds.
BOUNDS = (1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200)
EVENT_TYPES = (states.Event.START, states.Event.BEFORE_END, states.Event.END)
NOT_DONE = (states.Event.UNDONE, states.Event.IN_PROGRESS,
            states.Event.ERROR)


def lateness(context, now=None):
    now = now or timeutils.utcnow()
    since = now - datetime.timedelta(seconds=CONF.metrics.event_window)
    found = metrics_db.event_lateness(context, since, now, BOUNDS)
    family = core.GaugeHistogramMetricFamily(
        'reserve_event_lateness_seconds',
        'Seconds between the time of each lease event due in the last '
        '[metrics] event_window seconds and when the manager took it to '
        'run (a gauge histogram of that window), by event type.',
        labels=['event_type'])
    for event_type in EVENT_TYPES:
        count, seconds, within = found.get(event_type,
                                           (0, 0, [0] * len(BOUNDS)))
        buckets = [(str(float(bound)), n) for bound, n in
                   zip(BOUNDS, within)] + [('+Inf', count)]
        family.add_metric([event_type], buckets, seconds)
    return family


def due(context, now=None):
    found = metrics_db.events_due(context, now or timeutils.utcnow())
    family = core.GaugeMetricFamily(
        'reserve_events_due',
        'Lease events whose time has come and that are not done, by event '
        'type and status (UNDONE: no manager took it yet; IN_PROGRESS; '
        'ERROR: failed, retried every [manager] event_retry_interval).',
        labels=['event_type', 'status'])
    for event_type in EVENT_TYPES:
        for status in NOT_DONE:
            family.add_metric([event_type, status],
                              found.get((event_type, status), 0))
    return family
