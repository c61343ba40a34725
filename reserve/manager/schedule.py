"""A lease's three events: when each is due, written with the lease, and
moved with its end."""
import datetime

from oslo_config import cfg
from oslo_log import log as logging

from reserve.common import states
from reserve.common import timeutils
from reserve.db import events as events_db

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


def lease_events(start, end):
    """The three events of a lease over [start, end), as lease_create
    takes them: the users' warning is due
    [manager]minutes_before_end_lease before the end, never before the
    start."""
    before = max(start, end - datetime.timedelta(
        minutes=CONF.manager.minutes_before_end_lease))
    return [
        {'event_type': states.Event.START, 'time': start,
         'status': states.Event.UNDONE},
        {'event_type': states.Event.BEFORE_END, 'time': before,
         'status': states.Event.UNDONE},
        {'event_type': states.Event.END, 'time': end,
         'status': states.Event.UNDONE},
    ]


def move_end_events(context, lease, end):
    """Give a lease's end events its new ``end``.

    Those still to come move. A users' warning (before_end) that went
    out already, or is going out, or failed, told them of the old end
    or of none: a new one is armed for the new end, later or earlier,
    so that they are warned again before it (at once if that time has
    passed). The old one stays, the record of what was sent.
    """
    new_times = {e['event_type']: e['time']
                 for e in lease_events(lease.start, end)}
    warning_to_come = False
    for event in lease.events:
        if (event.event_type == states.Event.START or
                event.status != states.Event.UNDONE):
            continue
        events_db.event_update(context, event.id,
                               {'time': new_times[event.event_type]})
        warning_to_come |= event.event_type == states.Event.BEFORE_END
    if not warning_to_come:
        events_db.event_create(context, lease.id, {
            'event_type': states.Event.BEFORE_END,
            'time': new_times[states.Event.BEFORE_END],
            'status': states.Event.UNDONE})
        LOG.info('Lease %s: its end moved to %s after the users were '
                 'warned; they will be warned again', lease.id,
                 timeutils.isoformat(end))
