"""Fixtures of the API functional tests.

The whole WSGI stack of reserve.api.app.setup_app runs in-process under
webtest, on a fresh SQLite file per test, with no authentication
(``[api]auth_strategy = noauth``: the identity headers below are trusted)
and oslo.messaging's ``fake://`` transport, so casts go nowhere. The
API's nova is the double of tests.fakes.nova (``api.nova_cloud``), with
the nova flavors of NOVA_FLAVORS.

Test modules import the fixtures they use from here.
"""
import datetime
import uuid

from oslo_config import cfg
import oslo_messaging as messaging
from oslo_messaging import conffixture
import pytest
import webtest

from reserve.api import app as api_app
from reserve.common import context as reserve_context
from reserve.common import nova
from reserve.common import exception
from reserve.common import policy
from reserve.common import rpc
from reserve.common import states
from reserve.common import timeutils
from reserve import conf as reserve_conf  # noqa: F401 (registers options)
from reserve.db import api as db_api
from reserve.db import bookings as bookings_db
from reserve.db import flavors as flavors_db
from reserve.db import hosts as hosts_db
from reserve.db import leases as leases_db
from reserve.db import models
from reserve.worker import rpcapi as worker_rpcapi
from tests.fakes import nova as fake_nova
from tests.fixtures import database

CONF = cfg.CONF


def persona(user, project, roles):
    return {'X-User-Id': user, 'X-Project-Id': project, 'X-Roles': roles}


ADMIN = persona('root', 'admin-project', 'admin,member,reader')
MEMBER_A = persona('alice', 'project-a', 'member,reader')
READER_A = persona('arthur', 'project-a', 'reader')
MEMBER_B = persona('bob', 'project-b', 'member,reader')


def iso(when):
    return when.replace(microsecond=0).isoformat() + 'Z'


def future(hours):
    """An ISO 8601 date ``hours`` from now (UTC, with Z)."""
    return iso(timeutils.utcnow() + datetime.timedelta(hours=hours))


def admin_context():
    return reserve_context.get_admin_context()


def assert_error(response, status, code=None, detail_has=()):
    """``response`` carries the one error body with ``status``."""
    assert response.status_int == status, response.body
    assert response.content_type == 'application/json'
    body = response.json
    assert list(body) == ['errors']
    assert len(body['errors']) == 1
    error = body['errors'][0]
    # A capacity refusal's counter_offer (a booking's since 1.6, one for
    # maintenance and a device reservation's since 1.11) and a refused
    # series' occurrences (since 1.7) are the more fields an error may
    # have.
    assert set(error) - {'counter_offer', 'occurrences'} == {
        'status', 'code', 'title', 'detail', 'request_id'}
    assert 'counter_offer' not in error or code in (
        'reserve.no_capacity', 'reserve.maintenance',
        'reserve.devices_do_not_fit', 'reserve.units_unavailable')
    assert 'occurrences' not in error or \
        error['code'] == 'reserve.series_does_not_fit'
    assert error['status'] == status
    assert error['code'].startswith('reserve.')
    if code is not None:
        assert error['code'] == code
    assert error['title']
    assert error['request_id'].startswith('req-')
    assert error['request_id'] == \
        response.headers['x-openstack-request-id']
    for text in ([detail_has] if isinstance(detail_has, str)
                 else detail_has):
        assert text in error['detail'], error['detail']
    assert 'Traceback' not in response.text
    return error


# Nova flavors of the API's nova double: (vcpus, ram MB, disk GB).
NOVA_FLAVORS = {name: (2, 4096, 20) for name in (
    'g1.a100', 'n', 'x', 'nova-a100', 'src-flavor', 'nova-race',
    'gpu.a100', 'a100')}
# The record admission sizes instances from (see booking.sizing.read).
SMALL_RECORD = {'vcpus': 1, 'memory_mb': 1024, 'disk_gb': 10,
                'ephemeral_gb': 0, 'swap_mb': 0, 'extra_specs': {}}


@pytest.fixture
def api(tmp_path, monkeypatch, api_overrides):
    """A webtest client of the API on an empty database, with the
    overrides of the api_overrides fixture (tests/functional/conftest.py)
    too."""
    conffixture.ConfFixture(CONF)  # registers oslo.messaging's options
    # Parsed without any file, so a developer's /etc/reserve is not read
    # (oslo.policy needs a parsed configuration).
    CONF([], project='reserve', default_config_files=[])
    overrides = [
        ('connection', 'sqlite:///%s' % (tmp_path / 'api.sqlite'),
         'database'),
        ('auth_strategy', 'noauth', 'api'),
        ('transport_url', 'fake://', None),
    ] + list(api_overrides)
    for name, value, group in overrides:
        CONF.set_override(name, value, group=group)
    database.reset_engine()
    models.Base.metadata.create_all(db_api.get_engine())
    rpc.cleanup()
    policy.reset()
    cloud = fake_nova.FakeCloud()
    for name, (vcpus, ram, disk) in NOVA_FLAVORS.items():
        cloud.nova.flavors.create(name, ram, vcpus, disk, flavorid=name)
    real = nova.NovaClient
    monkeypatch.setattr(nova, 'NovaClient',
                        lambda client=None: real(client=client or
                                                 cloud.nova))
    client = webtest.TestApp(api_app.setup_app(),
                             extra_environ={'REMOTE_ADDR': '127.0.0.1'})
    client.nova_cloud = cloud
    yield client
    rpc.cleanup()
    policy.reset()
    database.reset_engine()
    for name, _value, group in overrides:
        CONF.clear_override(name, group=group)


@pytest.fixture
def casts(monkeypatch):
    """Records the casts to the worker instead of sending them."""
    recorded = []

    def recorder(method):
        def record(self, context, booking_id, **kwargs):
            recorded.append(dict(kwargs, method=method,
                                 booking_id=booking_id,
                                 project_id=context.project_id,
                                 user_id=context.user_id))
        return record

    for method in ('create_lease', 'update_lease', 'delete_lease',
                   'promote_standby', 'share_lease'):
        monkeypatch.setattr(worker_rpcapi.WorkerAPI, method,
                            recorder(method))
    return recorded


class FakeManagerEndpoint:
    """The manager's create_host, minus nova: any name not starting with
    'unknown' is a hypervisor."""

    target = messaging.Target(version='1.0')

    @messaging.expected_exceptions(exception.ReserveException)
    def create_host(self, context, values):
        name = values['name']
        if name.startswith('unknown'):
            raise exception.HypervisorNotFound(name=name)
        for existing in hosts_db.host_list(context):
            if existing.name == name:
                raise exception.HostAlreadyEnrolled(name=name,
                                                    id=existing.id)
        host = hosts_db.host_create(context, {
            'name': name, 'kind': 'nova',
            'service_name': name.split('.')[0],
            'provider_uuid': str(uuid.uuid5(uuid.NAMESPACE_DNS, name)),
            'vcpus': 64, 'memory_mb': 515072, 'local_gb': 1800,
            'reservable': values.get('reservable', True),
        }, values.get('capabilities'))
        return {'id': host.id, 'name': host.name}


@pytest.fixture
def fake_manager(api):
    """An RPC server on the fake transport answering the manager's topic."""
    server = rpc.get_server(rpc.MANAGER_TOPIC, '1.0',
                            [FakeManagerEndpoint()])
    server.start()
    yield server
    server.stop()
    server.wait()


@pytest.fixture
def short_rpc_timeout():
    """The API waits a second for the manager's answer to a call (the
    diagnosis, the doctor), for tests where no manager answers."""
    CONF.set_override('rpc_timeout', 1, group='api')
    yield
    CONF.clear_override('rpc_timeout', group='api')


def roomy_host():
    """A nova host roomy enough that only the flavors' slots bind, made
    unless some nova host is enrolled."""
    hosts = [h for h in hosts_db.host_list(admin_context())
             if h.kind == 'nova']
    if hosts:
        return hosts[0]
    return make_host('roomy.example.org', vcpus=10 ** 5,
                     memory_mb=10 ** 9, local_gb=10 ** 7)


@pytest.fixture
def roomy(api):
    """A roomy nova host (roomy_host), for tests that write catalogue
    entries through the API: an entry must fit on an enrolled host."""
    return roomy_host()


def make_flavor(name='gpu.a100', projects=(), **values):
    """A catalogue flavor written straight to the database: public,
    active, 10 slots, no length limit unless told otherwise, instances of
    SMALL_RECORD's size; and a roomy host (roomy_host)."""
    row = dict(name=name, nova_flavor_id=name, slots=10, active=True,
               is_public=True, max_length_hours=None)
    row.update(values)
    row.setdefault('nova_flavor', dict(SMALL_RECORD,
                                       id=row['nova_flavor_id'],
                                       name=row['nova_flavor_id']))
    roomy_host()
    return flavors_db.flavor_create(admin_context(), row, projects)


def catalogue_flavor(ref):
    """The catalogue flavor with id or name ``ref``, created if needed."""
    try:
        return flavors_db.flavor_get(admin_context(), ref)
    except exception.FlavorNotFound:
        return make_flavor(ref)


@pytest.fixture
def catalogue(api):
    """Five catalogue flavors: public, inactive, granted to project-a,
    granted to project-b, granted to nobody."""
    make_flavor('a-public')
    make_flavor('b-inactive', active=False)
    make_flavor('c-private-a', is_public=False, projects=['project-a'])
    make_flavor('d-private-b', is_public=False, projects=['project-b'])
    make_flavor('e-private-none', is_public=False)


def make_booking(project='project-a', user='alice', status=None,
                 flavor_id='gpu.a100', start_hours=24, hours=24,
                 **values):
    """A booking row written straight to the database; flavor_id names a
    catalogue flavor, created if missing."""
    now = timeutils.utcnow()
    start = now + datetime.timedelta(hours=start_hours)
    row = dict(project_id=project, user_id=user,
               flavor_id=catalogue_flavor(flavor_id).id,
               instance_count=1, start=start,
               end=start + datetime.timedelta(hours=hours),
               status=status or states.Booking.PENDING_CREATE)
    row.update(values)
    return bookings_db.booking_create(admin_context(), row)


def make_host(name='gpu1.example.org', **values):
    row = dict(name=name, kind='nova', service_name=name.split('.')[0],
               vcpus=64, memory_mb=515072, local_gb=1800, reservable=True)
    row.update(values)
    return hosts_db.host_create(admin_context(), row, {'gpu_model': 'a100'})


def make_lease(project='project-a', name=None, host=None, status=None,
               amount=2):
    """A lease with one reservation, its allocation on ``host`` and its
    three events, as the manager writes them."""
    now = timeutils.utcnow()
    start = now + datetime.timedelta(hours=24)
    end = start + datetime.timedelta(hours=48)
    reservation = dict(
        resource_type='flavor:instance',
        status=states.LeaseReservation.PENDING,
        amount=amount, source_flavor_id='gpu.a100', vcpus=16,
        memory_mb=65536, disk_gb=100, ephemeral_gb=0,
        extra_specs={'pci_passthrough:alias': 'a100:1'},
        resource_properties='["==", "$gpu_model", "a100"]', affinity=None,
        allocations=[{'host_id': host.id, 'amount': amount,
                      'start': start, 'end': end, 'vcpus': 16,
                      'memory_mb': 65536, 'disk_gb': 100}]
        if host else [])
    events = [
        dict(event_type=states.Event.START, time=start,
             status=states.Event.UNDONE),
        dict(event_type=states.Event.BEFORE_END,
             time=end - datetime.timedelta(hours=1),
             status=states.Event.UNDONE),
        dict(event_type=states.Event.END, time=end,
             status=states.Event.UNDONE),
    ]
    return leases_db.lease_get(admin_context(), leases_db.lease_create(
        admin_context(), dict(
            name=name or 'Reservation %s' % uuid.uuid4(), project_id=project,
            user_id='reserve-bot', start=start, end=end,
            status=status or states.Lease.PENDING), [reservation], events))
