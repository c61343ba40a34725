"""The booking desk's side of device reservations
(/v1/device-reservations), in the API process, as admission.py is for
bookings: a 201 is a hold, and the worker then has the manager build
its lease (reserve.worker.worker.BookingWorker.create_device_lease).

* ``reserve``: the dates (check_window: not in the past, and
  check_length: [devices]min_duration_seconds and
  [booking]max_query_days), the domains named
  (read from the manager before any lock: ``read_domains``, and the
  host that has them chosen), then in one writer transaction under the
  capacity lock (which serialises every hold) the choice of the
  devices, the quota (device_reservations and device_hours, quota.py)
  and the hold (reserve.devices.runs.hold). The reservation is
  ``PENDING`` with no lease.

Its cancel is the desk's other cancel (cancel.py).

Attaching, detaching and everything else that touches libvirt stays the
manager's.
"""
import datetime

from oslo_config import cfg
from oslo_log import log as logging

from reserve.booking import admission
from reserve.booking import quota
from reserve.common import exception
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import hosts as hosts_db
from reserve.devices import holds
from reserve.devices import runs
from reserve.devices import states

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

Status = states.DeviceReservation


def _devices_asked(request):
    return len(request.device_ids) or request.device_count


@db_api.retry_on_deadlock
def reserve(context, values, start, end, read_domains):
    """Check, count and hold a device reservation; returns its id.

    values: the API's request (id, project_id, user_id, viewer, the
    request: device_ids or device_count/model/host_id/numa_local, mdev_type,
    allowed_projects, managing_projects, domains, contract_ref, reason);
    [start, end): its window, end None when
    open-ended. read_domains(host): {name: owner} of the host's domains
    the reservation's devices may go into (another project's are not).
    """
    check_window(start, end, timeutils.utcnow())
    end = end or states.OPEN_END
    request = runs.request_of(values)
    domains = values.get('domains') or []
    if domains:
        # The host is chosen, and its domains read, before any lock: a
        # libvirt call must not run under one. Without domains the hold
        # chooses under the capacity lock, and a dry run first would
        # only select the same devices twice.
        request, _ = holds.choose(context, request, start, end, domains,
                                  read_domains, viewer=values.get('viewer'))
        found = read_domains(hosts_db.host_get(context, request.host_id))
        # Each attachment remembers its domain's owner
        # (reserve.devices.owners).
        values = dict(values, host_id=request.host_id,
                      domain_owners={d: found[d] for d in domains})
    deltas = quota.new_device_reservation(_devices_asked(request), start, end)
    with admission.capacity_transaction(context):
        runs.hold(context, values, start, end, admit=lambda: quota.enforce(
            context, values['project_id'], deltas))
    LOG.info('Device reservation %s held on host %s for project %s',
             values['id'], request.host_id, values['project_id'])
    return values['id']


def check_window(start, end, now):
    """A device reservation's window (end None: open-ended) starts at most
    [api]past_tolerance ago, ends after its start and in the future, and
    keeps to check_length."""
    if (now - start).total_seconds() > CONF.api.past_tolerance:
        raise exception.Invalid(
            reason='start %s is in the past' % timeutils.isoformat(start))
    if end is not None and end <= max(start, now):
        raise exception.Invalid(
            reason='end %s must be after the start and in the future' %
            timeutils.isoformat(end))
    check_length(start, end, now)


def check_length(start, end, now):
    """A device reservation's window (end None: open-ended) lasts at least
    [devices]min_duration_seconds from its start (from now, once it has
    started), and ends (starts, when open-ended) at most
    [booking]max_query_days from now: nothing is reserved further ahead
    than the catalogue answers for."""
    latest = now + datetime.timedelta(days=CONF.booking.max_query_days)
    last = end if end is not None else start
    if last > latest:
        raise exception.Invalid(
            reason='%s %s is more than %d days from now ([booking] '
                   'max_query_days)' % ('end' if end is not None else
                                        'start', timeutils.isoformat(last),
                                        CONF.booking.max_query_days))
    shortest = CONF.devices.min_duration_seconds
    if end is not None and end > max(start, now) and (
            end - max(start, now)).total_seconds() < shortest:
        raise exception.Invalid(
            reason='end %s is less than %d seconds after the start (or '
                   'now): a device reservation lasts at least %d seconds '
                   '([devices] min_duration_seconds)' % (
                       timeutils.isoformat(end), shortest, shortest))
