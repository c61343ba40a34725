"""The manager's repair task.

Once at start, then every ``[manager]repair_interval`` seconds:

* drift: every ACTIVE lease's reservations are brought back to what
  the database says through their plugin's ``sync`` (a flavor access,
  an extra spec, an aggregate, its metadata or a host of it, an
  inventory, a device in its domain, changed or removed by hand), and
  what each put right is reported by reserve.manager.delivery.repaired
  (logged, counted in the deliveries table, notified as
  ``reserve.reservation.repaired``);
* leftovers: the servers ends could not delete, and the cloud objects
  of ended reservations (reserve.manager.leftovers).

Drift it cannot repair (a server of another project on a reserved
host) is for diagnosis to report. Each step is idempotent; what fails
is logged and tried again next run.
"""
import threading

from oslo_config import cfg
from oslo_log import log as logging

from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import nova
from reserve.common import placement
from reserve.common import states
from reserve.db import leases as leases_db
from reserve.manager import delivery
from reserve.manager import leftovers
from reserve import plugins

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


def repair_drift(context):
    """Each active lease's reservations synced; returns counts: the
    repairs reported, the reservations that failed."""
    counts = {'repaired': 0, 'failed': 0}
    # A lease whose end starts meanwhile may get back an object its end
    # took: the sweep of leftovers takes it once the lease is TERMINATED.
    for lease in leases_db.lease_list(context, status=states.Lease.ACTIVE):
        for reservation in lease.reservations:
            if reservation.status == states.LeaseReservation.DELETED:
                continue
            try:
                done = plugins.get_plugin(reservation.resource_type).sync(
                    context, lease, reservation)
            except Exception as exc:  # the other leases go on
                LOG.warning('Lease %s, reservation %s not repaired: %s: %s',
                            lease.id, reservation.id, type(exc).__name__,
                            exc)
                counts['failed'] += 1
                continue
            if done:
                delivery.repaired(context, lease, done)
                counts['repaired'] += len(done)
    return counts


class Repairer:
    """One run of the task; the clients are the sweep's (each plugin
    has its own)."""

    def __init__(self, nova_client=None, placement_client=None):
        self.nova = nova_client or nova.NovaClient()
        self.placement = placement_client or placement.PlacementClient()
        self._unconfigured = set()

    def run_once(self, context=None):
        """Both steps; returns {step: its counts} (None for a step that
        failed as a whole)."""
        context = context or reserve_context.get_admin_context()
        result = {}
        for name, step in (
                ('drift', repair_drift),
                ('leftovers', lambda ctx: leftovers.sweep(
                    ctx, self.nova, self.placement))):
            try:
                result[name] = step(context)
            except exception.CloudNotConfigured as exc:
                # GPU hosts without nova (the all-in-one): said once.
                if name not in self._unconfigured:
                    LOG.info('Repair step %s skipped: %s', name, exc)
                    self._unconfigured.add(name)
                result[name] = None
            except Exception as exc:  # next run tries again
                LOG.warning('Repair step %s failed: %s: %s', name,
                            type(exc).__name__, exc)
                result[name] = None
        if any(v and any(v.values()) for v in result.values()):
            LOG.info('Repair task: %s', result)
        return result


class RepairLoop:
    """Runs a Repairer in a thread of its own."""

    def __init__(self, repairer=None):
        self.repairer = repairer or Repairer()
        self._stopped = threading.Event()
        self._thread = None

    def start(self):
        interval = CONF.manager.repair_interval
        if not interval:
            return
        self._thread = threading.Thread(
            target=self._run, args=(interval,), name='reserve-repair',
            daemon=True)
        self._thread.start()

    def _run(self, interval):
        while True:
            self.repairer.run_once()
            if self._stopped.wait(interval):
                return

    def stop(self, timeout=30):
        self._stopped.set()
        if self._thread is not None:
            self._thread.join(timeout)
