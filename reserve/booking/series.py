"""Recurring bookings: a series of occurrences, admitted together.

A series is one booking's window repeated by a rule (rrule.py). Its
occurrences are admitted in ONE capacity transaction
(admission.capacity_transaction), each by admission.admit, the gauntlet
of a booking: each sees the ones before it, and quota counts every one.
Under ``all_or_nothing`` (the default) one occurrence that does not fit
refuses the series and nothing is written; under ``as_many_as_fit`` the
ones that fit are booked and the others recorded on the series with the
error that refused them. Each occurrence admitted is a booking of its
own, whose lease the worker builds like any other's.

A series is cancelled from an occurrence on, or whole: each occurrence
still live is cancelled as a booking is (reserve.booking.cancel).
"""
import datetime

from oslo_config import cfg
from oslo_log import log as logging

from reserve.booking import admission
from reserve.booking import cancel
from reserve.booking import gauntlet
from reserve.booking import quota
from reserve.booking import rrule
from reserve.common import exception
from reserve.common import states
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import series as series_db

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

ALL_OR_NOTHING = 'all_or_nothing'
AS_MANY_AS_FIT = 'as_many_as_fit'
POLICIES = (ALL_OR_NOTHING, AS_MANY_AS_FIT)

# What refuses one occurrence and not the others: its own window.
OCCURRENCE_REFUSALS = (exception.NoCapacity, exception.MaintenanceConflict,
                       exception.OutsideFlavorWindow, exception.OverQuota)


def windows(recurrence, start, end, now=None):
    """The occurrences' windows [(start, end)] of a booking of
    [start, end) repeated by ``recurrence`` (RRULE text): Invalid when
    the rule is refused, gives more than [booking]series_max_occurrences,
    reaches past [booking]series_horizon_days from now, or repeats the
    window before it ends."""
    rule = rrule.parse(recurrence)
    gauntlet.check_order(start, end)
    starts = rrule.starts(rule, start, CONF.booking.series_max_occurrences)
    length = end - start
    gaps = [b - a for a, b in zip(starts, starts[1:])]
    if gaps and min(gaps) < length:
        raise exception.Invalid(
            reason='recurrence: occurrences %s long overlap: the rule '
                   'starts one every %s at the least' % (length, min(gaps)))
    horizon = (now or timeutils.utcnow()) + datetime.timedelta(
        days=CONF.booking.series_horizon_days)
    if starts[-1] > horizon:
        raise exception.Invalid(
            reason='recurrence: its last occurrence starts at %s, past %d '
                   'days from now (%s)' % (
                       timeutils.isoformat(starts[-1]),
                       CONF.booking.series_horizon_days,
                       timeutils.isoformat(horizon)))
    return [(when, when + length) for when in starts]


def _quota_of(count, occurrences):
    """What the whole series adds to its project's usage."""
    deltas = {quota.RESERVATIONS: 0, quota.INSTANCE_HOURS: 0}
    for start, end in occurrences:
        for resource, delta in quota.new_booking(count, start,
                                                 end).items():
            deltas[resource] += delta
    return deltas


def _refused_record(refused):
    return [{'start': timeutils.isoformat(start),
             'end': timeutils.isoformat(end),
             'status': error.code, 'error': type(error).__name__,
             'detail': error.message}
            for start, end, error in refused]


@db_api.retry_on_deadlock
def book(context, flavor, recurrence, occurrences, count,
         policy=ALL_OR_NOTHING, bypass_maintenance=False):
    """Admit a series of ``count`` instances of ``flavor`` over each
    window of ``occurrences`` (windows()'s answer for ``recurrence``).

    Returns (series, the bookings admitted, the occurrences refused as
    [(start, end, error)]). Raises SeriesDoesNotFit, having written
    nothing, when an occurrence does not fit under all_or_nothing, or
    none does; the error of the flavor (inactive, not granted, too long)
    or of the first window's dates as a booking would; OverQuota when
    all_or_nothing and the whole series goes over a limit.
    """
    project_id = context.project_id
    first_start, first_end = occurrences[0]
    with admission.capacity_transaction(context, [flavor.id]) as locked:
        flavor = admission.locked_flavor(context, locked, flavor)
        # What refuses every occurrence alike refuses the series.
        admission.check_bookable(flavor, project_id)
        gauntlet.check_length(flavor, first_start, first_end)
        gauntlet.check_dates(first_start, first_end, timeutils.utcnow())
        if policy == ALL_OR_NOTHING:
            quota.enforce(context, project_id,
                          _quota_of(count, occurrences))
        series = series_db.series_create(context, {
            'project_id': project_id, 'user_id': context.user_id,
            'flavor_id': flavor.id, 'instance_count': count,
            'start': first_start, 'end': first_end, 'rrule': recurrence,
            'policy': policy, 'refused': []})
        admitted, refused = [], []
        for start, end in occurrences:
            try:
                admitted.append(admission.admit(
                    context, locked, flavor, start, end, count,
                    bypass_maintenance, series_id=series.id))
            except OCCURRENCE_REFUSALS as error:
                refused.append((start, end, error))
        if refused and (policy == ALL_OR_NOTHING or not admitted):
            # Leaving the block by an error rolls every write back.
            raise exception.SeriesDoesNotFit(
                refused, len(occurrences),
                '' if policy == ALL_OR_NOTHING else
                'Not one occurrence fits.')
        if refused:
            series_db.series_set_refused(context, series.id,
                                         _refused_record(refused))
    _withdraw_if_over_quota(context, series, admitted)
    LOG.info('Series %s admitted under %s: %d of %d occurrence(s) of %d x '
             '%s for project %s', series.id, policy, len(admitted),
             len(occurrences), count, flavor.name, project_id)
    return series, admitted, refused


def _withdraw_if_over_quota(context, series, admitted):
    """The quota recheck after commit ([quota]recheck_quota), as a
    booking has it: a series that took the project over a limit, beside
    bookings made at the same time, is withdrawn whole."""
    deltas = _quota_of(admitted[0].instance_count,
                       [(b.start, b.end) for b in admitted])
    try:
        quota.recheck(context, series.project_id,
                      [r for r, d in deltas.items() if d > 0])
    except exception.OverQuota as exc:
        LOG.info('Series %s withdrawn: %s', series.id, exc)
        series_db.series_destroy(context, series.id)
        raise exception.OverQuota(
            reason='%s, with reservations made at the same time; this '
                   'series was withdrawn' % exc.kwargs['reason'])


def cancel_from(context, series, who, first=None):
    """Cancel the occurrences of ``series`` still live (the one running
    ends now, as a cancel has it), all or those starting at or after
    ``first`` (a booking of the series). Returns the bookings cancelled;
    one that ended meanwhile is left as it is."""
    since = first.start if first is not None else None
    cancelled = []
    for booking in series_db.occurrences(context, series.id):
        if booking.status not in states.Booking.LIVE:
            continue
        if since is not None and booking.start < since:
            continue
        try:
            cancelled.append(cancel.booking(context, booking.id, who))
        except exception.InvalidState:
            # It ended (or was cancelled) between the read and the close.
            LOG.info('Series %s: occurrence %s was no longer live',
                     series.id, booking.id)
    return cancelled
