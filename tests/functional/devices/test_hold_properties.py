"""Property-based: checks change nothing, holds take all or nothing.

Failures are injected at each step of a hold (writing the reservation,
then its lease, which cancels the hold when it fails; before the step,
or after it) and of a start (each
mdev creation, each attach, each record of an attachment; before the
step, or after it changed the host) and an end run by the event loop.
Whatever step fails, no device is left held by a failed hold, no mdev
left created, no hostdev left attached; the steps that succeed leave
everything in place, and the end gives it all back.
"""
import contextlib
import datetime
import pathlib
import shutil
import tempfile
from unittest import mock

from hypothesis import event
from hypothesis import given
from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import strategies as st
import sqlalchemy as sa

from reserve.common import exception
from reserve.common import states as engine_states
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import device_reservations as device_reservations_db
from reserve.db import events as events_db
from reserve.db import leases as leases_db
from reserve.db import models
from reserve.devices import hosts as device_hosts
from reserve.manager import events
from tests.functional.devices import gpu_cloud

HOLD_TABLES = ('device_reservations', 'device_reservation_devices',
               'device_reservation_projects', 'device_attachments',
               'leases', 'lease_reservations', 'allocations', 'events')

HOSTS = {
    # definition, model, mdev type, domains that can take devices, devices
    # free (the fixtures' other GPUs are in use outside reserve)
    'pci': ('a100-host.xml', gpu_cloud.A100_MODEL, None,
            ['gpu-vm-1', 'gpu-vm-2', 'gpu-vm-3', 'transient-vm'], 3),
    'mdev': ('t4-host.xml', gpu_cloud.T4_MODEL, 'nvidia-222',
             ['vgpu-vm-1', 'vgpu-vm-2', 'vgpu-vm-3'], 1),
}


class Injected(exception.CloudError):
    """The failure the tests inject."""


class Faults:
    """Counts the steps; the ``fail_at``-th raises, before it runs or
    (``after``) once it has done its work."""

    def __init__(self, fail_at=None, after=False):
        self.fail_at = fail_at
        self.after = after
        self.steps = []

    def run(self, name, func, *args, **kwargs):
        index = len(self.steps)
        self.steps.append(name)
        failing = index == self.fail_at
        if failing and not self.after:
            raise Injected(service='injected', reason='before %s' % name)
        result = func(*args, **kwargs)
        if failing:
            raise Injected(service='injected', reason='after %s' % name)
        return result

    @property
    def injected(self):
        return self.fail_at is not None and self.fail_at < len(self.steps)

    @property
    def failed_step(self):
        return '%s (%s)' % (self.steps[self.fail_at],
                            'after' if self.after else 'before')


class FaultyHost:
    """A HostConnection whose host-changing calls are steps."""

    STEPS = ('create_mdev', 'attach', 'detach', 'remove_mdev')

    def __init__(self, conn, faults):
        self._conn = conn
        self._faults = faults

    def __getattr__(self, name):
        found = getattr(self._conn, name)
        if name in self.STEPS:
            return lambda *a, **k: self._faults.run(name, found, *a, **k)
        return found


@contextlib.contextmanager
def injected(faults, db_steps=True):
    """Every step of holds and attachments goes through ``faults``."""
    real_connect = device_hosts.connect
    patches = [mock.patch.object(
        device_hosts, 'connect',
        lambda uri: FaultyHost(real_connect(uri), faults))]
    if db_steps:
        for module, name in (
                (device_reservations_db, 'device_reservation_insert'),
                (leases_db, 'lease_create'),
                (device_reservations_db, 'attachment_update')):
            real = getattr(module, name)
            patches.append(mock.patch.object(
                module, name,
                lambda *a, _real=real, _name=name, **k: faults.run(
                    _name, _real, *a, **k)))
    with contextlib.ExitStack() as stack:
        for patch in patches:
            stack.enter_context(patch)
        yield


_LOOP = []


@contextlib.contextmanager
def fresh_cloud():
    """A cloud of its own for one example (the event loop, which holds
    nothing between ticks, is shared)."""
    if not _LOOP:
        _LOOP.append(events.EventLoop())
    tmp = pathlib.Path(tempfile.mkdtemp(prefix='gpu-prop-'))
    cloud = gpu_cloud.start_cloud(tmp, migrate=False, loop=_LOOP[0])
    try:
        yield cloud
    finally:
        gpu_cloud.stop_cloud(cloud)
        shutil.rmtree(tmp, ignore_errors=True)


def counts():
    with db_api.get_engine().connect() as conn:
        return {t: conn.execute(sa.text('SELECT COUNT(*) FROM %s' % t))
                .scalar() for t in HOLD_TABLES}


def nothing_held():
    return all(n == 0 for n in counts().values())


def request(mode, count, domains):
    _definition, model, mdev_type, _domains, _free = HOSTS[mode]
    values = {'device_count': count, 'model': model, 'domains': domains}
    if mdev_type:
        values['mdev_type'] = mdev_type
    return values


def attached_everything(cloud, host, rsv_id):
    rsv = cloud.reservation(rsv_id)
    hostdevs, mdevs = cloud.libvirt_state(host)
    for attachment in rsv.attachments:
        assert attachment.state == 'ATTACHED'
        target = (attachment.mdev_uuid if attachment.kind == 'mdev'
                  else attachment.device.pci_address)
        assert (attachment.kind, target) in hostdevs[attachment.domain]
        if attachment.kind == 'mdev':
            assert attachment.mdev_uuid in mdevs
    return rsv


def ended_cleanly(cloud, host, rsv_id, initial):
    assert cloud.cancel(rsv_id) is True
    cloud.tick()
    rsv = cloud.reservation(rsv_id)
    assert rsv.released_at is not None
    assert cloud.libvirt_state(host) == initial


SETTINGS = settings(max_examples=50, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _draw(data, mode, max_domains=3):
    count = data.draw(st.integers(1, HOSTS[mode][4]), label='count')
    domains = data.draw(st.lists(st.sampled_from(HOSTS[mode][3]),
                                 min_size=1, max_size=max_domains,
                                 unique=True), label='domains')
    return count, domains


@SETTINGS
@given(mode=st.sampled_from(sorted(HOSTS)), data=st.data(),
       fail_at=st.integers(0, 12), after=st.booleans())
def test_an_immediate_hold_takes_all_or_nothing(mode, data, fail_at,
                                                after):
    count, domains = _draw(data, mode)
    with fresh_cloud() as cloud:
        host = cloud.enroll(HOSTS[mode][0])
        initial = cloud.libvirt_state(host)
        faults = Faults(fail_at, after)
        try:
            with injected(faults):
                rsv_id = cloud.reserve(**request(mode, count, domains))
        except exception.ReserveException as exc:
            event('hold failed: %s' % ('injected at %s' % faults.failed_step
                                       if faults.injected
                                       else type(exc).__name__))
            # Failed, whichever step: nothing held, created, attached.
            assert nothing_held(), counts()
            assert cloud.libvirt_state(host) == initial
            return
        if faults.injected:
            # The desk's hold stood and its lease failed: the worker
            # cancelled it, and its devices are free again.
            event('lease failed: injected at %s' % faults.failed_step)
            rsv = cloud.reservation(rsv_id)
            assert (rsv.status, cloud.lease(rsv_id)) == ('CANCELLED', None)
            assert rsv.released_at is not None
            assert cloud.libvirt_state(host) == initial
            return
        event('held with %d steps' % len(faults.steps))
        # Its start, due at once, attaches.
        cloud.tick()
        attached_everything(cloud, host, rsv_id)
        assert cloud.reservation(rsv_id).status == 'ACTIVE'
        ended_cleanly(cloud, host, rsv_id, initial)


def _start_now(cloud, rsv_id):
    """Make the reservation's start event due (its window began)."""
    lease = cloud.lease(rsv_id)
    start = next(e for e in lease.events if e.event_type == 'start_lease')
    events_db.event_update(cloud.ctx, start.id, {
        'time': timeutils.utcnow() - datetime.timedelta(seconds=1)})


def _retry_now(cloud, rsv_id):
    """Make the lease's failed events due for their retry."""
    lease = cloud.lease(rsv_id)
    past = timeutils.utcnow() - datetime.timedelta(minutes=5)
    with db_api.writer.using(cloud.ctx) as session:
        (session.query(models.Event)
         .filter_by(lease_id=lease.id, status=engine_states.Event.ERROR)
         .update({'updated_at': past}, synchronize_session=False))


@SETTINGS
@given(mode=st.sampled_from(sorted(HOSTS)), data=st.data(),
       fail_at=st.integers(0, 8), after=st.booleans())
def test_a_failed_start_leaves_nothing_attached_and_is_retried(
        mode, data, fail_at, after):
    count, domains = _draw(data, mode)
    with fresh_cloud() as cloud:
        host = cloud.enroll(HOSTS[mode][0])
        initial = cloud.libvirt_state(host)
        try:
            rsv_id = cloud.reserve(start=gpu_cloud.iso(
                gpu_cloud.ahead(hours=1)), **request(mode, count, domains))
        except exception.Invalid:
            return      # more domains than devices can take: refused at once
        assert cloud.libvirt_state(host) == initial
        _start_now(cloud, rsv_id)
        faults = Faults(fail_at, after)
        with injected(faults, db_steps=False):
            cloud.tick()
        rsv = cloud.reservation(rsv_id)
        event('start %s' % ('failed at %s' % faults.failed_step
                            if faults.injected else 'succeeded'))
        if faults.injected:
            assert rsv.status == 'PENDING'
            assert 'start failed' in rsv.status_reason
            assert cloud.libvirt_state(host) == initial
            # The devices stay the reservation's: it still holds its window.
            assert rsv.released_at is None
            _retry_now(cloud, rsv_id)
            cloud.tick()
        assert cloud.reservation(rsv_id).status == 'ACTIVE'
        attached_everything(cloud, host, rsv_id)
        ended_cleanly(cloud, host, rsv_id, initial)


@SETTINGS
@given(mode=st.sampled_from(sorted(HOSTS)), data=st.data(),
       fail_at=st.integers(0, 8), after=st.booleans())
def test_a_failed_end_converges_when_retried(mode, data, fail_at, after):
    count, domains = _draw(data, mode)
    with fresh_cloud() as cloud:
        host = cloud.enroll(HOSTS[mode][0])
        initial = cloud.libvirt_state(host)
        if mode == 'pci':
            domains = domains[:count]   # a whole device goes to one domain
        rsv_id = cloud.reserve(**request(mode, count, domains))
        cloud.tick()
        assert cloud.cancel(rsv_id) is True
        faults = Faults(fail_at, after)
        with injected(faults, db_steps=False):
            cloud.tick()
        event('end %s' % ('failed at %s' % faults.failed_step
                          if faults.injected else 'succeeded'))
        if faults.injected:
            assert cloud.reservation(rsv_id).released_at is None
            _retry_now(cloud, rsv_id)
            cloud.tick()
        rsv = cloud.reservation(rsv_id)
        assert rsv.status == 'CANCELLED' and rsv.released_at is not None
        assert cloud.libvirt_state(host) == initial


WHOLE_A100S = ('0000:17:00.0', '0000:31:00.0', '0000:b1:00.0')


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(
    st.lists(st.sampled_from(WHOLE_A100S), min_size=1, max_size=3,
             unique=True),
    st.integers(0, 6), st.integers(1, 3)), min_size=1, max_size=8))
def test_no_device_is_ever_held_twice(requests):
    """Whatever the order, a request is refused exactly when one of its
    devices is held by an accepted reservation over an overlapping
    window."""
    with fresh_cloud() as cloud:
        host = cloud.enroll('a100-host.xml')
        ids = {a: cloud.device(host, a).id for a in WHOLE_A100S}
        base = timeutils.utcnow() + datetime.timedelta(days=1)
        accepted = []
        for addresses, start, length in requests:
            window = (start, start + length)
            expected = not any(
                set(addresses) & set(other) and
                window[0] < other_window[1] and other_window[0] < window[1]
                for other, other_window in accepted)
            hours = datetime.timedelta(hours=1)
            try:
                cloud.reserve(device_ids=[ids[a] for a in addresses],
                              start=gpu_cloud.iso(base + start * hours),
                              end=gpu_cloud.iso(base + window[1] * hours))
                took = True
            except exception.DevicesUnavailable:
                took = False
            assert took == expected
            if took:
                accepted.append((addresses, window))
