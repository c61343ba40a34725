"""Rolling upgrades: N and N-1 daemons side by side over the RPC APIs.

A server of version N answers every 1.x message up to N, so an N-1
client keeps working against it; an N client capped by
[upgrade_levels] never sends an older server what it cannot take."""
import datetime
import threading
import time

from oslo_config import cfg
import oslo_messaging as messaging
from oslo_messaging import conffixture
import pytest

from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import lease_request
from reserve.common import rpc
from reserve import conf as reserve_conf  # noqa: F401 (registers options)
from reserve.manager import manager
from reserve.manager import rpcapi as manager_rpcapi
from reserve.plugins import flavor_instance
from reserve.worker import rpcapi as worker_rpcapi
from reserve.worker import worker

CONF = cfg.CONF


class OldManager:
    """A reserve-manager of the previous release (RPC 1.1): it has
    host_domains (1.1) but not sync_lease (1.2)."""
    target = messaging.Target(version='1.1')

    def __init__(self):
        self.calls = []
        self.got = threading.Event()

    def create_lease(self, context, lease_values):
        self.calls.append('create_lease')
        self.got.set()
        return {'id': 'lease-1', 'name': lease_values['name']}

    def host_domains(self, context, host_id, name=None):
        self.calls.append('host_domains')
        return []


class NewManager(OldManager):
    target = messaging.Target(version='1.2')

    def sync_lease(self, context, lease_id):
        self.calls.append('sync_lease')
        self.got.set()


@pytest.fixture
def serve(override):
    conffixture.ConfFixture(CONF)
    CONF.set_override('transport_url', 'fake://')
    rpc.cleanup()
    servers = []

    def start(endpoint):
        server = rpc.get_server(rpc.MANAGER_TOPIC, endpoint.target.version,
                                [endpoint])
        server.start()
        servers.append(server)
        return endpoint

    yield start
    for server in servers:
        server.stop()
        server.wait()
    rpc.cleanup()
    CONF.clear_override('transport_url')


def ctx():
    return reserve_context.get_admin_context()


def test_the_servers_speak_the_version_their_clients_send():
    assert manager.LeaseManager.target.version == \
        manager_rpcapi.ManagerAPI.RPC_API_VERSION
    assert worker.BookingWorker.target.version == \
        worker_rpcapi.WorkerAPI.RPC_API_VERSION


def test_a_client_of_the_previous_release_talks_to_a_new_server(serve):
    new = serve(NewManager())
    old_client = rpc.get_client(rpc.MANAGER_TOPIC, '1.1', timeout=10)
    assert old_client.prepare(version='1.0').call(
        ctx(), 'create_lease', lease_values={'name': 'x'})['id'] == 'lease-1'
    assert old_client.prepare(version='1.1').call(
        ctx(), 'host_domains', host_id='h') == []
    assert new.calls == ['create_lease', 'host_domains']


def test_a_server_refuses_a_version_newer_than_its_own(serve):
    serve(OldManager())
    client = rpc.get_client(rpc.MANAGER_TOPIC, '1.2', timeout=10)
    with pytest.raises((messaging.UnsupportedVersion,
                        messaging.RemoteError)):
        client.prepare(version='1.2').call(ctx(), 'host_domains',
                                           host_id='h')


def test_a_capped_client_sends_an_old_server_only_what_it_takes(serve,
                                                                override):
    override('manager', '1.1', group='upgrade_levels')
    # Whichever manager answers (here one that would take it), the cap
    # holds: 1.2 repairs are left to the managers' periodic task ...
    server = serve(NewManager())
    api = manager_rpcapi.ManagerAPI(timeout=10)
    api.sync_lease(ctx(), 'lease-1')
    # ... while what 1.1 has keeps working.
    assert api.host_domains(ctx(), 'h') == []
    assert api.create_lease(ctx(), _request([]))['id'] == 'lease-1'
    time.sleep(0.5)  # a cast sent anyway would have arrived by now
    assert server.calls == ['host_domains', 'create_lease']


def test_a_call_the_cap_forbids_is_a_503_naming_the_cap(serve, override):
    override('manager', '1.0', group='upgrade_levels')
    old = serve(OldManager())
    api = manager_rpcapi.ManagerAPI(timeout=10)
    with pytest.raises(exception.RPCVersionCapped) as raised:
        api.host_domains(ctx(), 'h')
    assert raised.value.code == 503
    assert '[upgrade_levels] manager caps messages at 1.0' in str(
        raised.value)
    assert old.calls == []


def test_without_a_cap_the_new_casts_reach_a_new_server(serve):
    new = serve(NewManager())
    manager_rpcapi.ManagerAPI(timeout=10).sync_lease(ctx(), 'lease-1')
    assert new.got.wait(10)
    assert new.calls == ['sync_lease']


class NewWorker:
    """A reserve-worker of this release (1.1: the unit casts)."""
    target = messaging.Target(version='1.1')

    def __init__(self):
        self.calls = []
        self.got = threading.Event()

    def create_unit_lease(self, context, reservation_id):
        self.calls.append(('create_unit_lease', reservation_id))
        self.got.set()


def test_unit_casts_reach_a_new_worker(serve):
    server = rpc.get_server(rpc.WORKER_TOPIC, '1.1', [NewWorker()])
    endpoint = server.dispatcher.endpoints[0]
    server.start()
    try:
        api = worker_rpcapi.WorkerAPI()
        assert api.takes_units()
        api.create_unit_lease(ctx(), 'rsv-1')
        assert endpoint.got.wait(10)
    finally:
        server.stop()
        server.wait()
    assert endpoint.calls == [('create_unit_lease', 'rsv-1')]


def test_a_worker_capped_at_1_0_takes_no_unit_casts(serve, override):
    # The API and the reconciler then ask the manager themselves, as
    # the previous release did.
    override('worker', '1.0', group='upgrade_levels')
    assert not worker_rpcapi.WorkerAPI().takes_units()


def test_managers_capped_at_1_2_are_not_handed_the_desks_claims(serve,
                                                                override):
    # The API then sends the whole request to the manager, as before.
    assert manager_rpcapi.ManagerAPI(timeout=10).adopts_unit_claims()
    override('manager', '1.2', group='upgrade_levels')
    assert not manager_rpcapi.ManagerAPI(timeout=10).adopts_unit_claims()


class RecordingManager(NewManager):
    """A manager that keeps the lease requests it is sent."""
    target = messaging.Target(version='1.4')

    def create_lease(self, context, lease_values):
        self.calls.append(lease_values['reservations'])
        return {'id': 'lease-1', 'name': lease_values['name']}


_GLOSSARY_RESERVATIONS = [{
    'resource_type': 'flavor:instance', 'nova_flavor_id': 'g1.vgpu',
    'instance_count': 2, 'booking_id': 'b-1'}]


def _request(reservations):
    start = datetime.datetime(2030, 1, 1)
    return lease_request.LeaseRequest(
        'x', 'project-a', 'alice', start, start + datetime.timedelta(hours=1),
        tuple(reservations))


def test_a_new_manager_is_sent_the_glossary_names(serve):
    server = serve(RecordingManager())
    manager_rpcapi.ManagerAPI(timeout=10).create_lease(
        ctx(), _request(_GLOSSARY_RESERVATIONS))
    assert server.calls == [_GLOSSARY_RESERVATIONS]


def test_a_manager_capped_at_1_3_is_sent_the_names_it_knows(serve,
                                                            override):
    override('manager', '1.3', group='upgrade_levels')
    server = serve(RecordingManager())
    manager_rpcapi.ManagerAPI(timeout=10).create_lease(
        ctx(), _request(_GLOSSARY_RESERVATIONS))
    assert server.calls == [[{
        'resource_type': 'flavor:instance', 'flavor_id': 'g1.vgpu',
        'amount': 2, 'booking_id': 'b-1'}]]


def test_the_flavor_plugin_takes_a_previous_workers_names():
    plugin = flavor_instance.FlavorInstancePlugin(nova_client=object(),
                                                  placement_client=object())
    record = {'id': 'g1.vgpu', 'vcpus': 1}
    assert plugin.prepare(ctx(), {
        'resource_type': 'flavor:instance', 'flavor_id': 'g1.vgpu',
        'amount': 2, 'nova_flavor': record}) == {
        'resource_type': 'flavor:instance', 'nova_flavor_id': 'g1.vgpu',
        'instance_count': 2, 'nova_flavor': record}
