"""The standby list: bookings that wait for room, admitted when it frees.

A booking asked with ``standby`` (POST /v1/reservations, since 1.8) whose
window does not fit for capacity alone (admission's NoCapacity) is kept
as a STANDBY booking: it holds no slot, no host and no quota (it is not
in states.Booking.LIVE), but it passed every other rule of the gauntlet
at the request, quota included as it stood then. A request that could
never be admitted (more instances than the flavor offers when empty, or
any other rule) is refused at once.

Promotion (``promote``): the waiters are tried in the order they began
to wait, each by the normal admission (admission.check_and_place, in its
capacity transaction and lock), and each that fits is moved to
PENDING_CREATE with its allocations in that same transaction: first fit
in arrival order, so a younger waiter that fits where an older one does
not is admitted without waiting for it (backfill). A freed slot
therefore goes to one waiter only, however many passes run at once: they
take the capacity lock one after the other, and each sees what the one
before it wrote. A waiter that does not fit, or is over quota now,
simply waits on.

Lapse (``lapse``): a waiter never admitted is closed LAPSED at its start,
or at its deadline (``standby_until``) when earlier. Both moves are
notified (reserve.reservation.promoted / .lapsed), which mails the user.

The worker runs both every [booking] standby_interval seconds, and at
once when the API freed capacity (reserve.worker.standby_loop).
"""
import collections
import datetime

from oslo_config import cfg
from oslo_log import log as logging

from reserve.booking import admission
from reserve.booking import quota
from reserve.capacity import store
from reserve.common import exception
from reserve.common import states
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import bookings as bookings_db
from reserve.db import flavors as flavors_db
from reserve.db import sharing as sharing_db
from reserve.notification import sync

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

B = states.Booking

Pass = collections.namedtuple('Pass', 'promoted lapsed')


def check_deadline(start, until, now):
    """A deadline is in the future and not after the booking's start
    (a waiter lapses at its start anyway)."""
    if until <= now:
        raise exception.Invalid(
            reason='standby_until %s is in the past (now is %s)' % (
                timeutils.isoformat(until), timeutils.isoformat(now)))
    if until > start:
        raise exception.Invalid(
            reason='standby_until %s is after the start %s: a reservation '
                   'on standby lapses at its start' % (
                       timeutils.isoformat(until),
                       timeutils.isoformat(start)))


def _wait(context, refusal, flavor, start, end, count, until,
          shared_project_ids):
    """Write the STANDBY booking of a request refused for capacity (with
    its shares), or raise the refusal when it could never be admitted."""
    project_id = context.project_id
    if count > admission.offered(context, [flavor])[flavor.id]:
        # More than the flavor offers when nothing else holds it.
        raise refusal
    limit = CONF.booking.max_standby_per_project
    # Under the capacity lock: two requests at once count each other.
    with admission.capacity_transaction(context):
        if bookings_db.booking_count_waiting(context, project_id) >= limit:
            raise exception.OverQuota(
                reason='project %s has %d reservations on standby already, '
                       'the most it may have ([booking] '
                       'max_standby_per_project)' % (project_id, limit))
        # standby_since to the microsecond: the order of the waiters.
        since = datetime.datetime.now(datetime.timezone.utc)
        booking = bookings_db.booking_create(context, dict(
            project_id=project_id, user_id=context.user_id,
            flavor_id=flavor.id, instance_count=count, start=start, end=end,
            status=B.STANDBY, standby_since=since.replace(tzinfo=None),
            standby_until=until))
        sharing_db.shares_add(context, booking.id, shared_project_ids)
    LOG.info('Reservation %s on standby: %d x %s from %s to %s for project '
             '%s, until %s', booking.id, count, flavor.name, start, end,
             project_id, until or start)
    return booking


def book_or_wait(context, flavor, start, end, count, until=None,
                 bypass_maintenance=False, shared_project_ids=()):
    """Admit a booking as admission.book does, or, refused for capacity
    alone, keep it waiting: (booking, whether it waits)."""
    if until is not None:
        check_deadline(start, until, timeutils.utcnow())
    try:
        return admission.book(
            context, flavor, start, end, count,
            bypass_maintenance=bypass_maintenance,
            shared_project_ids=shared_project_ids), False
    except exception.NoCapacity as refusal:
        return _wait(context, refusal, flavor, start, end, count,
                     until, shared_project_ids), True


def cancel(context, booking_id, who):
    """Cancel a waiter: COMPLETE from now on (it held nothing). The
    booking, or None when it was not waiting any more (admitted or
    lapsed meanwhile)."""
    reason = 'Cancelled on standby by %s at %s' % (
        who, timeutils.isoformat(timeutils.utcnow()))
    closed = bookings_db.booking_close(context, booking_id, B.COMPLETE,
                                       reason, (B.STANDBY,))
    if closed is not None:
        LOG.info('Reservation %s cancelled on standby by %s', booking_id,
                 who)
    return closed


def _due(waiter):
    """When ``waiter`` lapses: its deadline, else its start."""
    return min(waiter.start, waiter.standby_until or waiter.start)


def _free(context, waiter):
    """The fewest instances of the waiter's flavor free at any instant of
    its window (admission.availability): at least its instance_count is
    needed by any placement. Read without the lock, so that a waiter that
    cannot fit does not take it."""
    try:
        flavor = flavors_db.flavor_get(context, waiter.flavor_id)
    except exception.FlavorNotFound:
        return 0
    return admission.availability(context, [flavor], waiter.start,
                                  waiter.end)[flavor.id]


@db_api.retry_on_deadlock
def _admit(context, waiter):
    """The normal admission of ``waiter``, in its capacity transaction:
    the promoted booking, or None when it was not waiting any more;
    raises the rule that refuses it (NoCapacity: still no room)."""
    with admission.capacity_transaction(context,
                                        [waiter.flavor_id]) as locked:
        current = bookings_db.booking_get(context, waiter.id)
        if current.status != B.STANDBY:
            return None  # another pass admitted it, or it was cancelled
        if not locked.flavors:
            raise exception.FlavorNotAvailable(ref=current.flavor_id,
                                               project=current.project_id)
        flavor = locked.flavors[0]
        placed = admission.check_and_place(
            context, locked, flavor, current.project_id, current.start,
            current.end, current.instance_count,
            quota.new_booking(current.instance_count, current.start,
                              current.end))
        # A compare-and-swap: a cancel (which does not take the lock)
        # that got there first wins, and nothing is written.
        promoted = bookings_db.booking_move(
            context, current.id, B.PENDING_CREATE, (B.STANDBY,),
            status_reason=None)
        if promoted is None:
            return None
        store.allocations_create(
            context, placed, current.start, current.end,
            admission.sizing(flavor)[0], booking_id=current.id,
            state=locked.state)
    return promoted


def promote(context, now=None):
    """Admit every waiter that fits now, oldest first: the promoted
    bookings (PENDING_CREATE, for the worker's create_lease)."""
    now = now or timeutils.utcnow()
    promoted = []
    # What is free in a window, read once per pass for the waiters of one
    # flavor and window, until one of that flavor is admitted.
    free = {}
    for waiter in bookings_db.booking_list_waiting(context):
        if _due(waiter) <= now:
            continue
        key = (waiter.flavor_id, waiter.start, waiter.end)
        if key not in free:
            free[key] = _free(context, waiter)
        if free[key] < waiter.instance_count:
            continue
        try:
            booking = _admit(context, waiter)
        except exception.ReserveException as exc:
            # No room yet, over quota now, the flavor closed or in
            # maintenance for now: it waits on, and lapses in time.
            LOG.debug('Reservation %s stays on standby: %s', waiter.id, exc)
            continue
        if booking is None:
            continue
        free = {k: v for k, v in free.items() if k[0] != booking.flavor_id}
        waited = now - waiter.standby_since
        LOG.info('Reservation %s admitted from standby after %s',
                 booking.id, waited)
        sync.emit(context, 'promoted', booking,
                  waited_seconds=round(waited.total_seconds(), 3))
        promoted.append(booking)
    return promoted


def lapse(context, now=None):
    """Close LAPSED every waiter whose start or deadline has come: the
    lapsed bookings."""
    now = now or timeutils.utcnow()
    lapsed = []
    for waiter in bookings_db.booking_list_waiting(context):
        due = _due(waiter)
        if due > now:
            continue
        reason = ('No room came before its %s (%s): it was never admitted'
                  % ('deadline' if due < waiter.start else 'start',
                     timeutils.isoformat(due)))
        closed = bookings_db.booking_close(context, waiter.id, B.LAPSED,
                                           reason, (B.STANDBY,))
        if closed is None:
            continue  # admitted or cancelled meanwhile
        LOG.info('Reservation %s lapsed on standby: %s', closed.id, reason)
        sync.emit(context, 'lapsed', closed)
        lapsed.append(closed)
    return lapsed


def run(context, now=None):
    """One pass: the lapses first (a waiter due is never admitted), then
    the promotions."""
    lapsed = lapse(context, now)
    return Pass(promote(context, now), lapsed)
