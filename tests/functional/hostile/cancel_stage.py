"""The stage of the cancel state machine (test_cancel_state_machine):
the API, the worker, the manager and its event loop in one process, on
a throwaway database of one backend.

* Bookings: the real flavor:instance plugin against real placement
  (tests.fixtures.placement) and the nova double (tests.fakes.nova), two
  compute nodes of two A100s each: four instances of the catalogue's
  ``gpu.large`` fit at once.
* Device reservations: a libvirt test:/// host (a100-host.xml), the
  manager answering the API's RPC calls on the fake transport.

The API's casts to the worker are recorded, not sent: ``deliver`` hands
them to the worker (in-process, calling the manager without the RPC
hop), ``lose_casts`` drops them (a worker that never got them).
``kill_manager`` leaves the due events as a manager that died while
running them does. ``settle`` is one turn of what runs in the
background: the worker, its reconcilers, then the event loop until
nothing is due.
"""
import datetime
import shutil
import threading
import time
import uuid

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg
import sqlalchemy as sa
import webtest

from reserve.api import app as api_app
from reserve.booking import sizing
from reserve.common import context as reserve_context
from reserve.common import nova
from reserve.common import placement
from reserve.common import policy
from reserve.common import rpc
from reserve.common import states
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import domain_owners as domain_owners_db
from reserve.db import events as events_db
from reserve.db import flavors as flavors_db
from reserve.db import models
from reserve.manager import events
from reserve.manager import manager
from reserve.manager import notify
from reserve import plugins
from reserve.plugins import flavor_instance
from reserve.virt import host_definitions
from reserve.worker import reconciler
from reserve.worker import rpcapi as worker_rpcapi
from reserve.worker import worker
from tests.fakes import nova as fake_nova
from tests.functional.devices import gpu_cloud
from tests.functional.test_lease_lifecycle import A100_ALIAS
from tests.functional.test_lease_lifecycle import A100_CLASS

CONF = cfg.CONF
DEAD_MANAGER = 'manager-that-died'
CASTS = ('create_lease', 'update_lease', 'delete_lease',
         'create_device_lease', 'delete_device_lease')
OVERRIDES = (
    ('transport_url', 'fake://', None),
    ('auth_strategy', 'noauth', 'api'),
    ('fake_test_driver', True, 'devices'),
    ('minutes_before_end_lease', 0, 'manager'),
    ('event_retry_interval', 1, 'manager'),
    ('guard_seconds', 0, 'booking'),
    ('server_delete_poll_interval', 0.1, 'nova'),
    ('server_delete_timeout', 2, 'nova'),
    ('alias', [A100_ALIAS], 'pci'),
)


def admin():
    return reserve_context.get_admin_context()


class _Worker:
    """The worker's RPC API as the reconciler uses it: at once."""

    def __init__(self, booking_worker):
        self.worker = booking_worker

    def __getattr__(self, name):
        return lambda context, *args, **kwargs: getattr(
            self.worker, name)(admin(), *args, **kwargs)


class Stage:
    def __init__(self, tmp_path, placement_server):
        self.tmp_path = tmp_path
        self.casts = []
        self._casts_lock = threading.Lock()
        CONF([], project='reserve', default_config_files=[])
        for name, value, group in OVERRIDES:
            CONF.set_override(name, value, group=group)
        CONF.register_opts(
            ks_loading.get_auth_plugin_conf_options('admin_token'),
            group='placement')
        for name, value in (('auth_type', 'admin_token'),
                            ('endpoint', placement_server.url),
                            ('token', 'admin')):
            CONF.set_override(name, value, group='placement')
        rpc.cleanup()
        policy.reset()
        notify.reset()
        plugins._PLUGINS.clear()
        self.cloud = fake_nova.FakeCloud()
        nova_client = nova.NovaClient(client=self.cloud.nova)
        placement_client = placement.PlacementClient()
        plugins._PLUGINS['flavor:instance'] = \
            flavor_instance.FlavorInstancePlugin(
                nova_client=nova_client, placement_client=placement_client)
        self.manager = manager.LeaseManager(
            nova_client=nova_client, placement_client=placement_client)
        self.worker = worker.BookingWorker(
            manager_api=gpu_cloud.LocalManagerAPI(self.manager))
        self.reconcilers = [reconciler.Reconciler(_Worker(self.worker))]
        self.loop = events.EventLoop()
        self._server = rpc.get_server(rpc.MANAGER_TOPIC, '1.0',
                                      [self.manager])
        self._server.start()
        self._record_casts()
        self._nova_hosts(placement_server)
        self.gpu_host = self._libvirt_host()
        self.app = webtest.TestApp(api_app.setup_app(), extra_environ={
            'REMOTE_ADDR': '127.0.0.1'})

    # setting up --------------------------------------------------------

    def _record_casts(self):
        self._real_casts = {m: getattr(worker_rpcapi.WorkerAPI, m)
                            for m in CASTS}

        def recorder(method):
            def record(api, context, object_id, **kwargs):
                with self._casts_lock:
                    self.casts.append((method, object_id, kwargs))
            return record

        for method in CASTS:
            setattr(worker_rpcapi.WorkerAPI, method, recorder(method))

    def _nova_hosts(self, placement_server):
        for name in ('host1-%s' % uuid.uuid4().hex[:6],
                     'host2-%s' % uuid.uuid4().hex[:6]):
            rp = placement_server.add_compute_node(
                name, str(uuid.uuid4()), vcpus=4, memory_mb=8192)
            placement_server.add_device_provider(
                rp, '%s_0000:17:00.0' % name, A100_CLASS, 2)
            self.cloud.add_hypervisor(name, rp, vcpus=4, memory_mb=8192)
            self.manager.create_host(admin(), {'name': name})
        source = self.cloud.nova.flavors.create('gpu.large', 4096, 2, 20,
                                                flavorid='src-flavor')
        source.set_keys({'pci_passthrough:alias': 'a100:1'})
        flavors_db.flavor_create(admin(), {
            'name': 'gpu.large', 'nova_flavor_id': 'src-flavor',
            'slots': 8, 'nova_flavor': sizing.read(
                'src-flavor', nova.NovaClient(client=self.cloud.nova))})

    def _libvirt_host(self):
        path = self.tmp_path / ('%s-a100-host.xml' % uuid.uuid4().hex[:8])
        shutil.copy(gpu_cloud.DEFINITIONS / 'a100-host.xml', path)
        self.uri = host_definitions.host_uri(path)
        host = self.manager.create_host(admin(), {'name': 'gpu-box',
                                                  'uri': self.uri})
        # Its domains are the acting project's (project-a, MEMBER_A).
        for domain in self.manager.host_domains(admin(), host['id']):
            domain_owners_db.owner_set(admin(), host['id'], domain['name'],
                                       'project-a')
        return host

    def close(self):
        self._server.stop()
        self._server.wait()
        self.loop.stop()
        for method, real in self._real_casts.items():
            setattr(worker_rpcapi.WorkerAPI, method, real)
        gpu_cloud._forget(self.uri)
        plugins._PLUGINS.clear()
        notify.reset()
        rpc.cleanup()
        policy.reset()
        for name, _value, group in OVERRIDES:
            CONF.clear_override(name, group=group)
        for name in ('auth_type', 'endpoint', 'token'):
            CONF.clear_override(name, group='placement')

    # what runs in the background ---------------------------------------

    def deliver(self):
        """The worker takes the casts made so far."""
        while True:
            with self._casts_lock:
                if not self.casts:
                    return
                method, object_id, kwargs = self.casts.pop(0)
            getattr(self.worker, method)(admin(), object_id, **kwargs)

    def lose_casts(self):
        with self._casts_lock:
            self.casts.clear()

    def kill_manager(self):
        """The due events left as a manager leaves them when it dies
        running them: IN_PROGRESS, taken by it, its heartbeat stopped
        (another manager takes them over)."""
        now = timeutils.utcnow()
        e, s = models.Event.__table__, models.Service.__table__
        with db_api.get_engine().begin() as conn:
            conn.execute(s.delete().where(s.c.host == DEAD_MANAGER))
            conn.execute(s.insert().values(
                binary=events_db.MANAGER_BINARY,
                host=DEAD_MANAGER, heartbeat_at=now - datetime.timedelta(
                    hours=1), created_at=now, updated_at=now))
            return conn.execute(
                e.update().where(e.c.status == states.Event.UNDONE,
                                 e.c.time <= now)
                .values(status=states.Event.IN_PROGRESS,
                        taken_by=DEAD_MANAGER, taken_at=now,
                        attempts=e.c.attempts + 1)).rowcount

    def _age(self):
        """Every row looks untouched for longer than the reconcilers
        wait before they act."""
        past = timeutils.utcnow() - datetime.timedelta(
            seconds=CONF.worker.pending_create_timeout + 1)
        with db_api.get_engine().begin() as conn:
            for model in (models.Booking, models.DeviceReservation):
                conn.execute(model.__table__.update()
                             .values(updated_at=past))
            conn.execute(models.Lease.__table__.update().values(
                updated_at=past, created_at=past))

    def _due(self):
        """Events the loop has still to run now (a failed one waits
        for its retry)."""
        e = models.Event.__table__
        with db_api.get_engine().connect() as conn:
            return conn.execute(sa.select(sa.func.count()).where(
                e.c.time <= timeutils.utcnow(),
                e.c.status.in_((states.Event.UNDONE,
                                states.Event.IN_PROGRESS,
                                states.Event.ERROR)),
                e.c.attempts < CONF.manager.event_max_attempts)).scalar()

    def settle(self, timeout=20):
        """One turn of the background: the worker, the reconcilers, the
        event loop until nothing is due (retries included)."""
        self.deliver()
        self._age()
        for job in self.reconcilers:
            job.run(admin())
        self.deliver()
        deadline = time.monotonic() + timeout
        while True:
            ran = self.loop.tick()
            self.deliver()
            if not ran and not self._due():
                return
            if time.monotonic() > deadline:
                raise AssertionError('events still due after %d s' %
                                     timeout)
            if not ran:
                time.sleep(0.2)
