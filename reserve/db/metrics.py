"""The counts /metrics reads (reserve.metrics), each one query whatever
the size of the tables: grouped by the database, never a query per row
or per flavor.

Same conventions as reserve.db.api, whose transaction context this
module uses: every function takes a RequestContext first and joins the
transaction the caller may have open on it.
"""
import collections

import sqlalchemy as sa

from reserve.common import states
from reserve.db import api as db_api
from reserve.db import functions
from reserve.db import models

E = models.Event
D = models.Delivery
NOT_DONE = (states.Event.UNDONE, states.Event.IN_PROGRESS,
            states.Event.ERROR)


def status_counts(context, model, live):
    """{status shown: rows} of ``model`` (a closing.Closable table: the
    bookings, the device reservations, whose live statuses are
    ``live``): the close of a closed row, else its recorded status
    (reserve.db.models.closing).

    Two reads that never visit the whole table: the recorded statuses
    counted in the index on status alone, and the closed rows among the
    live ones (only a live row is ever closed, and a closed row never
    moves again, so its recorded status stays a live one), found through
    the same index, which moves them from their recorded status to their
    close."""
    found = collections.Counter()
    live = sorted(live)
    with db_api.reader.using(context) as session:
        for status, count in session.execute(
                sa.select(model.recorded_status, sa.func.count())
                .group_by(model.recorded_status)):
            found[status] += int(count)
        for status, closed_as, count in session.execute(
                sa.select(model.recorded_status, model.closed_as,
                          sa.func.count())
                .where(model.recorded_status.in_(live))
                .where(model.closed_as.isnot(None))
                .group_by(model.recorded_status, model.closed_as)):
            found[status] -= int(count)
            found[closed_as] += int(count)
    return found


def event_lateness(context, since, until, bounds):
    """How late the events due in [since, until) that have run were
    taken, against their time, per event type: {event_type: (events,
    seconds late in all, [events at most each of ``bounds`` seconds
    late])}. An event's lateness is its taken_at (its last take, the one
    that ran it to DONE) less its time; one done without being taken
    (skipped when its lease was deleted) ran nowhere and is left out.
    Found through the index on (status, time)."""
    late = functions.SecondsSince(E.taken_at, E.time)
    columns = [E.event_type, sa.func.count(), sa.func.sum(late)]
    columns += [sa.func.sum(sa.case((late <= bound, 1), else_=0))
                for bound in bounds]
    query = (sa.select(*columns)
             .where(E.status == states.Event.DONE)
             .where(E.time >= since).where(E.time < until)
             .where(E.taken_at.isnot(None))
             .group_by(E.event_type))
    with db_api.reader.using(context) as session:
        return {row[0]: (int(row[1]), int(row[2] or 0),
                         [int(n or 0) for n in row[3:]])
                for row in session.execute(query)}


def events_due(context, now):
    """{(event_type, status): events} of the events not done whose time
    has come (UNDONE: waiting for a manager; IN_PROGRESS; ERROR: to be
    retried or given up), through the index on (status, time)."""
    query = (sa.select(E.event_type, E.status, sa.func.count())
             .where(E.status.in_(NOT_DONE))
             .where(E.time <= now)
             .group_by(E.event_type, E.status))
    with db_api.reader.using(context) as session:
        return {(event_type, status): int(count)
                for event_type, status, count in session.execute(query)}


def delivery_totals(context):
    """{owner_type: (repairs, hosts replaced)} over every delivery row
    (kept after their leases, so both only grow), summed in the index
    that holds the three columns (ix_deliveries_totals), not the
    table."""
    query = (sa.select(D.owner_type, sa.func.sum(D.repairs),
                       sa.func.sum(D.hosts_replaced))
             .group_by(D.owner_type))
    with db_api.reader.using(context) as session:
        return {owner_type: (int(repairs or 0), int(replaced or 0))
                for owner_type, repairs, replaced in session.execute(query)}
