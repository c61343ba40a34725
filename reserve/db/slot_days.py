"""The slots a catalogue flavor's live bookings hold, day by day: an upper
bound of what they hold at any instant of a window, read in a row per
day instead of summing every booking around the window (on a busy
cloud, tens of thousands of rows a decision).

A live booking of [start, end) counts its instances on every day from
its start's to the day after its end's. It holds its slots until its end
plus [booking] guard_seconds, which is at most a day, so every instant at
which it holds a slot falls on a day that counts it: the instances held
at an instant are at most its day's count, and those held over a window
at most the largest count of the days it meets (held_at_most).

Kept exact by every write of a booking (reserve.db.bookings and
reserve.db.series call count() in their writer's transaction): what the
row counted before the write is taken off, what it counts after is
added. rebuild() works it out again from the bookings.

Same conventions as reserve.db.api: functions take the caller's session,
or a RequestContext and join its transaction.
"""
import collections
import datetime

import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects import sqlite

from reserve.common import states
from reserve.db import api as db_api
from reserve.db import models

B = models.Booking
T = models.flavor_slot_days
ONE_DAY = datetime.timedelta(days=1)

Counted = collections.namedtuple('Counted', 'flavor_id start end instances')

# The columns a booking's count depends on.
COUNTED_COLUMNS = frozenset(('flavor_id', 'start', 'end', 'instance_count',
                             'recorded_status', 'status', 'closed_as'))


def counted(booking):
    """What ``booking`` (a Booking, a row of read()'s columns, or None)
    counts: a Counted, or None when it is not live."""
    if booking is None or booking.status not in states.Booking.LIVE:
        return None
    return Counted(booking.flavor_id, booking.start, booking.end,
                   booking.instance_count)


def _span(start, end):
    """The first and the last day a live booking of [start, end) counts
    on: its start's, and the day after its end's."""
    return start.date(), end.date() + ONE_DAY


def _days(start, end):
    """The days a live booking of [start, end) counts on."""
    day, last = _span(start, end)
    while day <= last:
        yield day
        day += ONE_DAY


def read(session, where, lock=False):
    """[Counted] of the live bookings ``where`` selects (those not live
    left out); ``lock``: FOR UPDATE, for a write to follow."""
    # The shown status: the desk's close, else the recorded one.
    query = sa.select(B.flavor_id, B.start, B.end, B.instance_count,
                      sa.func.coalesce(B.closed_as, B.recorded_status)
                      .label('status')).where(where)
    if lock:
        query = query.with_for_update()
    return [c for c in map(counted, session.execute(query))
            if c is not None]


def count(session, before=(), after=()):
    """Count a write of bookings: ``before``, what the rows counted
    before it (Counted, or None); ``after``, what they count now."""
    deltas = collections.Counter()
    for found, sign in ((before, -1), (after, 1)):
        for c in found:
            if c is not None:
                for day in _days(c.start, c.end):
                    deltas[c.flavor_id, day] += sign * c.instances
    rows = [{'flavor_id': flavor_id, 'day': day, 'instances': n}
            for (flavor_id, day), n in sorted(deltas.items()) if n]
    if rows:
        session.execute(_upsert(session.get_bind().dialect.name, rows))


def _upsert(dialect, rows):
    """The statement adding each row's instances to its day's (the day
    made when missing)."""
    if dialect == 'mysql':
        statement = mysql.insert(T).values(rows)
        return statement.on_duplicate_key_update(
            instances=T.c.instances + statement.inserted.instances)
    statement = (postgresql if dialect == 'postgresql' else
                 sqlite).insert(T).values(rows)
    return statement.on_conflict_do_update(
        index_elements=[T.c.flavor_id, T.c.day],
        set_={'instances': T.c.instances + statement.excluded.instances})


def held_at_most(context, flavor_id, start, end):
    """At least the instances of ``flavor_id``'s live bookings held at
    any one instant of [start, end): the largest count of its days."""
    last = (end - datetime.timedelta(microseconds=1)).date()
    query = (sa.select(sa.func.max(T.c.instances))
             .where(T.c.flavor_id == flavor_id)
             .where(T.c.day >= start.date())
             .where(T.c.day <= last))
    with db_api.reader.using(context) as session:
        return int(session.execute(query).scalar() or 0)


def rebuild(connection, batch=50000):
    """Work the table out again from the bookings (``connection``: a
    SQLAlchemy connection in a transaction): the rows of every flavor's
    days, from a sum of what starts and stops counting each day."""
    changes = collections.defaultdict(collections.Counter)
    query = (sa.select(B.flavor_id, B.start, B.end, B.instance_count)
             .where(B.status.in_(states.Booking.LIVE)))
    for rows in connection.execute(
            query.execution_options(yield_per=batch)).partitions():
        for flavor_id, start, end, instances in rows:
            first, last = _span(start, end)
            changes[flavor_id][first] += instances
            changes[flavor_id][last + ONE_DAY] -= instances
    connection.execute(T.delete())
    for flavor_id, steps in changes.items():
        rows = list(_rows(flavor_id, steps))
        if rows:
            connection.execute(T.insert(), rows)


def _rows(flavor_id, steps):
    """The rows of a flavor's days from ``steps`` ({day: change of its
    count}; the count is 0 after the last)."""
    held, days = 0, sorted(steps)
    for day, next_day in zip(days, days[1:]):
        held += steps[day]
        while held and day < next_day:
            yield {'flavor_id': flavor_id, 'day': day, 'instances': held}
            day += ONE_DAY
