"""A booking's cloud for the diagnosis tests: the nova double of
tests.fakes.nova, the real placement (openstack-placement under
gunicorn), a migrated SQLite database, two enrolled hosts and the lease
manager, worker and event loop in-process; tests break one layer by
hand and read the diagnosis."""
import datetime
import uuid

import pytest

from reserve.booking import admission
from reserve.booking import sizing
from reserve.common import context as reserve_context
from reserve.common import nova
from reserve.common import placement
from reserve.common import states
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import bookings as bookings_db
from reserve.db import flavors as flavors_db
from reserve.db import leases as leases_db
from reserve.db import models
from reserve.manager import events
from reserve.manager import manager
from reserve.manager import notify
from reserve import plugins
from reserve.plugins import flavor_instance
from reserve.worker import worker
from tests.fakes import nova as fake_nova
from tests.fixtures.placement import placement_server  # noqa: F401

PROJECT = 'project-a'


class LocalManagerAPI:
    """The worker's view of the manager, without the RPC hop."""

    def __init__(self, lease_manager):
        self.lease_manager = lease_manager

    def create_lease(self, context, request):
        return self.lease_manager.create_lease(
            reserve_context.get_admin_context(), request.as_message())


class Cloud:
    def __init__(self, server):
        tag = uuid.uuid4().hex[:6]
        self.ctx = reserve_context.get_admin_context()
        self.placement_server = server
        self.fake = fake_nova.FakeCloud()
        self.nova = nova.NovaClient(client=self.fake.nova)
        self.placement = placement.PlacementClient(server.adapter())
        plugins._PLUGINS[states.FLAVOR_INSTANCE] = \
            flavor_instance.FlavorInstancePlugin(
                nova_client=self.nova, placement_client=self.placement)
        self.manager = manager.LeaseManager(
            nova_client=self.nova, placement_client=self.placement)
        self.worker = worker.BookingWorker(
            manager_api=LocalManagerAPI(self.manager))
        self.loop = events.EventLoop()
        self.hosts = []
        for index in (1, 2):
            name = 'gpu%d-%s' % (index, tag)
            rp = server.add_compute_node(name, str(uuid.uuid4()), vcpus=4,
                                         memory_mb=8192)
            self.fake.add_hypervisor(name, rp, vcpus=4, memory_mb=8192)
            self.hosts.append(self.manager.create_host(self.ctx,
                                                       {'name': name}))
        self.fake.nova.flavors.create('gpu.large', 4096, 2, 20,
                                      flavorid='src-flavor')
        self.fake.nova.flavors.create('m1.small', 2048, 1, 10,
                                      flavorid='m1.small')
        flavors_db.flavor_create(self.ctx, {
            'name': 'gpu.large', 'nova_flavor_id': 'src-flavor',
            'slots': 8, 'nova_flavor': sizing.read('src-flavor', self.nova)})

    def book(self, count=1, start_in=0, length=3600):
        now = timeutils.utcnow()
        user = reserve_context.RequestContext(
            user_id='alice', project_id=PROJECT, roles=['member', 'reader'])
        return admission.book(
            user, flavors_db.flavor_get(self.ctx, 'gpu.large'),
            now + datetime.timedelta(seconds=start_in),
            now + datetime.timedelta(seconds=start_in + length), count)

    def allocated(self, **kwargs):
        """A booking with its lease made (not started)."""
        booking = self.book(**kwargs)
        self.worker.create_lease(self.ctx, booking.id)
        return self.lease_of(booking.id)

    def active(self, **kwargs):
        """A booking whose lease has started: (booking, lease)."""
        booking, lease = self.allocated(**kwargs)
        self.loop.tick()
        booking, lease = self.lease_of(booking.id)
        assert lease.status == states.Lease.ACTIVE, lease.status_reason
        return booking, lease

    def lease_of(self, booking_id):
        booking = bookings_db.booking_get(self.ctx, booking_id)
        return booking, leases_db.lease_get(self.ctx, booking.lease_id)

    def diagnose(self, booking_id):
        return self.manager.diagnose(self.ctx, 'reservation', booking_id)

    def age(self, model, row_id, seconds, column='updated_at'):
        """Make a row's date ``seconds`` older (model: a name of
        reserve.db.models)."""
        with db_api.writer.using(self.ctx) as session:
            row = session.get(getattr(models, model), row_id)
            setattr(row, column, getattr(row, column) -
                    datetime.timedelta(seconds=seconds))

    def event(self, lease, event_type):
        return next(e for e in lease.events if e.event_type == event_type)

    def service_host(self, lease):
        return lease.reservations[0].allocations[0].host.service_name


@pytest.fixture
def cloud(db, placement_server, override):
    override('transport_url', 'fake://')
    override('minutes_before_end_lease', 0, group='manager')
    override('guard_seconds', 0, group='booking')
    notify.reset()
    found = Cloud(placement_server)
    yield found
    found.loop.stop()
    plugins._PLUGINS.clear()
