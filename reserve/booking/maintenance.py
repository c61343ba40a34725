"""Maintenance windows: times when flavors (or all of them) are closed.

A window takes every slot of its flavors in the calendar, guard included,
so no booking can overlap it (unless its maker may bypass maintenance). A
window that would overlap live reservations is refused with their list,
unless forced; the check and the write hold the flavors' calendar locks,
so a booking admitted meanwhile cannot slip through.
"""
from oslo_log import log as logging

from reserve.booking import admission
from reserve.capacity import model
from reserve.common import exception
from reserve.common import timeutils
from reserve.db import desk
from reserve.db import maintenance as maintenance_db

LOG = logging.getLogger(__name__)

# Conflicting reservations named in the 409; the count says how many more.
LISTED_CONFLICTS = 20


def _conflicts_text(bookings):
    shown = ['%s (project %s, %s to %s, %d instance(s))' % (
        b.id, b.project_id, timeutils.isoformat(b.start),
        timeutils.isoformat(b.end), b.instance_count)
        for b in bookings[:LISTED_CONFLICTS]]
    if len(bookings) > LISTED_CONFLICTS:
        shown.append('and %d more' % (len(bookings) - LISTED_CONFLICTS))
    return ', '.join(shown)


def _check_no_conflict(context, flavor_ids, start, end, force, window_id):
    conflicts = desk.live_bookings_in_window(
        context, flavor_ids, start, end + model.guard(),
        model.guard())
    if not conflicts:
        return
    if not force:
        raise exception.MaintenanceOverlapsReservations(
            count=len(conflicts), reservations=_conflicts_text(conflicts))
    LOG.warning('Maintenance window %s forced over %d live reservations: '
                '%s', window_id or '(new)', len(conflicts),
                ', '.join(b.id for b in conflicts))


def create(context, start, end, note, flavor_ids, all_flavors, force):
    """flavor_ids: catalogue ids (ignored with all_flavors)."""
    locked = None if all_flavors else flavor_ids
    with admission.capacity_transaction(context, locked):
        _check_no_conflict(context, locked, start, end, force, None)
        window = maintenance_db.window_create(
            context, {'start': start, 'end': end, 'note': note,
                      'all_flavors': all_flavors},
            [] if all_flavors else flavor_ids)
    LOG.info('Maintenance window %s from %s to %s closes %s', window.id,
             start, end, 'every flavor' if all_flavors else
             ', '.join(sorted(flavor_ids)))
    return window


def update(context, window, values, flavor_ids, force):
    """values: start, end, note, all_flavors (any of them);
    flavor_ids: the new list, or None to keep it."""
    start = values.get('start', window.start)
    end = values.get('end', window.end)
    all_flavors = values.get('all_flavors', window.all_flavors)
    new_ids = window.flavor_ids if flavor_ids is None else flavor_ids
    locked = None if all_flavors else sorted(set(new_ids))
    moved = (start, end, all_flavors, sorted(set(new_ids))) != (
        window.start, window.end, window.all_flavors,
        sorted(window.flavor_ids))
    with admission.capacity_transaction(context, locked):
        if moved:
            # The whole new extent is checked: reservations overlapping
            # the old one exist only if it was forced, and then they
            # must be forced again.
            _check_no_conflict(context, locked, start, end, force,
                               window.id)
        return maintenance_db.window_update(
            context, window.id, values,
            [] if all_flavors else new_ids)
