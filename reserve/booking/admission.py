"""Admission: bookings are checked and written atomically, per flavor.

Everything that changes a flavor's calendar (a new booking, a later end,
a maintenance window) runs in one writer transaction that first locks the
flavor's catalogue row (SELECT ... FOR UPDATE on MariaDB and PostgreSQL;
on SQLite a process lock plus the database's write lock), then reads the
calendar, runs the checks and writes. Two requests for the last slot
therefore run one after the other, and the second sees the first's row:
the calendar can never be overbooked.

The calendar maths (calendar.py) is shared with free-slots, so what it
answers and what admission decides agree. Availability asks the
database for the same sums over the whole catalogue at once
(desk.peak_loads); tests hold it to calendar.least_free.
"""
import contextlib
import datetime
import threading

from oslo_config import cfg
from oslo_log import log as logging

from reserve.booking import calendar
from reserve.booking import gauntlet
from reserve.booking import gpu_slots
from reserve.booking import quota
from reserve.common import exception
from reserve.common import states
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import desk

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

# SQLite has no row locks: within one process, calendar writers queue
# here; across processes, SQLite's own write lock serialises them.
_SQLITE_LOCK = threading.Lock()


def guard():
    return datetime.timedelta(seconds=CONF.booking.guard_seconds)


@contextlib.contextmanager
def calendar_transaction(context, flavor_ids=None):
    """A writer transaction in which the calendars of ``flavor_ids`` (of
    every flavor when None) cannot change under the caller. Yields the
    flavors, locked and freshly read; commits when the block ends."""
    sqlite = db_api.get_engine().dialect.name == 'sqlite'
    with _SQLITE_LOCK if sqlite else contextlib.nullcontext():
        with db_api.writer.using(context):
            yield desk.flavor_lock(context, flavor_ids)


# The calendar --------------------------------------------------------------

def _maintenance(context, flavor, start, end):
    """Maintenance windows of ``flavor`` in the way of a booking of
    [start, end), its guard included."""
    return [window for window, _ in desk.maintenance_in_window(
        context, [flavor.id], start, end + guard(), guard())]


def occupants(context, flavor, start, end, maintenance=(),
              exclude_booking=None):
    """What holds slots of ``flavor`` for a booking of [start, end): its
    live bookings, and ``maintenance`` windows taking every slot."""
    held = list(desk.bookings_in_window(
        context, [flavor], start, end + guard(), guard(),
        exclude_booking=exclude_booking)[flavor.id])
    held.extend((w.start_date, w.end_date, flavor.slots)
                for w in maintenance)
    return held


def _check_capacity(context, flavor, start, end, count, maintenance,
                    exclude_booking=None):
    held = occupants(context, flavor, start, end, maintenance,
                     exclude_booking)
    slots = gpu_slots.slots(context, flavor)
    if not calendar.fits(slots, held, start, end, count, guard()):
        raise exception.NoCapacity(
            count=count, name=flavor.name, id=flavor.id,
            start=timeutils.isoformat(start), end=timeutils.isoformat(end),
            slots=slots, guard=CONF.booking.guard_seconds,
            free=calendar.max_count(slots, held, start, end,
                                    guard()))


def bookable_window(flavor, start, end, now):
    """[start, end) narrowed to when the flavor can be booked: not before
    now, inside the flavor's own window. None when nothing is left."""
    if not flavor.active:
        return None
    start = max(start, now)
    if flavor.start_date:
        start = max(start, flavor.start_date)
    if flavor.end_date:
        end = min(end, flavor.end_date)
    return (start, end) if start < end else None


def free_slots(context, flavor, start, end, count, bypass_maintenance):
    """The gaps of [start, end) where a booking of ``count`` instances of
    ``flavor`` would be admitted for this caller."""
    window = bookable_window(flavor, start, end, timeutils.utcnow())
    if window is None:
        return []
    start, end = window
    with db_api.reader.using(context):
        maintenance = ([] if bypass_maintenance else
                       _maintenance(context, flavor, start, end))
        held = occupants(context, flavor, start, end, maintenance)
    return calendar.free_slots(gpu_slots.slots(context, flavor), held,
                               start, end, count, guard())


def availability(context, flavors, start=None, end=None, offered=None):
    """{flavor id: fewest instances free at any instant of [start, end)},
    or at this instant when no window is given. Maintenance counts.

    calendar.least_free's answer, without reading the bookings: over a
    long window the whole catalogue's bookings are in the way, so the
    database adds them up (desk.peak_loads) and returns one row per
    flavor. A maintenance window takes every slot of the flavors it
    closes, so meeting the window at any instant leaves none free at
    that instant, whatever the bookings: those flavors are 0.

    offered: the caller's gpu_slots.slots_of(flavors), if it has it.
    """
    if start is None:
        start = timeutils.utcnow()
        end = start + datetime.timedelta(seconds=1)
    slots = offered if offered is not None else gpu_slots.slots_of(
        context, flavors)
    if end <= start:
        return dict(slots)
    ids = [f.id for f in flavors]
    with db_api.reader.using(context):
        peaks = desk.peak_loads(context, flavors, start, end, guard())
        closed = desk.maintenance_in_window(context, ids, start, end,
                                            guard()) if ids else []
    shut = set()
    for _, flavor_ids in closed:
        shut.update(flavor_ids)
    return {f.id: 0 if f.id in shut else max(0, slots[f.id] - peaks[f.id])
            for f in flavors}


# Bookings --------------------------------------------------------------------

def _withdraw_if_over_quota(context, booking, project_id, deltas,
                            restore=None):
    """The quota recheck after commit: concurrent bookings of the same
    project on other flavors (other locks) may have gone over together.
    Then this one is undone and refused, as nova does."""
    try:
        quota.recheck(context, project_id,
                      [r for r, d in deltas.items() if d > 0])
    except exception.OverQuota as exc:
        LOG.info('Reservation %s withdrawn: %s', booking.id, exc)
        if restore is None:
            db_api.booking_destroy(context, booking.id)
        else:
            db_api.booking_update(context, booking.id, restore)
        raise exception.OverQuota(
            reason='%s, with reservations made at the same time; this one '
                   'was withdrawn' % exc.kwargs['reason'])


def book(context, flavor, start, end, count, bypass_maintenance=False):
    """Admit and write a booking of ``flavor`` for the caller's project.

    Runs the whole gauntlet (gauntlet.py) in order, then writes the row
    PENDING_CREATE; raises the error of the first rule that fails.
    """
    project_id = context.project_id
    deltas = quota.new_booking(count, start, end)
    with calendar_transaction(context, [flavor.id]) as locked:
        if not locked:
            raise exception.FlavorNotAvailable(ref=flavor.id,
                                               project=project_id)
        flavor = locked[0]
        gauntlet.check_active(flavor)
        gauntlet.check_granted(flavor, project_id)
        gauntlet.check_length(flavor, start, end)
        gauntlet.check_flavor_window(flavor, start, end)
        gauntlet.check_dates(start, end, timeutils.utcnow())
        maintenance = []
        if not bypass_maintenance:
            maintenance = _maintenance(context, flavor, start, end)
            gauntlet.check_maintenance(flavor, maintenance)
        quota.enforce(context, project_id, deltas)
        _check_capacity(context, flavor, start, end, count, maintenance)
        booking = db_api.booking_create(context, {
            'project_id': project_id,
            'user_id': context.user_id,
            'flavor_id': flavor.id,
            'instance_count': count,
            'start_date': start,
            'end_date': end,
            'status': states.Booking.PENDING_CREATE,
        })
    _withdraw_if_over_quota(context, booking, project_id, deltas)
    LOG.info('Reservation %s admitted: %d x %s from %s to %s for project '
             '%s', booking.id, count, flavor.name, start, end, project_id)
    return booking


def change_end(context, booking, end, bypass_maintenance=False):
    """Move a live booking's end; returns the updated booking.

    A later end is admitted like a booking of the added time only
    [old end, new end): the flavor must still be active and granted, the
    whole booking within the flavor's maximum length and the added time
    inside its window, clear of maintenance, within quota (only the added
    hours count) and within capacity. An earlier end needs no check and
    frees the calendar at once.
    """
    with calendar_transaction(context, [booking.flavor_id]) as locked:
        current = db_api.booking_get(context, booking.id)
        if current.status not in states.Booking.LIVE:
            raise exception.InvalidState(
                what='Reservation %s' % current.id, status=current.status,
                reason='only %s reservations can be changed' %
                ', '.join(states.Booking.LIVE))
        gauntlet.check_new_end(current.start_date, end, timeutils.utcnow())
        deltas = {}
        if end > current.end_date:
            flavor = locked[0]
            old_end = current.end_date
            gauntlet.check_active(flavor)
            gauntlet.check_granted(flavor, current.project_id)
            gauntlet.check_length(flavor, current.start_date, end)
            gauntlet.check_flavor_window(flavor, old_end, end)
            maintenance = []
            if not bypass_maintenance:
                maintenance = _maintenance(context, flavor, old_end, end)
                gauntlet.check_maintenance(flavor, maintenance)
            deltas = quota.new_end(current.instance_count,
                                   current.start_date, old_end, end)
            quota.enforce(context, current.project_id, deltas)
            _check_capacity(context, flavor, old_end, end,
                            current.instance_count, maintenance,
                            exclude_booking=current.id)
        updated = db_api.booking_update(context, current.id,
                                        {'end_date': end},
                                        expected_status=states.Booking.LIVE)
        if updated is None:
            # Finished meanwhile (its status moves without this lock).
            raise exception.InvalidState(
                what='Reservation %s' % current.id,
                status=db_api.booking_get(context, current.id).status,
                reason='it changed while being updated')
    _withdraw_if_over_quota(context, updated, current.project_id, deltas,
                            restore={'end_date': current.end_date})
    return updated
