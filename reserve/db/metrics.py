"""The counts /metrics reads (reserve.metrics), each one query whatever
the size of the tables: grouped by the database, never a query per row
or per flavor.

Same conventions as reserve.db.api, whose transaction context this
module uses: every function takes a RequestContext first and joins the
transaction the caller may have open on it.
"""
import sqlalchemy as sa

from reserve.common import states
from reserve.db import api as db_api
from reserve.db import functions
from reserve.db import models

E = models.Event
D = models.Delivery


def status_counts(context, model):
    """{status: rows} of ``model`` (a table with a status column: the
    bookings, the device reservations), through its index on status."""
    query = sa.select(model.status, sa.func.count()).group_by(model.status)
    with db_api.reader.using(context) as session:
        return {status: int(count) for status, count in
                session.execute(query)}


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
             .where(E.status != states.Event.DONE)
             .where(E.time <= now)
             .group_by(E.event_type, E.status))
    with db_api.reader.using(context) as session:
        return {(event_type, status): int(count)
                for event_type, status, count in session.execute(query)}


def delivery_totals(context):
    """{owner_type: (repairs, hosts replaced, owners with servers nova
    has not deleted yet)} over every delivery row (kept after their
    leases, so the first two only grow)."""
    query = (sa.select(D.owner_type, sa.func.sum(D.repairs),
                       sa.func.sum(D.hosts_replaced),
                       sa.func.count(D.stuck_servers))
             .group_by(D.owner_type))
    with db_api.reader.using(context) as session:
        return {owner_type: (int(repairs or 0), int(replaced or 0),
                             int(stuck or 0))
                for owner_type, repairs, replaced, stuck in
                session.execute(query)}
