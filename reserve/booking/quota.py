"""Quotas of the booking desk.

Two resources per project, counted over its live bookings (PENDING_CREATE,
ALLOCATED, ACTIVE; COMPLETE and ERROR rows use nothing):

* ``reservations``: how many;
* ``instance_hours``: instance_count x started hours of each one.

and two over its live device reservations (pending, active,
needs-review, until their devices are released):

* ``device_reservations``: how many;
* ``device_hours``: devices x started hours of each one; an open-ended one
  counts the whole hours it has run and ``[quota]open_ended_hours``
  more, so that what it has run keeps counting for as long as it runs.

/v1/limits shows all four.

Limits come from keystone unified limits through oslo.limit
(``[quota]driver = unified_limits``) or from ``[quota]`` itself (the
default, for clouds without them). A breach is an OverQuota (413).
"""
import contextlib
import datetime
import functools
import math

from keystoneauth1 import exceptions as ks_exceptions
from openstack import exceptions as sdk_exceptions
from oslo_config import cfg
from oslo_limit import exception as limit_exception
from oslo_limit import limit
from oslo_log import log as logging

from reserve.common import exception
from reserve.common import timeutils
from reserve.db import desk
from reserve.db import device_reservations as device_reservations_db
from reserve.devices import states as device_states

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

RESERVATIONS = 'reservations'
INSTANCE_HOURS = 'instance_hours'
# The quota resource's public name (GET /v1/limits, the [quota] option,
# a registered limit) stays until the API renames it.
DEVICE_RESERVATIONS = 'device_reservations'
DEVICE_HOURS = 'device_hours'
# The booking desk's resources, and the device reservations'.
RESOURCES = (RESERVATIONS, INSTANCE_HOURS)
DEVICE_RESOURCES = (DEVICE_RESERVATIONS, DEVICE_HOURS)
# What /v1/limits reports.
REPORTED = RESOURCES + DEVICE_RESOURCES


def instance_hours(count, start, end):
    """A booking's instance-hours: every started hour counts."""
    return count * int(math.ceil((end - start).total_seconds() / 3600.0))


def device_hours(devices, start, end, now=None):
    """A device reservation's device-hours; an open end (None or OPEN_END)
    counts the whole hours it has run by ``now`` and
    [quota]open_ended_hours more."""
    if end is None or device_states.is_open_end(end):
        run = max((now or timeutils.utcnow()) - start, datetime.timedelta())
        return devices * (int(run.total_seconds() // 3600) +
                          CONF.quota.open_ended_hours)
    return instance_hours(devices, start, end)


def new_device_reservation(devices, start, end):
    """What a new device reservation adds."""
    return {DEVICE_RESERVATIONS: 1,
            DEVICE_HOURS: device_hours(devices, start, end)}


def new_booking(count, start, end):
    """What a new booking adds."""
    return {RESERVATIONS: 1, INSTANCE_HOURS: instance_hours(count, start,
                                                            end)}


def new_end(count, start, old_end, end):
    """What moving a booking's end adds: only the added hours."""
    added = (instance_hours(count, start, end) -
             instance_hours(count, start, old_end))
    return {INSTANCE_HOURS: added} if added > 0 else {}


def usage(context, project_id, resources=RESOURCES):
    """{resource: in use} of a project, from its live bookings and device
    reservations."""
    counted = {}
    if set(resources) & {RESERVATIONS, INSTANCE_HOURS}:
        count, hours = desk.project_usage(context, project_id)
        counted.update({RESERVATIONS: count, INSTANCE_HOURS: hours})
    if set(resources) & set(DEVICE_RESOURCES):
        windows = device_reservations_db.project_device_windows(
            context, project_id, device_states.DeviceReservation.LIVE)
        now = timeutils.utcnow()
        counted[DEVICE_RESERVATIONS] = len(windows)
        counted[DEVICE_HOURS] = sum(device_hours(devices, start, end, now)
                                    for start, end, devices in windows)
    return {resource: counted[resource] for resource in resources}


def _over_quota(project_id, breaches):
    """breaches: (resource, limit, in use, asked) tuples."""
    return exception.OverQuota(reason='project %s would go over its limit '
                               'of %s' % (project_id, '; '.join(
                                   '%s (%d in use + %d asked > limit %d)' %
                                   (resource, used, asked, maximum)
                                   for resource, maximum, used, asked
                                   in breaches)))


class ConfigDriver:
    """The same limits for every project, from [quota]."""

    name = 'config'

    def limits(self, context, project_id, resources=RESOURCES):
        return {r: getattr(CONF.quota, r) for r in resources}

    def enforce(self, context, project_id, deltas):
        limits = self.limits(context, project_id, list(deltas))
        checked = sorted(r for r in deltas if limits[r] >= 0)
        if not checked:
            return
        used = usage(context, project_id, checked)
        breaches = [(r, limits[r], used[r], deltas[r]) for r in checked
                    if used[r] + deltas[r] > limits[r]]
        if breaches:
            raise _over_quota(project_id, breaches)

    def report(self, context, project_id):
        limits = self.limits(context, project_id, REPORTED)
        used = usage(context, project_id, REPORTED)
        return {r: {'limit': limits[r], 'in_use': used[r]}
                for r in REPORTED}


class UnifiedLimitsDriver:
    """Keystone unified limits, read with oslo.limit.

    Keystone holds registered limits ``reservations``,
    ``instance_hours``, ``device_reservations`` and ``device_hours`` for this
    service's endpoint ([oslo_limit]), and per-project limits overriding
    them. oslo.limit asks our usage callback for what a project uses. A
    resource with no registered limit counts as a limit of 0, as
    oslo.limit has it.
    """

    name = 'unified_limits'

    @staticmethod
    @contextlib.contextmanager
    def _keystone():
        """Keystone failures become a 503 naming the cause."""
        try:
            yield
        except (limit_exception.SessionInitError, ValueError,
                ks_exceptions.ClientException,
                sdk_exceptions.SDKException) as exc:
            LOG.error('Cannot read unified limits from keystone: %s', exc)
            raise exception.QuotaUnavailable(reason=str(exc))

    @staticmethod
    def _enforcer(context):
        # One per check, as nova does: the usage callback reads through
        # the caller's context, inside the caller's transaction.
        return limit.Enforcer(functools.partial(usage, context))

    def limits(self, context, project_id, resources=RESOURCES):
        with self._keystone():
            return dict(self._enforcer(context).get_project_limits(
                project_id, list(resources)))

    def enforce(self, context, project_id, deltas):
        with self._keystone():
            try:
                self._enforcer(context).enforce(project_id, dict(deltas))
            except limit_exception.ProjectOverLimit as exc:
                raise _over_quota(project_id, [
                    (info.resource_name, info.limit, info.current_usage,
                     info.delta) for info in exc.over_limit_info_list])

    def report(self, context, project_id):
        with self._keystone():
            found = self._enforcer(context).calculate_usage(
                project_id, list(REPORTED))
        return {r: {'limit': found[r].limit, 'in_use': found[r].usage}
                for r in REPORTED}


_DRIVERS = {driver.name: driver for driver in (ConfigDriver,
                                               UnifiedLimitsDriver)}


def driver():
    return _DRIVERS[CONF.quota.driver]()


def enforce(context, project_id, deltas):
    """Raise OverQuota when ``deltas`` would take the project over."""
    if deltas:
        driver().enforce(context, project_id, deltas)


def recheck(context, project_id, resources):
    """Raise OverQuota if the project is over a limit of ``resources`` now
    (after a write), when [quota]recheck_quota is on."""
    if CONF.quota.recheck_quota and resources:
        driver().enforce(context, project_id, {r: 0 for r in resources})


def report(context, project_id):
    """{resource: {limit, in_use}} of a project; a limit of -1 is none."""
    return driver().report(context, project_id)
