"""The four services in one process over the in-memory bus, as
reserve-all-in-one runs them: every hop is a real oslo.messaging cast,
call or notification (kombu+memory), the API is the real WSGI stack,
placement is real, nova is the double of tests.fakes.nova."""
import datetime
import time
import uuid

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg
import pytest
import webtest

from reserve.api import app as api_app
from reserve.common import nova
from reserve.common import policy
from reserve.common import rpc
from reserve.common import timeutils
from reserve.manager import notify
from reserve.manager import service as manager_service
from reserve.notification import service as notification_service
from reserve.notification import sync
from reserve import plugins
from reserve.worker import service as worker_service
from tests.fakes import nova as fake_nova
from tests.fixtures import database
from tests.fixtures import placement as placement_fixture

CONF = cfg.CONF
MEMBER = {'X-User-Id': 'alice', 'X-Project-Id': 'project-a',
          'X-Roles': 'member,reader'}
ADMIN = {'X-User-Id': 'root', 'X-Project-Id': 'admin',
         'X-Roles': 'admin,member,reader'}


@pytest.fixture
def running(tmp_path, monkeypatch):
    CONF([], project='reserve', default_config_files=[])
    policy.reset()
    server = placement_fixture.PlacementServer().start()
    overrides = [('transport_url', 'kombu+memory:////', None),
                 ('auth_strategy', 'noauth', 'api'),
                 ('auth_type', 'admin_token', 'placement'),
                 ('minutes_before_end_lease', 0, 'manager'),
                 ('server_delete_poll_interval', 0.1, 'nova')]
    CONF.register_opts(ks_loading.get_auth_plugin_conf_options('admin_token'),
                       group='placement')
    overrides += [('endpoint', server.url, 'placement'),
                  ('token', 'admin', 'placement')]
    for name, value, group in overrides:
        CONF.set_override(name, value, group=group)
    database.use_database('sqlite:///%s' % (tmp_path / 'aio.sqlite'))
    cloud = fake_nova.FakeCloud()
    monkeypatch.setattr(nova.NovaClient, 'nova',
                        property(lambda self: cloud.nova))
    plugins._PLUGINS.clear()
    rpc.cleanup()
    notify.reset()
    sync._NOTIFIER = None
    rp = server.add_compute_node('aio-host', str(uuid.uuid4()), vcpus=8)
    cloud.add_hypervisor('aio-host', rp, vcpus=8)
    cloud.nova.flavors.create('small', 1024, 2, 10, flavorid='small')
    services = [manager_service.ManagerService(),
                worker_service.WorkerService(),
                notification_service.NotificationService()]
    for service in services:
        service.start()
    app = webtest.TestApp(api_app.setup_app(),
                          extra_environ={'REMOTE_ADDR': '127.0.0.1'})
    try:
        yield app, cloud
    finally:
        for service in reversed(services):
            service.stop()
        rpc.cleanup()
        plugins._PLUGINS.clear()
        server.stop()
        for name, _, group in overrides:
            CONF.clear_override(name, group=group)


def _iso(delta):
    return timeutils.isoformat(timeutils.utcnow() +
                               datetime.timedelta(seconds=delta))


def _wait_status(app, booking_id, status, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        booking = app.get('/v1/reservations/%s' % booking_id,
                          headers=MEMBER).json['reservation']
        if booking['status'] == status:
            return booking
        assert booking['status'] != 'ERROR', booking
        time.sleep(0.1)
    raise AssertionError('booking is %s, not %s' % (booking['status'],
                                                    status))


def _catalogue(app, name, nova_flavor_id, slots=4):
    """The catalogue entry bookings name, mapping a nova flavor."""
    return app.post_json('/v1/flavors', {
        'name': name, 'nova_flavor_id': nova_flavor_id, 'slots': slots},
        headers=ADMIN).json['flavor']


def test_booking_goes_active_and_complete_over_the_bus(running):
    app, cloud = running
    host = app.post_json('/v1/hosts', {'name': 'aio-host'},
                         headers=ADMIN).json['host']
    assert host['service_name'] == 'aio-host'
    _catalogue(app, 'gpu.small', 'small')

    booking = app.post_json('/v1/reservations', {
        'flavor_id': 'gpu.small', 'start': _iso(2), 'end': _iso(5),
        'instance_count': 2}, headers=MEMBER).json['reservation']
    allocated = _wait_status(app, booking['id'], 'ALLOCATED')
    rsv_id = allocated['compute_flavor']
    assert cloud.flavors[rsv_id].name == 'reservation:%s' % rsv_id

    active = _wait_status(app, booking['id'], 'ACTIVE')
    # The manager woke for the start: well before its 10 s poll.
    started = datetime.datetime.fromisoformat(active['updated_at'][:-1])
    start = datetime.datetime.fromisoformat(booking['start'][:-1])
    assert (started - start).total_seconds() <= 2
    assert cloud.access[rsv_id] == {'project-a'}

    _wait_status(app, booking['id'], 'COMPLETE')
    assert rsv_id not in cloud.flavors
    lease = app.get('/v1/leases/%s' % allocated['lease_id'],
                    headers=MEMBER).json['lease']
    assert lease['status'] == 'TERMINATED'


def test_the_catalogue_refuses_what_could_never_be_placed(running):
    app, cloud = running
    app.post_json('/v1/hosts', {'name': 'aio-host'}, headers=ADMIN)
    # A nova flavor that nova does not know: 400 naming it, no entry.
    response = app.post_json('/v1/flavors', {
        'name': 'gpu.ghost', 'nova_flavor_id': 'no-such-flavor',
        'slots': 4}, headers=ADMIN, expect_errors=True)
    assert response.status_int == 400
    assert 'no-such-flavor' in response.json['errors'][0]['detail']
    # One bigger than every enrolled host: 409, no entry.
    cloud.nova.flavors.create('huge', 5000000, 2, 10, flavorid='huge')
    response = app.post_json('/v1/flavors', {
        'name': 'gpu.huge', 'nova_flavor_id': 'huge', 'slots': 4},
        headers=ADMIN, expect_errors=True)
    assert response.status_int == 409
    assert 'fits on no enrolled host' in \
        response.json['errors'][0]['detail']
    names = [f['name'] for f in app.get('/v1/flavors',
                                        headers=ADMIN).json['flavors']]
    assert names == []
