"""Spot devices under random sequences: releases, spot attaches,
reclaims (a dry run, then the reclaim), reclaims interrupted by a crash
half-way (then the manager's settle at restart), cancels and ends, on a
libvirt test:/// host run by the real lease manager.

After every step:

* no device is held by two domains that are not spot domains, in the
  records or on the host;
* a spot domain holds on the host exactly the devices its records say,
  and only devices the reservation lends out (once no reclaim is
  pending);
* once the reservation is over, nothing of it is lent or in a spot
  domain.

And in each reclaim: the dry run changes nothing, the reclaim terminates
exactly what the dry run said it would, and the owner's own domain keeps
what it had (a reclaim never touches a workload that is not spot).
"""
import pathlib
import shutil
import tempfile

from hypothesis import HealthCheck
from hypothesis import Phase
from hypothesis import settings
from hypothesis import stateful
from hypothesis import strategies as st
import pytest

from reserve.common import exception
from reserve.db import device_reservations as device_reservations_db
from reserve.db import domain_owners as owners_db
from reserve.db import spot_devices as spot_devices_db
from reserve.devices import attachments
from reserve.devices import refresh
from reserve.devices import runs
from reserve.devices import spot
from reserve.devices import states
from tests.functional.devices import gpu_cloud

OWNER_DOMAIN = 'gpu-vm-2'
SPOT_DOMAINS = ('gpu-vm-3', 'transient-vm')
SETTINGS = settings(max_examples=20, stateful_step_count=10, deadline=None,
                    database=None, phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=list(HealthCheck))
S = states.DeviceReservation


class _Crash(Exception):
    """A manager dying half-way through a reclaim."""


class SpotMachine(stateful.RuleBasedStateMachine):

    def __init__(self):
        super().__init__()
        self.tmp = tempfile.mkdtemp()
        self.cloud = gpu_cloud.start_cloud(pathlib.Path(self.tmp),
                                           migrate=False)
        cloud = self.cloud
        self.host = cloud.enroll('a100-host.xml', name='gpu-box-1')
        for domain, project in ((OWNER_DOMAIN, 'project-a'),
                                ('gpu-vm-3', 'project-b'),
                                ('transient-vm', 'project-b')):
            owners_db.owner_set(cloud.ctx, self.host.id, domain, project)
        self.rsv = cloud.reserve(device_count=2, model=gpu_cloud.A100_MODEL,
                                 host_id=self.host.id)
        cloud.tick()
        self.devices = sorted(u.device_id for u in
                              cloud.reservation(self.rsv).devices)
        cloud.manager.attach_device_domain(cloud.ctx, self.rsv,
                                           OWNER_DOMAIN, [self.devices[0]],
                                           'project-a')
        self.over = False

    def teardown(self):
        gpu_cloud.stop_cloud(self.cloud)
        shutil.rmtree(self.tmp, ignore_errors=True)

    # what is where --------------------------------------------------------

    def _pci(self):
        return {u.device_id: u.device.pci_address
                for u in self.cloud.reservation(self.rsv).devices}

    def _on_host(self, domain):
        return {key[1] for key in self.cloud.hostdevs(self.host)[domain]}

    # rules ---------------------------------------------------------------

    @stateful.rule(which=st.sampled_from((0, 1)))
    def release(self, which):
        try:
            self.cloud.manager.release_devices(
                self.cloud.ctx, self.rsv, [self.devices[which]])
        except exception.ReserveException as exc:
            assert exc.code in (400, 409), exc
            # The owner's own device, or no longer active.
            assert which == 0 or self.over

    @stateful.rule(which=st.sampled_from((0, 1)),
                   domain=st.sampled_from(SPOT_DOMAINS))
    def spot_attach(self, which, domain):
        try:
            self.cloud.manager.attach_spot_device(
                self.cloud.ctx, self.devices[which], domain, 'project-b')
        except exception.ReserveException as exc:
            assert exc.code == 409, exc

    @stateful.rule(only=st.sampled_from((None, 0, 1)))
    def reclaim(self, only):
        ctx = self.cloud.ctx
        ids = None if only is None else [self.devices[only]]
        owner_before = self._on_host(OWNER_DOMAIN)
        spot_before = {d: self._on_host(d) for d in SPOT_DOMAINS}
        try:
            dry = self.cloud.manager.reclaim_devices(ctx, self.rsv, ids,
                                                     True)
        except exception.ReserveException as exc:
            assert exc.code in (400, 409), exc
            return
        assert {d: self._on_host(d) for d in SPOT_DOMAINS} == spot_before
        done = self.cloud.manager.reclaim_devices(ctx, self.rsv, ids, False)
        assert done['terminated'] == dry['would_terminate']
        assert done['skipped'] == dry['would_skip']
        pci = self._pci()
        for entry in done['terminated']:
            assert entry['domain'] in SPOT_DOMAINS
            assert pci[entry['device_id']] not in self._on_host(
                entry['domain'])
        assert self._on_host(OWNER_DOMAIN) == owner_before

    @stateful.rule()
    def crash_in_a_reclaim_then_restart(self):
        reservation = self.cloud.reservation(self.rsv)
        if not reservation.lent_device_ids() or self.over:
            return
        real = attachments.release

        def dying(*args, **kwargs):
            raise _Crash()
        attachments.release = dying
        try:
            with pytest.raises(_Crash):
                spot.reclaim(self.cloud.ctx, self.rsv)
        finally:
            attachments.release = real
        assert spot_devices_db.reclaiming(self.cloud.ctx) == [self.rsv]
        # The manager starts again: its settle finishes the reclaim.
        refresh.settle(self.cloud.ctx)
        assert spot_devices_db.reclaiming(self.cloud.ctx) == []
        assert self.cloud.reservation(self.rsv).lent_device_ids() == []

    @stateful.rule()
    def cancel(self):
        self.cloud.cancel(self.rsv)
        self.cloud.tick()
        self.over = True

    @stateful.rule()
    def end(self):
        # What the lease's end_lease event runs.
        runs.end(self.cloud.ctx, self.rsv)
        self.over = True

    # invariants ----------------------------------------------------------

    @stateful.invariant()
    def never_two_non_spot_domains(self):
        pci = self._pci()
        hostdevs = self.cloud.hostdevs(self.host)
        for address in pci.values():
            holders = [d for d, keys in hostdevs.items()
                       if ('pci', address) in keys and
                       d not in SPOT_DOMAINS]
            assert len(holders) <= 1, (address, holders)
        rows = [a for r in device_reservations_db.device_reservations_of_host(
                    self.cloud.ctx, self.host.id, S.ALL)
                for a in r.attachments
                if not a.spot and a.state in states.Attachment.MAY_BE_ATTACHED]
        for device_id in pci:
            assert len({a.domain for a in rows
                        if a.device_id == device_id}) <= 1

    @stateful.invariant()
    def spot_domains_hold_what_the_records_say(self):
        reservation = self.cloud.reservation(self.rsv)
        pci = self._pci()
        lent = set(reservation.lent_device_ids())
        for domain in SPOT_DOMAINS:
            recorded = {pci[a.device_id] for a in reservation.attachments
                        if a.domain == domain and a.spot and
                        a.state == states.Attachment.ATTACHED}
            assert self._on_host(domain) == recorded, domain
            assert recorded <= {pci[d] for d in lent}
        if self.over:
            assert lent == set()
            assert all(not self._on_host(d) for d in SPOT_DOMAINS)


SpotMachine.TestCase.settings = SETTINGS
test_spot_devices_under_random_sequences = SpotMachine.TestCase
