"""The rules a booking must pass, one error per rule.

On POST /v1/reservations they run in this order (admission.py): the
flavor is active; it is not a spot flavor; a private flavor is granted
to the project; the length is within the flavor's maximum; the window
is inside the flavor's window; end after start and start not in the
past; no maintenance window of the flavor is in the way (unless the
caller may bypass them); then quota and capacity. Each check is a dry
run: it raises, or returns nothing.
"""
import datetime

from oslo_config import cfg

from reserve.common import exception
from reserve.common import timeutils

CONF = cfg.CONF


def _iso(value):
    return timeutils.isoformat(value)


def check_active(flavor):
    if not flavor.active:
        raise exception.FlavorInactive(name=flavor.name)


def check_not_spot(flavor):
    """A spot flavor is never booked: its nova flavor is booted instead,
    by the projects that opted in (and its calendar is none)."""
    if flavor.spot:
        raise exception.SpotFlavorNotBooked(
            name=flavor.name, nova_flavor=flavor.nova_flavor_id)


def check_granted(flavor, project_id):
    if not flavor.is_public and project_id not in flavor.project_ids:
        raise exception.FlavorNotGranted(name=flavor.name,
                                         project=project_id)


def check_length(flavor, start, end):
    if flavor.max_length_hours is None:
        return
    if end - start > datetime.timedelta(hours=flavor.max_length_hours):
        hours = (end - start).total_seconds() / 3600.0
        raise exception.BookingTooLong(hours='%g' % round(hours, 2),
                                       max=flavor.max_length_hours,
                                       name=flavor.name)


def flavor_window_text(flavor):
    if flavor.start and flavor.end:
        return 'from %s to %s' % (_iso(flavor.start),
                                  _iso(flavor.end))
    if flavor.start:
        return 'from %s on' % _iso(flavor.start)
    return 'until %s' % _iso(flavor.end)


def check_flavor_window(flavor, start, end):
    """[start, end) must lie inside the flavor's own window, if any."""
    if ((flavor.start and start < flavor.start) or
            (flavor.end and end > flavor.end)):
        raise exception.OutsideFlavorWindow(
            name=flavor.name, window=flavor_window_text(flavor),
            start=_iso(start), end=_iso(end))


def check_order(start, end):
    """A window ends after it starts (bookings, maintenance windows,
    flavors' own windows)."""
    if end <= start:
        raise exception.Invalid(reason='end %s must be after start %s' %
                                (_iso(end), _iso(start)))


def check_end_ahead(end, now):
    if end <= now:
        raise exception.Invalid(reason='end %s is in the past (now is %s)' %
                                (_iso(end), _iso(now)))


def check_dates(start, end, now):
    """end after start; start not in the past beyond [api]past_tolerance;
    end in the future."""
    check_order(start, end)
    tolerance = datetime.timedelta(seconds=CONF.api.past_tolerance)
    if start < now - tolerance:
        raise exception.Invalid(reason='start %s is in the past (now is %s)'
                                % (_iso(start), _iso(now)))
    check_end_ahead(end, now)


def check_new_end(start, end, now):
    """The end a reservation is moved to: after its start, in the future."""
    if end <= start:
        raise exception.Invalid(reason='end %s must be after the start %s' %
                                (_iso(end), _iso(start)))
    check_end_ahead(end, now)


def check_maintenance(flavor, windows):
    """``windows``: the maintenance windows of the flavor in the way."""
    if windows:
        raise exception.MaintenanceConflict(
            name=flavor.name,
            windows='; '.join(
                '%s from %s to %s%s' % (
                    w.id, _iso(w.start), _iso(w.end),
                    ' (%s)' % w.note if w.note else '')
                for w in windows))
