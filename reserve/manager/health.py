"""The health check of the enrolled hosts: a step of the manager's
periodic capacity task (reserve.manager.periodic), every
[manager]health_check_interval seconds.

Each host the operator left reservable, and each failed one, is checked
(reserve.diagnosis.host_checks); those a reservation starts on within
[manager]prestart_check_minutes, and the failed ones, more closely, so
that a booking whose host would not serve it moves before it starts and
a host comes back only when it passes the whole check.

A failure is acted on when two checks in a row see it (a service that
flaps moves nothing; the first sighting is logged); then the host fails
(reserve.manager.healing). A failed host that passes a check comes
back. Silence is not failure: when nova or placement does not answer,
no host is judged by it; once nova has not answered, the other nova
hosts wait for the next check.
"""
import datetime
import time

from oslo_config import cfg
from oslo_log import log as logging

from reserve.common import timeutils
from reserve.db import device_reservations as device_reservations_db
from reserve.db import hosts as hosts_db
from reserve.devices import states as device_states
from reserve.diagnosis import host_checks
from reserve.manager import healing

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

# A loop of the same period may come round a little early.
_SLACK = 0.9


class HealthCheck:
    def __init__(self, lease_manager):
        self._manager = lease_manager
        # host id: the failure one check saw, waiting for the next one
        self._sightings = {}
        self._last_run = None

    def run_if_due(self, context):
        interval = CONF.manager.health_check_interval
        if not interval:
            return
        now = time.monotonic()
        if self._last_run is not None and \
                now - self._last_run < interval * _SLACK:
            return
        self._last_run = now
        self.run(context)

    def run(self, context):
        """Check every host once; acts on what two checks saw."""
        now = timeutils.utcnow()
        soon = now + datetime.timedelta(
            minutes=CONF.manager.prestart_check_minutes)
        starting = hosts_db.hosts_starting_between(context, now, soon)
        nova_answers = True
        for host in hosts_db.host_list(context):
            if not (host.reservable or host.failure):
                continue
            if host.kind == 'nova' and not nova_answers:
                continue
            try:
                failure = self._check(context, host, now, soon,
                                      host.id in starting or
                                      bool(host.failure))
            except host_checks.NoAnswer as exc:
                LOG.warning('Health of host %s unknown, nothing concluded:'
                            ' %s', host.name, exc)
                nova_answers = nova_answers and host.kind != 'nova'
                continue
            self._judge(context, host, failure)

    def _check(self, context, host, now, soon, closely):
        if host.kind == 'nova':
            return host_checks.nova_host(self._manager._nova,
                                         self._manager._placement, host,
                                         closely)
        due = [r for r in device_reservations_db.device_reservations_of_host(
            context, host.id, device_states.DeviceReservation.LIVE)
            if r.start < soon and r.end > now]
        return host_checks.libvirt_host(host, due)

    def _judge(self, context, host, failure):
        seen = self._sightings.pop(host.id, None)
        if failure is None:
            if host.failure:
                healing.recover(context, host, self._manager.sync_lease)
            elif seen:
                LOG.info('Host %s passes its check again', host.name)
            return
        if host.failure:
            return  # failed already
        if seen is None:
            self._sightings[host.id] = failure
            LOG.warning('Host %s looks failed: %s; it fails if the next '
                        'check sees it too', host.name, failure)
            return
        healing.fail(context, host, failure, self._manager.sync_lease)
