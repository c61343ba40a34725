"""Rolling upgrades: N and N-1 daemons side by side over the RPC APIs.

The first release is the baseline: every method is 1.0, but the
manager's diagnose and doctor (1.1), its methods of spot devices (1.2)
and the detach of a spot device by its spot domain's project (1.3), and
the worker's promote_standby (1.1) and share_lease (1.2). A
server of version N answers every 1.x message up to N, so an N-1 client
keeps working against it; an N client capped by [upgrade_levels]
refuses, clearly, a method newer than its cap instead of sending it.
Releases to come are stood for here by a method of a made-up 1.4."""
import datetime
import threading
import time

import oslo_messaging as messaging
import pytest

from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import lease_request
from reserve.common import rpc
from reserve import conf as reserve_conf  # noqa: F401 (registers options)
from reserve.manager import manager
from reserve.manager import rpcapi as manager_rpcapi
from reserve.worker import rpcapi as worker_rpcapi
from reserve.worker import worker
from tests.fixtures import rpc_servers

# The version of a method the next release might add.
NEXT = '1.4'


class BaselineManager:
    """A reserve-manager of the first release (RPC 1.0)."""
    target = messaging.Target(version='1.0')

    def __init__(self):
        self.calls = []
        self.got = threading.Event()

    def create_lease(self, context, lease_values):
        self.calls.append('create_lease')
        return {'id': 'lease-1', 'name': lease_values['name']}

    def host_domains(self, context, host_id, name=None):
        self.calls.append('host_domains')
        return []

    def sync_lease(self, context, lease_id):
        self.calls.append('sync_lease')
        self.got.set()


class NextManager(BaselineManager):
    """A reserve-manager of the next release: 1.4 adds forecast."""
    target = messaging.Target(version=NEXT)

    def forecast(self, context, host_id):
        self.calls.append('forecast')
        self.got.set()
        return {'host_id': host_id}


class NextManagerAPI(manager_rpcapi.ManagerAPI):
    """The next release's client: its new method needs 1.4."""
    RPC_API_VERSION = NEXT

    def forecast(self, context, host_id):
        return self._call(context, 'forecast', version=NEXT,
                          host_id=host_id)


class NextWorkerAPI(worker_rpcapi.WorkerAPI):
    RPC_API_VERSION = NEXT

    def recount(self, context, booking_id):
        self._cast(context, 'recount', version=NEXT, booking_id=booking_id)


@pytest.fixture
def serve(override):
    with rpc_servers.serving('fake://') as start:
        yield start


def ctx():
    return reserve_context.get_admin_context()


def _public(cls):
    return {name for name in vars(cls)
            if not name.startswith('_') and callable(getattr(cls, name))}


def test_both_sides_speak_the_same_version():
    for client, server, version in (
            (manager_rpcapi.ManagerAPI, manager.LeaseManager, '1.3'),
            (worker_rpcapi.WorkerAPI, worker.BookingWorker, '1.2')):
        assert client.RPC_API_VERSION == server.target.version == version


def test_a_client_capped_below_1_1_refuses_diagnose(override):
    override('manager', '1.0', group='upgrade_levels')
    with pytest.raises(exception.RPCVersionCapped) as raised:
        manager_rpcapi.ManagerAPI(timeout=10).diagnose(ctx(), 'reservation',
                                                       'b-1')
    assert 'diagnose needs RPC 1.1' in str(raised.value)


def test_a_client_capped_at_1_2_refuses_the_spot_detach(override):
    # A manager of the release before knows the spot devices but not the
    # detach by a spot domain's project.
    override('manager', '1.2', group='upgrade_levels')
    with pytest.raises(exception.RPCVersionCapped) as raised:
        manager_rpcapi.ManagerAPI(timeout=10).detach_spot_device(
            ctx(), 'device-1', 'vm-1', 'project-b')
    assert raised.value.code == 503
    assert ('detach_spot_device needs RPC 1.3 and [upgrade_levels] '
            'manager caps messages at 1.2' in str(raised.value))


def test_a_worker_client_capped_at_1_1_refuses_share_lease(override):
    # The repair task applies the shares the cast could not carry.
    override('worker', '1.1', group='upgrade_levels')
    with pytest.raises(exception.RPCVersionCapped) as raised:
        worker_rpcapi.WorkerAPI().share_lease(ctx(), 'b-1')
    assert 'share_lease needs RPC 1.2' in str(raised.value)


def test_every_method_a_client_sends_its_server_has():
    assert _public(manager_rpcapi.ManagerAPI) <= _public(manager.LeaseManager)
    assert _public(worker_rpcapi.WorkerAPI) <= _public(worker.BookingWorker)


def test_a_baseline_client_talks_to_a_next_server(serve):
    server = serve(NextManager())
    api = manager_rpcapi.ManagerAPI(timeout=10)
    start = datetime.datetime(2030, 1, 1)
    request = lease_request.LeaseRequest(
        'x', 'project-a', 'alice', start, start + datetime.timedelta(hours=1),
        ({'resource_type': 'flavor:instance'},), 'booking', 'b-1')
    assert api.create_lease(ctx(), request)['id'] == 'lease-1'
    assert api.host_domains(ctx(), 'h') == []
    assert server.calls == ['create_lease', 'host_domains']


def test_a_server_refuses_a_version_newer_than_its_own(serve):
    serve(BaselineManager())
    with pytest.raises((messaging.UnsupportedVersion,
                        messaging.RemoteError)):
        NextManagerAPI(timeout=10).forecast(ctx(), 'h')


def test_a_client_capped_at_the_baseline_refuses_a_newer_call(serve,
                                                              override):
    override('manager', '1.0', group='upgrade_levels')
    old = serve(BaselineManager())
    api = NextManagerAPI(timeout=10)
    with pytest.raises(exception.RPCVersionCapped) as raised:
        api.forecast(ctx(), 'h')
    assert raised.value.code == 503
    assert ('forecast needs RPC 1.4 and [upgrade_levels] manager caps '
            'messages at 1.0' in str(raised.value))
    # What the baseline has keeps working, casts included.
    assert api.host_domains(ctx(), 'h') == []
    api.sync_lease(ctx(), 'lease-1')
    assert old.got.wait(10)
    assert old.calls == ['host_domains', 'sync_lease']


def test_a_capped_worker_client_refuses_a_newer_cast(serve, override):
    override('worker', '1.0', group='upgrade_levels')
    with pytest.raises(exception.RPCVersionCapped) as raised:
        NextWorkerAPI().recount(ctx(), 'b-1')
    assert '[upgrade_levels] worker caps messages at 1.0' in str(
        raised.value)


def test_a_worker_client_capped_at_1_0_refuses_promote_standby(override):
    override('worker', '1.0', group='upgrade_levels')
    with pytest.raises(exception.RPCVersionCapped) as raised:
        worker_rpcapi.WorkerAPI().promote_standby(ctx(), 'b-1')
    assert 'promote_standby needs RPC 1.1' in str(raised.value)


def test_without_a_cap_the_newer_call_reaches_a_next_server(serve):
    server = serve(NextManager())
    assert NextManagerAPI(timeout=10).forecast(ctx(), 'h') == {
        'host_id': 'h'}
    assert server.calls == ['forecast']


class BaselineWorker:
    target = messaging.Target(version='1.0')

    def __init__(self):
        self.calls = []
        self.got = threading.Event()

    def create_device_lease(self, context, device_reservation_id):
        self.calls.append(('create_device_lease', device_reservation_id))
        self.got.set()


def test_device_casts_reach_a_worker_capped_at_the_baseline(serve, override):
    override('worker', '1.0', group='upgrade_levels')
    server = serve(BaselineWorker(), topic=rpc.WORKER_TOPIC)
    worker_rpcapi.WorkerAPI().create_device_lease(ctx(), 'rsv-1')
    assert server.got.wait(10)
    time.sleep(0.1)
    assert server.calls == [('create_device_lease', 'rsv-1')]
