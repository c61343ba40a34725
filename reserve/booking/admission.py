"""Admission: bookings are checked, placed and written atomically.

Everything that changes what is promised (a new booking, a later end, a
maintenance window) runs in one writer transaction that first takes the
capacity lock (reserve.capacity.store.lock: SELECT ... FOR UPDATE of one
row on MariaDB and PostgreSQL; on SQLite a process lock plus the
database's write lock), then locks the flavors' catalogue rows, reads,
runs the checks and writes. Decisions therefore run one after the other,
and each sees the rows of the ones before it: nothing is overbooked.

A booking must fit twice: in its catalogue flavor's own slots (the
calendar, calendar.py) and on the enrolled hosts, counted by the one
capacity model (reserve.capacity) with every other booking and lease on
them. Admission chooses the hosts and writes them as the booking's
allocations in the same transaction: a 201 is a placement, and the manager
only builds it. Free-slots and availability ask the same two models, so
what they answer and what admission decides agree.
"""
import collections
import contextlib
import datetime
import json

from oslo_config import cfg
from oslo_log import log as logging

from reserve.booking import calendar
from reserve.booking import gauntlet
from reserve.booking import quota
from reserve.capacity import maths
from reserve.capacity import model
from reserve.capacity import store
from reserve.common import exception
from reserve.common import states
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import bookings as bookings_db
from reserve.db import desk
from reserve.db import flavors as flavors_db
from reserve.db import offers as offers_db
from reserve.db import sharing as sharing_db

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


Locked = collections.namedtuple('Locked', 'state flavors')


@contextlib.contextmanager
def capacity_transaction(context, flavor_ids=()):
    """A writer transaction holding the capacity lock, in which nothing
    promised can change under the caller. Yields Locked: the capacity
    State and the flavors ``flavor_ids`` (every flavor when None),
    locked and freshly read; commits when the block ends."""
    sqlite = db_api.get_engine().dialect.name == 'sqlite'
    with store.PROCESS_LOCK if sqlite else contextlib.nullcontext():
        with db_api.writer.using(context):
            state = store.lock(context)
            flavors = (flavors_db.flavor_lock(context, flavor_ids)
                       if flavor_ids != () else [])
            yield Locked(state, flavors)


# The calendar --------------------------------------------------------------

def _maintenance(context, flavor, start, end):
    """Maintenance windows of ``flavor`` in the way of a booking of
    [start, end), its guard included."""
    return [window for window, _ in desk.maintenance_in_window(
        context, [flavor.id], start, end + model.guard(), model.guard())]


def occupants(context, flavor, start, end, maintenance=(),
              exclude_booking=None):
    """What holds slots of ``flavor`` for a booking of [start, end): its
    live bookings, and ``maintenance`` windows taking every slot."""
    held = list(desk.bookings_in_window(
        context, [flavor], start, end + model.guard(), model.guard(),
        exclude_booking=exclude_booking)[flavor.id])
    held.extend((w.start, w.end, flavor.slots)
                for w in maintenance)
    return held


def sizing(flavor):
    """(size of one instance, host filter) of a catalogue flavor, from
    the nova flavor recorded when it was written."""
    if not flavor.nova_flavor:
        raise exception.FlavorNotSized(name=flavor.name,
                                       nova_flavor=flavor.nova_flavor_id)
    return (model.size_of(flavor.nova_flavor),
            model.host_filter_of(flavor.nova_flavor))


def _same_hosts_key(need, host_filter):
    """Flavors with the same size and host filter get the same answer
    from the hosts: computed once per request."""
    return repr(sorted(need.items())), repr(host_filter)


def slots_free(context, flavor, start, end, maintenance=(),
               exclude_booking=None):
    """occupants() and calendar.max_count, in whole seconds from
    ``start``: the most instances of ``flavor`` its slots hold over
    [start, end)."""
    held = desk.slot_holders(context, flavor, start, end + model.guard(),
                             model.guard(), exclude_booking=exclude_booking)
    held.extend((store.seconds(w.start, start),
                 store.seconds(w.end, start), flavor.slots)
                for w in maintenance)
    return calendar.max_count(flavor.slots, held, 0,
                              store.seconds(end, start),
                              CONF.booking.guard_seconds)


def _slots_hold(context, flavor, start, end, count, maintenance):
    """Whether ``flavor``'s slots hold ``count`` more over [start, end).
    At once when the most its bookings hold on a day of the window
    leaves room (reserve.db.slot_days, a row per day: a catalogue entry
    with more slots than its hosts hold); by the calendar otherwise."""
    if not maintenance and flavor.slots - desk.slots_held_at_most(
            context, flavor, start, end + model.guard()) >= count:
        return True
    return count <= slots_free(context, flavor, start, end, maintenance)


def _place(context, state, flavor, start, end, count, maintenance):
    """The hosts for ``count`` instances of ``flavor`` over [start, end):
    {host_id: count}, or NoCapacity naming what does fit."""
    need, host_filter = sizing(flavor)
    guard = model.guard()
    board = model.Board(context, state, start, end + guard, guard, lazy=True)
    offer = board.offer(need, host_filter)
    placed = None
    if _slots_hold(context, flavor, start, end, count, maintenance):
        placed = offer.place(count)
    if placed is None:
        free = slots_free(context, flavor, start, end, maintenance)
        hosts_hold = offer.total()
        raise exception.NoCapacity(
            count=count, name=flavor.name, id=flavor.id,
            start=timeutils.isoformat(start), end=timeutils.isoformat(end),
            slots=flavor.slots, guard=CONF.booking.guard_seconds,
            slots_free=free, hosts_hold=hosts_hold,
            free=min(free, hosts_hold))
    return placed


def bookable_window(flavor, start, end, now):
    """[start, end) narrowed to when the flavor can be booked: not before
    now, inside the flavor's own window. None when nothing is left."""
    if not flavor.active:
        return None
    start = max(start, now)
    if flavor.start:
        start = max(start, flavor.start)
    if flavor.end:
        end = min(end, flavor.end)
    return (start, end) if start < end else None


def _slot_steps(flavor, held, start, end):
    """The flavor's free slots over [start, end) as a step function."""
    return [(t, flavor.slots - load)
            for t, load in calendar.load_steps(held, model.guard(), start,
                                               end)]


def free_slots(context, flavor, start, end, count, bypass_maintenance):
    """The maximal windows of [start, end) in which a booking of
    ``count`` instances of ``flavor`` would be admitted for this caller:
    a booking fits exactly when it lies within one of them. Two windows
    may overlap (two hosts free one after the other hold a booking each,
    but not one spanning both)."""
    found = free_capacity(context, flavor, start, end, bypass_maintenance)
    if found is None:
        return []
    return maths.free_windows(found.offer.busy, found.offer.idle,
                              found.slot_steps, count, found.start,
                              found.end, model.guard())


FreeCapacity = collections.namedtuple('FreeCapacity',
                                      'start end offer slot_steps')


def free_capacity(context, flavor, start, end, bypass_maintenance,
                  lazy=False, count=None):
    """What free_slots reads for [start, end): a FreeCapacity of the
    window narrowed to when the flavor can be booked, its hosts' Offer
    over it (and the guard after) and its slots as a step function; None
    when nothing of it can be booked. lazy: the hosts' allocations are
    read when the Offer first asks for them (reserve.booking.offers).
    count: when the most its bookings hold on a day of the window leaves
    room for ``count`` (as _slots_hold), the slots are that one step,
    and the flavor's calendar is not read."""
    window = bookable_window(flavor, start, end, timeutils.utcnow())
    if window is None or not flavor.nova_flavor:
        return None
    start, end = window
    horizon = end + model.guard()
    need, host_filter = sizing(flavor)
    with db_api.reader.using(context):
        maintenance = ([] if bypass_maintenance else
                       _maintenance(context, flavor, start, end))
        slot_steps = None
        if count is not None and not maintenance:
            left = flavor.slots - desk.slots_held_at_most(
                context, flavor, start, horizon)
            slot_steps = [(start, left)] if left >= count else None
        if slot_steps is None:
            slot_steps = _slot_steps(
                flavor, occupants(context, flavor, start, end, maintenance),
                start, horizon)
        board = model.Board(context, store.read_state(context), start,
                            horizon, model.guard(), lazy=lazy)
        offer = board.offer(need, host_filter)
        if not lazy:
            # Read now, inside the reader (free_slots asks for them
            # twice).
            offer.busy_allocations()
    return FreeCapacity(start, end, offer, slot_steps)


def _sized(flavors):
    """{flavor id: (need, host filter, their key)} of the flavors that
    are booked (a nova flavor read, not a spot flavor), sized once."""
    found, by_record = {}, {}
    for flavor in flavors:
        if flavor.nova_flavor and not flavor.spot:
            # Entries of one nova flavor share its record: sized once.
            record = json.dumps(flavor.nova_flavor, sort_keys=True)
            if record not in by_record:
                need, host_filter = sizing(flavor)
                by_record[record] = (need, host_filter,
                                     _same_hosts_key(need, host_filter))
            found[flavor.id] = by_record[record]
    return found


def offered(context, flavors, sized=None, state=None):
    """{flavor id: the most instances it offers at once}: its slots,
    capped by what the reservable hosts hold of its nova flavor when
    empty (0 for an entry whose nova flavor was never read, and for a
    spot flavor, which is never booked). sized: _sized(flavors); state:
    store.read_state's, when already read."""
    sized = _sized(flavors) if sized is None else sized
    result, totals, hosts = {}, {}, None
    for flavor in flavors:
        if flavor.id not in sized:
            result[flavor.id] = 0
            continue
        need, host_filter, key = sized[flavor.id]
        if key not in totals:
            if hosts is None:
                # Read once for the lot, however many sizes they have.
                if state is None:
                    state = store.read_state(context)
                hosts = store.hosts(context, state)
            totals[key] = model.total(context, need, host_filter,
                                      hosts=hosts)
        result[flavor.id] = min(flavor.slots, totals[key])
    return result


def availability(context, flavors, start=None, end=None, offers=None):
    """{flavor id: fewest instances free at any instant of [start, end)},
    or at this instant when no window is given. Maintenance counts.

    The least of the flavor's free slots (calendar.least_free's answer,
    summed by the database: desk.peak_loads) and of what the hosts hold
    of its nova flavor over the window beside every allocation on them. A
    maintenance window of the flavor takes every slot: those flavors are
    0, and so are spot flavors (never booked).

    offers: the caller's offered(flavors), if it has it.
    """
    return _free_and_held(context, flavors, start, end, offers)[0]


def offered_and_available(context, flavors, start=None, end=None):
    """(offered(flavors), availability(flavors, start, end)), the hosts'
    state read once for both."""
    sized = _sized(flavors)
    state = store.read_state(context) if sized else None
    offers = offered(context, flavors, sized, state)
    return offers, _free_and_held(context, flavors, start, end, offers,
                                  sized, state)[0]


def occupancy_now(context, flavors):
    """(offered, available, held) of ``flavors`` at this instant, each
    {flavor id: instances}: what availability answers without a window
    (its total and available), and the most slots the live bookings of
    each hold now (a booking until its end plus the guard), read in the
    same pass (reserve.metrics)."""
    sized = _sized(flavors)
    state = store.read_state(context) if sized else None
    offers = offered(context, flavors, sized, state)
    free, held = _free_and_held(context, flavors, None, None, offers, sized,
                                state)
    return offers, free, held


def _free_and_held(context, flavors, start, end, offers, sized=None,
                   state=None):
    """availability's answer, and desk.peak_loads' over the window
    (state: store.read_state's, when already read)."""
    if start is None:
        start = timeutils.utcnow()
        end = start + datetime.timedelta(seconds=1)
    sized = _sized(flavors) if sized is None else sized
    slots = offers if offers is not None else offered(context, flavors,
                                                      sized)
    if end <= start:
        return dict(slots), {f.id: 0 for f in flavors}
    ids = [f.id for f in flavors]
    hosts_hold, by_key = {}, {}
    with db_api.reader.using(context):
        peaks = desk.peak_loads(context, flavors, start, end, model.guard())
        closed = desk.maintenance_in_window(context, ids, start, end,
                                            model.guard()) if ids else []
        board = None
        for flavor_id, (need, host_filter, key) in sized.items():
            if board is None:
                if state is None:
                    state = store.read_state(context)
                board = model.Board(context, state, start, end,
                                    model.guard())
            if key not in by_key:
                by_key[key] = board.offer(need, host_filter).total()
            hosts_hold[flavor_id] = by_key[key]
    shut = set()
    for _, flavor_ids in closed:
        shut.update(flavor_ids)
    return {f.id: 0 if f.id in shut else max(0, min(
        f.slots - peaks[f.id], hosts_hold.get(f.id, 0)))
        for f in flavors}, peaks


# Bookings --------------------------------------------------------------------

def _withdraw_if_over_quota(context, booking, project_id, deltas,
                            restore=None):
    """The quota recheck after commit, as nova has it ([quota]
    recheck_quota, off by default: admission counts the usage under the
    capacity lock, after every booking before it). When the project is
    over a limit then, this one is undone and refused."""
    try:
        quota.recheck(context, project_id,
                      [r for r, d in deltas.items() if d > 0])
    except exception.OverQuota as exc:
        LOG.info('Reservation %s withdrawn: %s', booking.id, exc)
        if restore is None:
            # Its allocations go too.
            bookings_db.booking_destroy(context, booking.id)
        else:
            bookings_db.booking_update(context, booking.id, restore)
            store.allocations_set_end(context, restore['end'],
                                      booking_id=booking.id)
        raise exception.OverQuota(
            reason='%s, with reservations made at the same time; this one '
                   'was withdrawn' % exc.kwargs['reason'])


def check_bookable(flavor, project_id):
    """The rules of the flavor itself, whatever the window: active, not a
    spot flavor, granted to the project."""
    gauntlet.check_active(flavor)
    gauntlet.check_not_spot(flavor)
    gauntlet.check_granted(flavor, project_id)


def check_and_place(context, locked, flavor, project_id, start, end, count,
                    deltas, bypass_maintenance=False):
    """The gauntlet (gauntlet.py, in order) and the placement of a booking
    of ``count`` instances of ``flavor`` (a row of ``locked.flavors``) for
    ``project_id`` over [start, end), inside the capacity transaction
    that yielded ``locked``: {host_id: count}, or the error of the first
    rule that fails. Writes nothing. deltas: its quota.new_booking."""
    check_bookable(flavor, project_id)
    gauntlet.check_length(flavor, start, end)
    gauntlet.check_flavor_window(flavor, start, end)
    gauntlet.check_dates(start, end, timeutils.utcnow())
    maintenance = []
    if not bypass_maintenance:
        maintenance = _maintenance(context, flavor, start, end)
        gauntlet.check_maintenance(flavor, maintenance)
    quota.enforce(context, project_id, deltas)
    return _place(context, locked.state, flavor, start, end, count,
                  maintenance)


def admit(context, locked, flavor, start, end, count,
          bypass_maintenance=False, **values):
    """Admit and write one booking of ``flavor`` (a row of
    ``locked.flavors``) over [start, end) for the caller's project,
    within the capacity_transaction that yielded ``locked``: the whole
    gauntlet in order (check_and_place), then the row PENDING_CREATE with
    its allocations (and ``values``, more of its columns). Raises the
    error of the first rule that fails, having written nothing; the
    caller's transaction may admit more windows after it."""
    project_id = context.project_id
    placed = check_and_place(context, locked, flavor, project_id, start,
                             end, count,
                             quota.new_booking(count, start, end),
                             bypass_maintenance)
    booking = bookings_db.booking_create(context, dict(
        values,
        project_id=project_id,
        user_id=context.user_id,
        flavor_id=flavor.id,
        instance_count=count,
        start=start,
        end=end,
        status=states.Booking.PENDING_CREATE,
    ))
    store.allocations_create(context, placed, start, end,
                             sizing(flavor)[0], booking_id=booking.id,
                             state=locked.state)
    return booking


def locked_flavor(context, locked, flavor):
    """The row of ``flavor`` that capacity_transaction locked; 400 when
    it went meanwhile."""
    if not locked.flavors:
        raise exception.FlavorNotAvailable(ref=flavor.id,
                                           project=context.project_id)
    return locked.flavors[0]


@db_api.retry_on_deadlock
def book(context, flavor, start, end, count, bypass_maintenance=False,
         shared_project_ids=(), offer_id=None):
    """Admit and write a booking of ``flavor`` for the caller's project
    (shared with ``shared_project_ids``, checked by reserve.booking.
    sharing).

    Runs the whole gauntlet (gauntlet.py) in order, then writes the row
    PENDING_CREATE; raises the error of the first rule that fails.
    offer_id: the offer (GET /v1/offers) it is booked from, marked used in
    the same transaction (once only, and not once lapsed).
    """
    project_id = context.project_id
    deltas = quota.new_booking(count, start, end)
    with capacity_transaction(context, [flavor.id]) as locked:
        flavor = locked_flavor(context, locked, flavor)
        booking = admit(context, locked, flavor, start, end, count,
                        bypass_maintenance)
        sharing_db.shares_add(context, booking.id, shared_project_ids)
        if offer_id is not None:
            offers_db.offer_use(context, offer_id, booking.id,
                                timeutils.utcnow(),
                                CONF.booking.offer_hold_seconds)
    _withdraw_if_over_quota(context, booking, project_id, deltas)
    LOG.info('Reservation %s admitted: %d x %s from %s to %s for project '
             '%s', booking.id, count, flavor.name, start, end, project_id)
    return booking


def _check_longer(context, state, flavor, booking, old_end, end,
                  maintenance):
    """The added time [old_end, end) of a booking: its flavor's slots
    must hold it, and so must each host it is on (its instances cannot
    move)."""
    free = slots_free(context, flavor, old_end, end, maintenance,
                      exclude_booking=booking.id)
    hosts_free = booking.instance_count - model.short_on_own_hosts(
        context, state, store.allocations_of_booking(context, booking.id),
        old_end, end, exclude_booking=booking.id)
    if booking.instance_count > min(free, hosts_free):
        raise exception.NoCapacity(
            count=booking.instance_count, name=flavor.name, id=flavor.id,
            start=timeutils.isoformat(old_end),
            end=timeutils.isoformat(end), slots=flavor.slots,
            guard=CONF.booking.guard_seconds, slots_free=free,
            hosts_hold=hosts_free, free=min(free, hosts_free))


def latest_end(context, booking, flavor, end, bypass_maintenance):
    """The latest end, to the minute, before ``end`` to which ``booking``
    could be moved now (its later end refused for capacity), or None when
    not a minute more fits. Read outside the capacity lock: what a
    refusal offers (reserve.booking.counter_offer)."""
    old_end = booking.end
    with db_api.reader.using(context):
        state = store.read_state(context)
        maintenance = ([] if bypass_maintenance else
                       _maintenance(context, flavor, old_end, end))

        def fits(minutes):
            try:
                _check_longer(context, state, flavor, booking, old_end,
                              old_end + datetime.timedelta(minutes=minutes),
                              maintenance)
            except exception.NoCapacity:
                return False
            return True
        # More time never fits where less does not: a binary search.
        low, high = 0, int((end - old_end).total_seconds() // 60)
        while low < high:
            middle = (low + high + 1) // 2
            if fits(middle):
                low = middle
            else:
                high = middle - 1
    return old_end + datetime.timedelta(minutes=low) if low else None


@db_api.retry_on_deadlock
def change_end(context, booking, end, bypass_maintenance=False):
    """Move a live booking's end; returns the updated booking.

    A later end is admitted like a booking of the added time only
    [old end, new end): the flavor must still be active and granted, the
    whole booking within the flavor's maximum length and the added time
    inside its window, clear of maintenance, within quota (only the added
    hours count) and within capacity. An earlier end needs no check and
    frees the calendar at once.
    """
    with capacity_transaction(context, [booking.flavor_id]) as locked:
        current = bookings_db.booking_get(context, booking.id)
        if current.status not in states.Booking.LIVE:
            raise exception.InvalidState(
                what='Reservation %s' % current.id, status=current.status,
                reason='only %s reservations can be changed' %
                ', '.join(states.Booking.LIVE))
        gauntlet.check_new_end(current.start, end, timeutils.utcnow())
        deltas = {}
        if end > current.end:
            flavor = locked.flavors[0]
            old_end = current.end
            gauntlet.check_active(flavor)
            gauntlet.check_not_spot(flavor)
            gauntlet.check_granted(flavor, current.project_id)
            gauntlet.check_length(flavor, current.start, end)
            gauntlet.check_flavor_window(flavor, old_end, end)
            maintenance = []
            if not bypass_maintenance:
                maintenance = _maintenance(context, flavor, old_end, end)
                gauntlet.check_maintenance(flavor, maintenance)
            deltas = quota.new_end(current.instance_count,
                                   current.start, old_end, end)
            quota.enforce(context, current.project_id, deltas)
            _check_longer(context, locked.state, flavor, current, old_end,
                          end, maintenance)
        store.allocations_set_end(context, end, booking_id=current.id)
        # A compare-and-swap on the status and the end read: a cancel
        # (which does not take this lock) that got there first wins.
        updated = bookings_db.booking_update(
            context, current.id, {'end': end},
            expected_status=states.Booking.LIVE,
            expected_end=current.end)
        if updated is None:
            # Finished or cancelled meanwhile (its status moves without
            # this lock).
            raise exception.InvalidState(
                what='Reservation %s' % current.id,
                status=bookings_db.booking_get(context, current.id).status,
                reason='it changed while being updated')
    _withdraw_if_over_quota(context, updated, current.project_id, deltas,
                            restore={'end': current.end})
    return updated
