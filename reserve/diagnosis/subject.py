"""What the cloud layers of a booking's diagnosis read from the database:
the booking, its lease and lease reservation, and what each cloud object
should be at this time."""
import dataclasses
import datetime
import typing

from oslo_config import cfg

from reserve.common import states
from reserve.db import sharing as sharing_db
from reserve.diagnosis import findings
from reserve.diagnosis import lease as lease_layers

CONF = cfg.CONF


@dataclasses.dataclass
class Booked:
    booking: typing.Any
    lease: typing.Any
    reservation: typing.Any     # the lease reservation, or None
    rsv_id: typing.Optional[str]  # what names the cloud objects
    now: datetime.datetime
    # The projects the booking is shared with, and those taken back
    # (reserve.db.sharing.Shares).
    shares: typing.Any = sharing_db.Shares([], [])

    def access(self):
        """The projects that boot its flavor while it runs."""
        return [self.lease.project_id] + list(self.shares.shared)

    @property
    def started(self):
        return lease_layers.started(self.lease)

    @property
    def over(self):
        """Whether nothing of it should be left in the cloud."""
        return (self.booking.status not in states.Booking.LIVE or
                lease_layers.ended(self.lease))

    @property
    def allocations(self):
        return list(self.reservation.allocations) if self.reservation \
            else []

    def service_hosts(self):
        return sorted({a.host.service_name or a.host.name
                       for a in self.allocations})

    def teardown_pending(self):
        return lease_layers.teardown_pending(self.lease)

    # advice ------------------------------------------------------------

    def drift(self, text, repairable=True):
        """A problem of a live lease's cloud object; reserve repairs it
        when the repair task runs (or the start has yet to run)."""
        if repairable and not self.started:
            return findings.problem(
                text, findings.DRIFT, findings.BY_RESERVE,
                'start_lease builds what is missing when the lease starts')
        return findings.advise(
            text, findings.DRIFT,
            repairable and CONF.manager.repair_interval,
            'the lease manager\'s repair task puts it back within '
            '[manager]repair_interval seconds (%d)' %
            CONF.manager.repair_interval,
            'put it back as expected by hand (the repair task is off: '
            '[manager]repair_interval = 0)' if repairable else
            'put it back as expected by hand')

    def leftover(self, text, command):
        if self.teardown_pending():
            return findings.problem(
                text, findings.LEFTOVERS, findings.BY_RESERVE,
                'the lease\'s end_lease is retried and removes it; if it '
                'keeps failing, read its error in the events layer')
        return findings.advise(
            text, findings.LEFTOVERS, CONF.manager.repair_interval,
            'the repair task\'s sweep asks nova again to delete the '
            'servers an end left and removes the rest once they are '
            'gone (every [manager]repair_interval seconds); if it stays,'
            ' %s' % command,
            'remove it by hand: %s' % command)
