"""Spot devices under random sequences: releases, spot attaches, the
spot users' detaches (by the spot domain's project, another project, of
a domain that does not hold the device or holds it as the owner's),
reclaims (a dry run, then the reclaim), reclaims and detaches
interrupted by a crash half-way (then the manager's settle at restart
and its refresh), cancels and ends, on a libvirt test:/// host run by
the real lease manager.

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
what it had (a reclaim never touches a workload that is not spot). A
spot detach takes the device from the spot domain of the project that
asks and from nothing else (403 for another project's, 409 for a domain
that does not hold it as a spot domain), and leaves it on the market.
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
SPOT_PROJECTS = ('project-b', 'project-c')
SETTINGS = settings(max_examples=20, stateful_step_count=10, deadline=None,
                    database=None, phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=list(HealthCheck))
S = states.DeviceReservation


class _Crash(Exception):
    """A manager dying half-way through a reclaim or a spot detach."""


def _dying(*args, **kwargs):
    raise _Crash()


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

    def _spot_holder(self, device_id=None):
        """The live spot attachment of ``device_id`` (any device: None),
        or None."""
        return next((a for a in self.cloud.reservation(self.rsv).attachments
                     if a.spot and a.state != states.Attachment.DETACHED
                     and device_id in (None, a.device_id)), None)

    def _market(self):
        return spot_devices_db.on_market(self.cloud.ctx, S.ACTIVE,
                                         states.Attachment.DETACHED)

    # rules ---------------------------------------------------------------

    @stateful.initialize(start=st.sampled_from(('as made', 'lent',
                                                'in a spot domain')),
                         domain=st.sampled_from(SPOT_DOMAINS))
    def start_from(self, start, domain):
        # Most runs begin with the free device lent, some of them in a
        # spot domain already: the spot steps then have something to
        # work on before a cancel or an end closes the run.
        if start != 'as made':
            self.release(1)
        if start == 'in a spot domain':
            self.spot_attach(1, domain)

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

    def _held(self):
        return not self.over and self._spot_holder() is not None

    @stateful.rule(which=st.sampled_from((0, 1)),
                   domain=st.sampled_from(SPOT_DOMAINS + (OWNER_DOMAIN,)),
                   project=st.sampled_from(SPOT_PROJECTS))
    def spot_detach(self, which, domain, project):
        self._detach(self.devices[which], domain, project)

    @stateful.precondition(_held)
    @stateful.rule(by=st.sampled_from(('its project', 'another project')))
    def spot_user_gives_back(self, by):
        holder = self._spot_holder()
        self._detach(holder.device_id, holder.domain,
                     holder.project_id if by == 'its project'
                     else 'project-c')

    def _detach(self, device_id, domain, project):
        holder = None if self.over else self._spot_holder(device_id)
        before = {d: self._on_host(d) for d in SPOT_DOMAINS + (OWNER_DOMAIN,)}
        try:
            self.cloud.manager.detach_spot_device(self.cloud.ctx, device_id,
                                                  domain, project)
        except exception.ReserveException as exc:
            if holder is not None and holder.project_id != project:
                assert exc.code == 403, exc
            else:
                # Not held there as a spot domain: the owner's own, one
                # that does not hold it, or the reservation is over.
                assert exc.code == 409, exc
                assert holder is None or holder.domain != domain
            assert {d: self._on_host(d) for d in before} == before
            return
        assert (holder.domain, holder.project_id) == (domain, project)
        assert self._pci()[device_id] not in self._on_host(domain)
        assert {d: self._on_host(d) for d in before if d != domain} == {
            d: v for d, v in before.items() if d != domain}
        # Back on the market, free, still lent.
        assert self._market().get(device_id) is False
        assert self._spot_holder(device_id) is None

    @stateful.precondition(_held)
    @stateful.rule(window=st.sampled_from(('attachment_update',
                                           'attachments_delete')))
    def crash_in_a_spot_detach_then_restart(self, window):
        holder = self._spot_holder()
        real = getattr(device_reservations_db, window)
        setattr(device_reservations_db, window, _dying)
        try:
            with pytest.raises(_Crash):
                spot.detach(self.cloud.ctx, holder.device_id, holder.domain,
                            holder.project_id)
        finally:
            setattr(device_reservations_db, window, real)
        # The manager starts again (its settle), then refreshes the host.
        refresh.settle(self.cloud.ctx)
        refresh.refresh_all(self.cloud.ctx)
        address = self._pci()[holder.device_id]
        if window == 'attachment_update':
            # Libvirt had let go, the row still said attached: the
            # refresh gave the device back to the spot domain.
            assert self._spot_holder(holder.device_id).domain == \
                holder.domain
            assert address in self._on_host(holder.domain)
        else:
            # The row said detached: deleted, the device free.
            assert self._spot_holder(holder.device_id) is None
            assert address not in self._on_host(holder.domain)
            assert self._market().get(holder.device_id) is False

    def _free_on_market(self):
        return not self.over and any(
            not held for held in self._market().values())

    @stateful.precondition(_free_on_market)
    @stateful.rule(domain=st.sampled_from(SPOT_DOMAINS))
    def spot_attach_a_free_device(self, domain):
        # Aimed at a device on the market that no spot domain holds.
        device_id = min(d for d, held in self._market().items()
                        if not held)
        self.spot_attach(self.devices.index(device_id), domain)

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
        attachments.release = _dying
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
