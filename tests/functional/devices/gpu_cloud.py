"""A GPU cloud made of libvirt test:/// hosts, for the device tests.

``GpuCloud`` runs the lease manager, the event loop and a worker
in-process on a fresh SQLite database; its ``reserve`` and ``cancel``
take the road of the API's (the booking desk holds or cancels, then
the worker's cast runs at once, without the API's own checks of the
request); each host it enrolls is a private copy of a
definition of etc/reserve/gpu-hosts (its own URI, hence its own libvirt
state), completed by reserve_fakes.libvirt_host (mdev creation, hot-plug).
``topology_change`` rewrites a host's definition and reopens it, as if
its GPUs had been moved.
"""
import datetime
import pathlib
import shutil
import uuid

from oslo_config import cfg

from reserve.booking import cancel
from reserve.booking import device_admission
from reserve.common import context as reserve_context
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import device_reservations as device_reservations_db
from reserve.db import devices as devices_db
from reserve.db import hosts as hosts_db
from reserve.db import models
from reserve.devices import hosts as device_hosts
from reserve.devices import owners
from reserve.manager import events
from reserve.manager import manager
from reserve.manager import notify
from reserve import plugins
from reserve.virt import connection
from reserve.virt import host_definitions
from reserve.worker import reconciler
from reserve.worker import worker
from tests.fixtures import database

CONF = cfg.CONF
DEFINITIONS = (pathlib.Path(__file__).parents[3] / 'etc' / 'reserve' /
               'gpu-hosts')
A100_MODEL = 'A100 SXM4 80GB'
T4_MODEL = 'Tesla T4'


def iso(when):
    return timeutils.isoformat(when)


def ahead(seconds=0, hours=0, days=0):
    return timeutils.utcnow() + datetime.timedelta(
        seconds=seconds, hours=hours, days=days)


class LocalManagerAPI:
    """The worker's view of the manager, without the RPC hop."""

    def __init__(self, lease_manager):
        self.lease_manager = lease_manager

    def __getattr__(self, name):
        method = getattr(self.lease_manager, name)
        return lambda context, *args, **kwargs: method(
            reserve_context.get_admin_context(), *args, **kwargs)

    def create_lease(self, context, request):
        # The request crosses as ManagerAPI sends it.
        return self.lease_manager.create_lease(
            reserve_context.get_admin_context(), request.as_message())


class LocalWorkerAPI:
    """The reconciler's casts, delivered at once to ``worker``."""

    def __init__(self, booking_worker):
        self.worker = booking_worker

    def create_device_lease(self, context, reservation_id):
        self.worker.create_device_lease(context, reservation_id)

    def delete_device_lease(self, context, reservation_id):
        self.worker.delete_device_lease(context, reservation_id)


class GpuCloud:
    def __init__(self, tmp_path, loop=None):
        self.tmp_path = tmp_path
        self.ctx = reserve_context.get_admin_context()
        self.manager = manager.LeaseManager()
        self.worker = worker.BookingWorker(
            manager_api=LocalManagerAPI(self.manager))
        self._own_loop = loop is None
        self.loop = loop or events.EventLoop()
        self.uris = []

    def close(self):
        if self._own_loop:
            self.loop.stop()
        for uri in self.uris:
            _forget(uri)

    # hosts -------------------------------------------------------------

    def definition(self, name):
        """A private copy of a host definition; returns its path."""
        path = self.tmp_path / ('%s-%s' % (uuid.uuid4().hex[:8], name))
        shutil.copy(DEFINITIONS / name, path)
        return path

    def enroll(self, definition='a100-host.xml', name=None, **values):
        path = self.definition(definition)
        uri = host_definitions.host_uri(path)
        self.uris.append(uri)
        host = self.manager.create_host(self.ctx, dict(
            values, name=name or path.stem, uri=uri))
        return hosts_db.host_get(self.ctx, host['id'])

    def conn(self, host):
        return device_hosts.connect(host.uri)

    def topology_change(self, host, edit):
        """Rewrite the host's definition with ``edit(text)`` and reopen
        it (a test:/// host reads its file when opened)."""
        path = pathlib.Path(host.uri[len('test://'):])
        path.write_text(edit(path.read_text()))
        _forget(host.uri)

    def device(self, host, pci_address):
        for device in devices_db.device_list(self.ctx, host_ids=[host.id]):
            if device.pci_address == pci_address:
                return device
        raise KeyError(pci_address)

    # reservations ------------------------------------------------------

    def reserve(self, project='project-a', start=None, end=None,
                **values):
        """Hold through the booking desk (start, end: ISO 8601; no end:
        open-ended), then make its lease as the worker's cast would."""
        values.setdefault('id', str(uuid.uuid4()))
        values.setdefault('project_id', project)
        values.setdefault('user_id', 'alice')
        start = timeutils.parse(start) if start else timeutils.utcnow()
        end = timeutils.parse(end) if end else None
        device_admission.reserve(self.ctx, values, start, end,
                                 self.domain_reader(values))
        self.worker.create_device_lease(self.ctx, values['id'])
        return values['id']

    def domain_reader(self, values):
        """read_domains(host) of the desk, as the API's: the domains of a
        host the reservation's projects may use, asked of the manager
        once per host."""
        projects = ({values['project_id']} |
                    set(values.get('allowed_projects') or ()) |
                    set(values.get('managing_projects') or ()))
        names = {}

        def read_domains(host):
            if host.id not in names:
                names[host.id] = owners.usable(
                    self.manager.host_domains(self.ctx, host.id), projects,
                    owners.unowned_ok(self.ctx))
            return names[host.id]
        return read_domains

    def reservation(self, reservation_id):
        return device_reservations_db.device_reservation_get(
            self.ctx, reservation_id)

    def lease(self, reservation_id):
        return device_reservations_db.device_reservation_lease(
            self.ctx, reservation_id)

    def tick(self, times=1):
        ran = 0
        for _ in range(times):
            ran += self.loop.tick()
        return ran

    def cancel(self, reservation_id):
        """The desk's cancel, then the worker's cast at once; False when
        the reservation was not live any more."""
        if not cancel.device_reservation(self.ctx, reservation_id,
                                         'cancelled by a test'):
            return False
        self.worker.delete_device_lease(self.ctx, reservation_id)
        return True

    def reconcile(self):
        """One run of the worker's reconciler, every device reservation
        made to look untouched for [worker]pending_create_timeout."""
        age_reservations()
        job = reconciler.Reconciler(LocalWorkerAPI(self.worker))
        return job.run(self.ctx)

    # what libvirt holds ------------------------------------------------

    def hostdevs(self, host):
        """{domain: sorted hostdev keys} of every domain of the host."""
        conn = self.conn(host)
        return {d.name: sorted(h.key for h in conn.attached(d.name))
                for d in conn.domains()}

    def mdevs(self, host):
        return sorted(m.uuid for m in self.conn(host).mdevs())

    def libvirt_state(self, host):
        return self.hostdevs(host), self.mdevs(host)


def age_reservations():
    """Make every device reservation look untouched for longer than
    [worker]pending_create_timeout (what the reconciler waits for)."""
    past = timeutils.utcnow() - datetime.timedelta(
        seconds=CONF.worker.pending_create_timeout + 1)
    table = models.DeviceReservation.__table__
    with db_api.get_engine().begin() as conn:
        conn.execute(table.update().values(updated_at=past))


def _forget(uri):
    """Close the process's connection to ``uri``: the next one reads
    the definition again."""
    with connection._HOSTS_LOCK:
        found = connection._HOSTS.pop(uri, None)
    if found is not None:
        found.close()


def start_cloud(tmp_path, migrate=True, loop=None):
    """A cloud on a fresh SQLite file: its schema built by the
    migrations, or (``migrate=False``, quicker) from the models; ``loop``
    an EventLoop to share (stopping one takes a second)."""
    CONF.set_override('transport_url', 'fake://')
    CONF.set_override('fake_test_driver', True, group='devices')
    CONF.set_override('minutes_before_end_lease', 0, group='manager')
    CONF.set_override('event_retry_interval', 1, group='manager')
    # The tests' windows last seconds; their quota is the API tests'.
    CONF.set_override('min_duration_seconds', 1, group='devices')
    for name in ('device_hours', 'device_reservations'):
        CONF.set_override(name, -1, group='quota')
    url = 'sqlite:///%s' % (tmp_path / 'gpu.sqlite')
    if migrate:
        database.use_database(url)
    else:
        CONF.set_override('connection', url, group='database')
        database.reset_engine()
        models.Base.metadata.create_all(db_api.get_engine())
    notify.reset()
    plugins._PLUGINS.clear()
    return GpuCloud(tmp_path, loop=loop)


def stop_cloud(cloud):
    cloud.close()
    plugins._PLUGINS.clear()
    database.reset_engine()
    for name, group in (('transport_url', None),
                        ('fake_test_driver', 'devices'),
                        ('minutes_before_end_lease', 'manager'),
                        ('event_retry_interval', 'manager'),
                        ('min_duration_seconds', 'devices'),
                        ('device_hours', 'quota'),
                        ('device_reservations', 'quota'),
                        ('connection', 'database')):
        CONF.clear_override(name, group=group)
