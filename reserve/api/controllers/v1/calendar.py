"""/v1/calendar (from microversion 1.5): what the calendar page and the
terminal timeline draw.

``GET /v1/calendar?flavor_id=<id or name>[&start&end]``: a catalogue
flavor's slots as rows, its bookings laid on them (reserve.booking.gantt),
its maintenance windows across every row, and the slots free over time,
which the calendar the admission asks computes (reserve.booking.calendar).

``GET /v1/calendar?host_id=<id or name>[&start&end]``: an enrolled host's
GPUs as rows, what holds them over time: the allocations of bookings and
leases on a nova host, the device reservations of each GPU device on a
libvirt host; the host's maintenance windows across every row.

The range is [start, end): now and a week by default, at most MAX_DAYS.
Another project's bookings show as busy (reserve.api.views.calendar).
"""
import datetime

import pecan
from pecan import rest

from reserve.api.controllers.v1 import method
from reserve.api.controllers.v1 import utils
from reserve.api import microversion
from reserve.api.views import calendar as views
from reserve.booking import calendar
from reserve.booking import catalogue
from reserve.booking import gantt
from reserve.capacity import model
from reserve.common import exception
from reserve.common.policies import calendar as policies
from reserve.common.policies import flavors as flavor_policies
from reserve.common import states
from reserve.common import timeutils
from reserve.db import calendar as calendar_db
from reserve.db import desk
from reserve.db import hosts as hosts_db
from reserve.devices import states as device_states

PATH = '/v1/calendar'
PARAMS = ('flavor_id', 'host_id', 'start', 'end')
DEFAULT_DAYS = 7
# A quarter: the longest range a chart shows day by day.
MAX_DAYS = 93


def _range(params, now):
    start = (utils.parse_date(params['start'], 'start')
             if 'start' in params else now)
    end = (utils.parse_date(params['end'], 'end') if 'end' in params
           else start + datetime.timedelta(days=DEFAULT_DAYS))
    utils.check_query_order(start, end)
    if end - start > datetime.timedelta(days=MAX_DAYS):
        raise exception.Invalid(
            reason='the calendar shows at most %d days; %s to %s is '
                   'longer' % (MAX_DAYS, timeutils.isoformat(start),
                               timeutils.isoformat(end)))
    return start, end


def _subject(params):
    given = [k for k in ('flavor_id', 'host_id') if params.get(k)]
    if len(given) != 1:
        raise exception.Invalid(
            reason="give one of the query parameters 'flavor_id' (a "
                   "catalogue flavor's calendar) and 'host_id' (a host's)")
    return given[0], params[given[0]]


def _rows(label, items, lanes, guard, bar_of, maintenance_bars):
    """[(label, bars)]: lanes of ``items`` laid out, every row with the
    maintenance bars, rows past ``lanes`` labelled as over."""
    rows = []
    for n, lane in enumerate(gantt.lay_out(items, lanes, guard), 1):
        name = label % n if n <= lanes else 'over %d' % (n - lanes)
        rows.append((name, [bar_of(i) for i in lane] + maintenance_bars))
    return rows


def flavor_calendar(ctx, ref, start, end, now):
    flavor = catalogue.visible(
        ctx, ref, utils.can(ctx, flavor_policies.LIST_HIDDEN))
    sees_all = utils.can(ctx, policies.ALL_PROJECTS)
    guard = model.guard()
    bookings = calendar_db.flavor_bookings(ctx, flavor, start, end, guard)
    windows = [w for w, _ in desk.maintenance_in_window(
        ctx, [flavor.id], start, end, guard)]
    maintenance = [views.maintenance_bar(w.start, w.end, w.note)
                   for w in windows]
    rows = _rows('slot %d', bookings, flavor.slots, guard,
                 lambda b: views.held_bar(
                     b, b.project_id == ctx.project_id, sees_all),
                 maintenance)
    occupants = [(b.start, b.end, b.count) for b in bookings
                 if b.status in states.Booking.LIVE or b.end <= now]
    occupants += [(w.start, w.end, flavor.slots) for w in windows]
    free = gantt.free_steps(flavor.slots, occupants, guard, start, end)
    subject = {'id': flavor.id, 'name': flavor.name, 'slots': flavor.slots}
    return views.calendar_view('flavor', subject, start, end, now, rows,
                               free)


def _gpu_lanes(gpus):
    return sum((gpus or {}).values())


def _peak(items, guard, start, end):
    occupants = [(i.start, i.end, i.count) for i in items]
    return max(load for _, load in calendar.load_steps(
        occupants, guard, start, end))


def _nova_host_rows(ctx, host, start, end, guard, sees_all, maintenance):
    held = calendar_db.host_allocations(ctx, host.id, start, end, guard)
    # An allocation holds its instances' GPUs (its instances when they
    # have none).
    items = [h._replace(count=h.count * (_gpu_lanes(gpus) or 1))
             for h, gpus in held]
    lanes, label = _gpu_lanes(host.gpus), 'GPU %d'
    if not lanes:
        # A host of no GPUs: its instances, as many rows as are held at
        # once.
        lanes, label = _peak(items, guard, start, end), 'instance %d'
    rows = _rows(label, items, lanes, guard,
                 lambda h: views.held_bar(
                     h, h.project_id == ctx.project_id, sees_all),
                 maintenance)
    return rows, lanes, [(h.start, h.end, h.count) for h in items]


def _libvirt_host_rows(ctx, host, start, end, sees_all, maintenance):
    by_device, projects = calendar_db.host_device_reservations(
        ctx, host.id, start, end, device_states.DeviceReservation.LIVE,
        (device_states.DeviceReservation.EXPIRED,))
    rows, occupants = [], []
    for device in calendar_db.host_devices(ctx, host.id):
        held = by_device.get(device.id, [])
        if device.physical_function and not held:
            # A virtual function nobody reserved: /v1/devices leaves
            # them out too unless asked.
            continue
        label = device.pci_address
        if device.product_name:
            label += ' ' + device.product_name
        rows.append((label, [
            views.held_bar(h, ctx.project_id in projects[h.id], sees_all)
            for h in held] + maintenance))
        occupants += [(h.start, h.end, 1) for h in held]
    return rows, len(rows), occupants


def host_calendar(ctx, ref, start, end, now):
    host = hosts_db.host_get(ctx, ref)
    sees_all = utils.can(ctx, policies.ALL_PROJECTS)
    windows = [w for w in hosts_db.host_windows(ctx, host.id)
               if w.end > start and w.start < end]
    maintenance = [views.maintenance_bar(w.start, w.end, w.note)
                   for w in windows]
    if host.kind == states.LIBVIRT:
        guard = datetime.timedelta(0)
        rows, lanes, occupants = _libvirt_host_rows(
            ctx, host, start, end, sees_all, maintenance)
    else:
        guard = model.guard()
        rows, lanes, occupants = _nova_host_rows(
            ctx, host, start, end, guard, sees_all, maintenance)
    occupants += [(w.start, w.end, lanes) for w in windows]
    free = gantt.free_steps(lanes, occupants, guard, start, end)
    subject = {'id': host.id, 'name': host.name, 'kind': host.kind}
    return views.calendar_view('host', subject, start, end, now, rows, free)


@method.handler(params=PARAMS)
def _calendar(*, ctx, params):
    kind, ref = _subject(params)
    utils.authorize(ctx, policies.FLAVOR if kind == 'flavor_id'
                    else policies.HOST)
    now = timeutils.utcnow()
    start, end = _range(params, now)
    if kind == 'flavor_id':
        return flavor_calendar(ctx, ref, start, end, now)
    return host_calendar(ctx, ref, start, end, now)


class CalendarController(rest.RestController):

    @pecan.expose('json')
    def get_all(self):
        if not microversion.serves(microversion.CALENDAR):
            pecan.abort(404)
        return _calendar()

    @pecan.expose('json')
    def _lookup(self, *remainder):
        if not microversion.serves(microversion.CALENDAR):
            pecan.abort(404)
        pecan.abort(404)
