"""Database access of the booking desk: the reads of the calendar and of
the quotas. The catalogue and its grants are in reserve.db.flavors, the
maintenance windows in reserve.db.maintenance.

Same conventions as reserve.db.api, whose transaction context this module
uses: every function takes a RequestContext first and joins the
transaction the caller may have open on it.
"""
import collections
import datetime

import sqlalchemy as sa

from reserve.common import states
from reserve.db import api as db_api
from reserve.db import functions
from reserve.db import models
from reserve.db import slot_days

B = models.Booking
M = models.MaintenanceWindow
MF = models.MaintenanceWindowFlavor


def _reader(context):
    # Looked up at each call: a switch of database (the tests') replaces
    # the context manager.
    return db_api.reader.using(context)


# The calendar's reads -------------------------------------------------------
#
# An occupant (booking or maintenance) holding [a, b) keeps its slots until
# b + guard. It matters to the window [start, end) when a < end and
# b + guard > start. Bookings are found through the index (flavor_id,
# end, start): since no booking of a flavor lasts longer than
# its longest_booking L, an occupant of the window ends before end + L, so
# the scan is bounded on both sides and reads only the bookings around the
# window, however many the flavor has.

def _seconds(value):
    return datetime.timedelta(seconds=value)


def bookings_in_window(context, flavors, start, end, guard,
                       exclude_booking=None):
    """Live bookings of ``flavors`` that hold slots in [start, end).

    guard: a timedelta. Returns {flavor_id: [(start, end, count)]} with an
    entry for every flavor.
    """
    found = {f.id: [] for f in flavors}
    if not found:
        return found
    query = _holding(sa.select(B.flavor_id, B.start, B.end,
                               B.instance_count),
                     flavors, start, end, guard, exclude_booking)
    with _reader(context) as session:
        for flavor_id, b_start, b_end, count in session.execute(query):
            found[flavor_id].append((b_start, b_end, count))
    return found


def _holding(query, flavors, start, end, guard, exclude_booking):
    """``query`` narrowed to the live bookings of ``flavors`` that hold
    slots in [start, end), found through the index on the window (a
    booking meeting it ends before ``end`` plus the longest one)."""
    longest = _seconds(max(f.longest_booking or 0 for f in flavors))
    query = (query.where(B.flavor_id.in_(sorted(f.id for f in flavors)))
             .where(B.end > start - guard)
             .where(B.end <= end + longest)
             .where(B.start < end)
             .where(B.status.in_(states.Booking.LIVE)))
    if exclude_booking is not None:
        query = query.where(B.id != exclude_booking)
    return query


def slot_holders(context, flavor, start, end, guard, exclude_booking=None):
    """bookings_in_window's answer for one flavor, in whole seconds from
    ``start``: what an admission reads, hundreds of rows, with no date
    to parse (the index on the window holds every column read)."""
    origin = sa.literal(start, sa.DateTime)
    query = _holding(sa.select(functions.SecondsSince(B.start, origin),
                               functions.SecondsSince(B.end, origin),
                               B.instance_count),
                     [flavor], start, end, guard, exclude_booking)
    with _reader(context) as session:
        return [tuple(row) for row in session.execute(query)]


def slots_held_at_most(context, flavor, start, end):
    """At least the instances ``flavor``'s live bookings hold at any one
    instant of [start, end) (their guard included): the flavor's slots
    held by day (reserve.db.slot_days), a row per day of the window
    whatever the bookings around it."""
    return slot_days.held_at_most(context, flavor.id, start, end)


# peak_loads' statement, by (dialect, IN lists): building it and working
# out its cache key cost more than running it on a small catalogue.
_PEAK_LOADS = {}


def _peak_loads_statement(dialect, in_lists):
    statement = _PEAK_LOADS.get((dialect, in_lists))
    if statement is not None:
        return statement
    origin = sa.bindparam('origin', type_=sa.DateTime)
    starts = sa.case((B.start > origin,
                      functions.SecondsSince(B.start, origin)), else_=0)
    stops = (functions.SecondsSince(B.end, origin) +
             sa.bindparam('guard', type_=sa.Integer))
    # Every booking twice over: side 1 where it starts holding, side -1
    # where it stops.
    sides = sa.union_all(sa.select(sa.literal(1, sa.Integer).label('side')),
                         sa.select(sa.literal(-1, sa.Integer).label('side'))
                         ).subquery('sides')
    flavor_id = functions.Narrow(B.flavor_id)
    load = sa.func.sum(sides.c.side * B.instance_count).over(
        partition_by=flavor_id,
        order_by=sa.case((sides.c.side == 1, starts), else_=stops),
        range_=(None, 0))
    # An outer join, though both sides of every booking match: it keeps
    # the bookings the outer loop, read once and in the index's flavor
    # order (SQLite would read them once per side, and sort them all
    # over again).
    loads = (sa.select(flavor_id.label('flavor_id'),
                       load.label('load'), sides.c.side)
             .outerjoin(sides, sa.true())
             .where(sa.or_(*(B.flavor_id.in_(sa.bindparam(
                 'flavors_%d' % i, expanding=True))
                 for i in range(in_lists))))
             .where(B.end > sa.bindparam('after', type_=sa.DateTime))
             .where(B.end <= sa.bindparam('before', type_=sa.DateTime))
             .where(B.start < sa.bindparam('window_end', type_=sa.DateTime))
             .where(B.status.in_(states.Booking.LIVE))
             .subquery('loads'))
    statement = _PEAK_LOADS[dialect, in_lists] = (
        sa.select(loads.c.flavor_id, sa.func.max(loads.c.load))
        .where(loads.c.side == 1)
        .group_by(loads.c.flavor_id))
    return statement


def peak_loads(context, flavors, start, end, guard):
    """The most slots the live bookings of each of ``flavors`` hold at
    one instant of [start, end), each booking until its end + ``guard``
    (a timedelta), as {flavor_id: peak}, 0 for a flavor with none.

    calendar.least_free's sweep, run by the database so that a window
    meeting every booking of the catalogue still returns one row per
    flavor instead of all the bookings. Each booking is a change of
    +count where it starts holding (the window's start at the earliest)
    and of -count where it stops, at whole seconds from the window's
    start. A running sum over a flavor's changes in time order is its
    load; the frame is a RANGE one, so the changes of one instant are
    all summed before the load is compared. The load only rises where a
    booking starts holding, so the peak is the highest load at those
    instants; changes at or past the window's end are all -count (every
    booking of the window starts before its end) and never reach it.
    Bookings are found as in bookings_in_window, through the index.
    """
    peaks = {f.id: 0 for f in flavors}
    if not peaks or end <= start:
        return peaks
    longest = _seconds(max(f.longest_booking or 0 for f in flavors))
    ids = sorted(peaks)
    with _reader(context) as session:
        dialect = session.bind.dialect.name
        chunks = functions.in_list_chunks(ids, dialect)
        values = {'origin': start, 'guard': int(guard.total_seconds()),
                  'after': start - guard, 'before': end + longest,
                  'window_end': end}
        values.update(('flavors_%d' % i, chunk)
                      for i, chunk in enumerate(chunks))
        for found, peak in session.execute(
                _peak_loads_statement(dialect, len(chunks)), values):
            peaks[found] = max(0, int(peak or 0))
    return peaks


Window = collections.namedtuple('Window',
                                'id start end note all_flavors')


def maintenance_in_window(context, flavor_ids, start, end, guard):
    """Maintenance windows closing any of ``flavor_ids`` that hold slots
    in [start, end), as (Window, the flavor ids it closes among them), by
    start."""
    wanted = set(flavor_ids)
    query = (sa.select(M.id, M.start, M.end, M.note,
                       M.all_flavors)
             .where(M.end > start - guard)
             .where(M.start < end)
             .order_by(M.start, M.id))
    with _reader(context) as session:
        windows = [Window(*row) for row in session.execute(query)]
        listed = [w.id for w in windows if not w.all_flavors]
        closes = collections.defaultdict(set)
        if listed:
            for window_id, flavor_id in session.execute(
                    sa.select(MF.window_id, MF.flavor_id)
                    .where(MF.window_id.in_(listed))
                    .where(MF.flavor_id.in_(sorted(wanted)))):
                closes[window_id].add(flavor_id)
    return [(w, wanted if w.all_flavors else closes[w.id])
            for w in windows if w.all_flavors or closes[w.id]]


def live_bookings_in_window(context, flavor_ids, start, end, guard):
    """Live bookings of ``flavor_ids`` (of every flavor when None) that
    hold slots in [start, end), as rows, by start."""
    with _reader(context) as session:
        query = (session.query(B)
                 .filter(B.end > start - guard)
                 .filter(B.start < end)
                 .filter(B.status.in_(states.Booking.LIVE)))
        if flavor_ids is not None:
            query = query.filter(B.flavor_id.in_(sorted(set(flavor_ids))))
        return query.order_by(B.start, B.id).all()


def project_usage(context, project_id):
    """(live bookings, their instance-hours) of a project, summed by the
    database: instance_count x the started hours of each."""
    query = (sa.select(sa.func.count(), sa.func.sum(
                 B.instance_count *
                 functions.HoursStarted(B.end, B.start)))
             .where(B.project_id == project_id)
             .where(B.status.in_(states.Booking.LIVE)))
    with _reader(context) as session:
        count, hours = session.execute(query).one()
    return int(count or 0), int(hours or 0)
