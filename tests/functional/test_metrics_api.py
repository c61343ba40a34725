"""GET /metrics: the Prometheus scrape of reserve-api, through the whole
WSGI stack.

The figures read from the database follow what the API and the manager
wrote (bookings made and cancelled, events run late, repairs counted,
devices discovered), and agree with /v1/flavors/availability; the
request latency is labelled by route template, never by URL; failed RPC
calls and database errors are counted; and who may scrape follows
[metrics] allowed_source_ranges and the policy rule reserve:metrics:get.

The API process's counters live as long as the process: a test reads
what one of its requests added (``Scrape.delta``), never a total.
"""
import datetime

from oslo_config import cfg
from prometheus_client import parser
import pytest

from reserve.api import app as api_app
from reserve.common import states
from reserve.common import timeutils
from reserve.db import deliveries as deliveries_db
from reserve.db import devices as devices_db
from reserve.db import events as events_db
from reserve.db import hosts as hosts_db
from tests.functional.api_fixtures import *  # noqa: F401,F403
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import iso
from tests.functional.api_fixtures import make_flavor
from tests.functional.api_fixtures import make_host
from tests.functional.api_fixtures import make_lease

CONF = cfg.CONF
TEXT_FORMAT = 'text/plain; version=0.0.4; charset=utf-8'


class Scrape:
    """The samples of one scrape: {(name, sorted labels): value}."""

    def __init__(self, response):
        assert response.status_int == 200, response.text
        self.text = response.text
        self.families = {f.name: f for f in
                         parser.text_string_to_metric_families(self.text)}
        self.samples = {}
        for family in self.families.values():
            for sample in family.samples:
                key = (sample.name, tuple(sorted(sample.labels.items())))
                self.samples[key] = sample.value

    def value(self, name, **labels):
        return self.samples.get((name, tuple(sorted(labels.items()))), 0)

    def labels_of(self, name):
        return [dict(labels) for sample_name, labels in self.samples
                if sample_name == name]

    def delta(self, before, name, **labels):
        return self.value(name, **labels) - before.value(name, **labels)


def scrape(api, headers=ADMIN):
    return Scrape(api.get('/metrics', headers=headers))


def test_answers_in_the_prometheus_text_format(api):
    response = api.get('/metrics', headers=ADMIN)
    assert response.status_int == 200
    assert response.headers['Content-Type'] == TEXT_FORMAT
    assert response.headers['Cache-Control'] == 'no-store'
    found = Scrape(response)
    for name in ('reserve_bookings', 'reserve_device_reservations',
                 'reserve_gpu_devices', 'reserve_events_due',
                 'reserve_event_lateness_seconds', 'reserve_repairs',
                 'reserve_hosts_replaced', 'reserve_metrics_database_up',
                 'reserve_api_request_duration_seconds',
                 'reserve_api_rpc_failures', 'reserve_api_db_errors'):
        assert name in found.families, name
    assert found.value('reserve_metrics_database_up') == 1
    assert found.families['reserve_repairs'].type == 'counter'
    assert found.families['reserve_event_lateness_seconds'].type == \
        'histogram'
    # Every state has its sample, 0 when empty.
    assert {d['status'] for d in found.labels_of('reserve_bookings')} == \
        set(states.Booking.ALL)


def test_openmetrics_when_asked_and_head_without_body(api):
    response = api.get('/metrics', headers=dict(
        ADMIN, Accept='application/openmetrics-text; version=1.0.0'))
    assert response.headers['Content-Type'].startswith(
        'application/openmetrics-text')
    assert response.text.rstrip().endswith('# EOF')
    assert 'reserve_event_lateness_seconds gaugehistogram' in response.text
    head = api.head('/metrics', headers=ADMIN)
    assert head.status_int == 200
    assert head.body == b''


def test_other_methods_are_refused(api):
    response = api.post('/metrics', headers=ADMIN, expect_errors=True)
    assert_error(response, 405, 'reserve.method_not_allowed')
    assert response.headers['Allow'] == 'GET, HEAD'


def _booking_now(api, flavor, count, headers=MEMBER_A):
    now = timeutils.utcnow()
    response = api.post_json('/v1/reservations', {
        'flavor_id': flavor.id, 'instance_count': count,
        'start': iso(now - datetime.timedelta(seconds=30)),
        'end': iso(now + datetime.timedelta(hours=2))}, headers=headers)
    assert response.status_int == 201, response.text
    return response.json['reservation']


def _flavor_gauges(found, flavor):
    labels = {'flavor_id': flavor.id, 'flavor_name': flavor.name}
    return {name: found.value('reserve_flavor_%s_instances' % name,
                              **labels)
            for name in ('offered', 'available', 'reserved')}


def test_flavor_gauges_follow_bookings_and_agree_with_availability(
        api, casts):
    flavor = make_flavor('gpu.a100', slots=10)
    make_flavor('gpu.t4', slots=4)
    assert _flavor_gauges(scrape(api), flavor) == {
        'offered': 10, 'available': 10, 'reserved': 0}
    before = scrape(api)
    booking = _booking_now(api, flavor, 3)
    found = scrape(api)
    assert _flavor_gauges(found, flavor) == {
        'offered': 10, 'available': 7, 'reserved': 3}
    assert found.delta(before, 'reserve_bookings',
                       status=states.Booking.PENDING_CREATE) == 1
    # The same figures as the API's availability, for every flavor.
    listed = api.get('/v1/flavors/availability', headers=ADMIN).json
    for row in listed['availability']:
        labels = {'flavor_id': row['flavor_id'], 'flavor_name': row['name']}
        assert found.value('reserve_flavor_offered_instances',
                           **labels) == row['total']
        assert found.value('reserve_flavor_available_instances',
                           **labels) == row['available']
    # A cancel closes it: COMPLETE, and its slots are free again.
    api.delete('/v1/reservations/%s' % booking['id'], headers=MEMBER_A)
    after = scrape(api)
    assert after.delta(found, 'reserve_bookings',
                       status=states.Booking.PENDING_CREATE) == -1
    assert after.delta(found, 'reserve_bookings',
                       status=states.Booking.COMPLETE) == 1
    assert _flavor_gauges(after, flavor)['reserved'] == 0


def _event(lease, event_type):
    return [e for e in lease.events if e.event_type == event_type][0]


def test_event_lateness_and_events_due_come_from_the_events_table(api):
    lease = make_lease()
    now = timeutils.utcnow()
    ctx = admin_context()
    # The start ran 40 s late; the end is due and no manager took it.
    events_db.event_update(ctx, _event(lease, states.Event.START).id, {
        'time': now - datetime.timedelta(seconds=100),
        'taken_at': now - datetime.timedelta(seconds=60),
        'taken_by': 'manager-1', 'status': states.Event.DONE})
    events_db.event_update(ctx, _event(lease, states.Event.BEFORE_END).id, {
        'time': now - datetime.timedelta(seconds=50),
        'taken_at': now - datetime.timedelta(seconds=49),
        'taken_by': 'manager-1', 'status': states.Event.DONE})
    events_db.event_update(ctx, _event(lease, states.Event.END).id, {
        'time': now - datetime.timedelta(seconds=10)})
    found = scrape(api)
    bucket = 'reserve_event_lateness_seconds_bucket'
    start = states.Event.START
    assert found.value(bucket, event_type=start, le='30.0') == 0
    assert found.value(bucket, event_type=start, le='60.0') == 1
    assert found.value(bucket, event_type=start, le='+Inf') == 1
    assert found.value('reserve_event_lateness_seconds_gsum',
                       event_type=start) == 40
    assert found.value(bucket, event_type=states.Event.BEFORE_END,
                       le='1.0') == 1
    assert found.value('reserve_events_due', event_type=states.Event.END,
                       status=states.Event.UNDONE) == 1
    # An event due before the window is out of it.
    CONF.set_override('event_window', 90, group='metrics')
    try:
        later = scrape(api)
    finally:
        CONF.clear_override('event_window', group='metrics')
    assert later.value(bucket, event_type=start, le='+Inf') == 0
    assert later.value(bucket, event_type=states.Event.BEFORE_END,
                       le='+Inf') == 1


def test_repairs_and_hosts_replaced_count_the_deliveries(api):
    ctx = admin_context()
    now = timeutils.utcnow()
    for owner_id, owner_type in (('b-1', states.Owner.BOOKING),
                                 ('b-2', states.Owner.BOOKING),
                                 ('d-1', states.Owner.DEVICE_RESERVATION)):
        deliveries_db.delivery_open(ctx, {
            'owner_type': owner_type, 'owner_id': owner_id,
            'project_id': 'project-a', 'amount': 1, 'start': now,
            'end': now + datetime.timedelta(hours=1)})
    deliveries_db.delivery_add(ctx, states.Owner.BOOKING, 'b-1', repairs=2)
    deliveries_db.delivery_add(ctx, states.Owner.BOOKING, 'b-2', repairs=1,
                               hosts_replaced=1)
    deliveries_db.delivery_add(ctx, states.Owner.DEVICE_RESERVATION, 'd-1',
                               repairs=4)
    found = scrape(api)
    assert found.value('reserve_repairs_total',
                       owner_type=states.Owner.BOOKING) == 3
    assert found.value('reserve_repairs_total',
                       owner_type=states.Owner.DEVICE_RESERVATION) == 4
    assert found.value('reserve_hosts_replaced_total',
                       owner_type=states.Owner.BOOKING) == 1


def test_gpu_devices_by_host_and_state(api):
    ctx = admin_context()
    host = hosts_db.host_create(ctx, {
        'name': 'gpu-a100-01', 'kind': 'libvirt', 'reservable': True,
        'uri': 'qemu+tls://gpu-a100-01/system'}, {})

    def device(address, **values):
        return dict(values, pci_address=address,
                    name='pci_' + address.replace(':', '_').replace('.', '_'))

    devices_db.devices_sync(ctx, host.id, {
        '0000:17:00.0': device('0000:17:00.0'),
        '0000:31:00.0': device('0000:31:00.0', in_use_by=['domain vm-9']),
        '0000:4b:00.0': device('0000:4b:00.0')})
    # The last discovery did not find the third one.
    devices_db.devices_sync(ctx, host.id, {
        '0000:17:00.0': device('0000:17:00.0'),
        '0000:31:00.0': device('0000:31:00.0', in_use_by=['domain vm-9'])})
    found = scrape(api)
    counts = {labels['state']: found.value('reserve_gpu_devices', **labels)
              for labels in found.labels_of('reserve_gpu_devices')
              if labels['host'] == 'gpu-a100-01'}
    assert counts == {'available': 1, 'in-use': 1, 'missing': 1,
                      'reserved': 0, 'spot': 0}
    # The same states as /v1/devices shows.
    shown = api.get('/v1/devices', headers=ADMIN).json['devices']
    assert sorted(d['state'] for d in shown) == ['available', 'in-use',
                                                 'missing']


def test_latency_is_labelled_by_route_template(api):
    flavor = make_flavor('gpu.a100')
    host = make_host('gpu1.example.org')
    missing = '9d3f2b1e-0c4a-4d5e-8f6a-7b8c9d0e1f2a'
    before = scrape(api)
    api.get('/v1/reservations/%s' % missing, headers=ADMIN,
            expect_errors=True)
    api.get('/v1/flavors/%s' % flavor.name, headers=ADMIN)
    api.get('/v1/flavors/%s' % flavor.id, headers=ADMIN)
    api.get('/v1/flavors/availability', headers=ADMIN)
    api.get('/v1/hosts/%s/maintenance-windows' % host.name, headers=ADMIN)
    api.get('/no/such/place/%s' % missing, headers=ADMIN,
            expect_errors=True)
    found = scrape(api)
    count = 'reserve_api_request_duration_seconds_count'

    def added(route, status, method='GET'):
        return found.delta(before, count, method=method, route=route,
                           status=status)

    assert added('/v1/reservations/{reservation_id}', '404') == 1
    assert added('/v1/flavors/{flavor_ref}', '200') == 2
    assert added('/v1/flavors/availability', '200') == 1
    assert added('/v1/hosts/{host_ref}/maintenance-windows', '200') == 1
    assert added('other', '404') == 1
    routes = {labels['route'] for labels in found.labels_of(count)}
    # No id or name became a label: every route is a template.
    assert not [r for r in routes if missing in r or flavor.name in r or
                flavor.id in r or host.name in r]
    # The scrape before this one is timed too.
    assert added('/metrics', '200') == 1


def test_a_call_the_manager_does_not_answer_is_counted(
        api, short_rpc_timeout):
    before = scrape(api)
    response = api.post_json('/v1/hosts', {'name': 'gpu9.example.org'},
                             headers=ADMIN, expect_errors=True)
    assert_error(response, 503)
    found = scrape(api)
    assert found.delta(before, 'reserve_api_rpc_failures_total',
                       kind='call', topic='reserve-manager',
                       method='create_host', error='timeout') == 1


def test_a_call_with_an_argument_named_kind_is_counted(
        api, short_rpc_timeout):
    # The doctor's RPC has an argument ``kind`` of its own, as the
    # counter's label has: the call still reaches the bus as it is.
    before = scrape(api)
    response = api.get('/v1/diagnoses?kind=reservation',
                       headers=dict(ADMIN, **{
                           'OpenStack-API-Version': 'reserve 1.3'}),
                       expect_errors=True)
    assert_error(response, 503)
    found = scrape(api)
    assert found.delta(before, 'reserve_api_rpc_failures_total',
                       kind='call', topic='reserve-manager',
                       method='doctor', error='timeout') == 1


def test_database_errors_are_counted(api):
    make_flavor('gpu.h100', is_public=False, projects=['project-a'])
    before = scrape(api)
    response = api.post_json('/v1/flavors/gpu.h100/projects',
                             {'project_id': 'project-a'}, headers=ADMIN,
                             expect_errors=True)
    assert_error(response, 409, 'reserve.grant_exists')
    found = scrape(api)
    assert found.delta(before, 'reserve_api_db_errors_total',
                       kind='IntegrityError') == 1


# Who may scrape -------------------------------------------------------------

def test_without_a_listed_source_the_policy_decides(api):
    response = api.get('/metrics', headers=MEMBER_A, expect_errors=True)
    assert_error(response, 403, 'reserve.forbidden',
                 'reserve:metrics:get')
    assert api.get('/metrics', headers=ADMIN).status_int == 200


@pytest.fixture
def open_to_loopback(api):
    CONF.set_override('allowed_source_ranges', ['127.0.0.0/8', '::1'],
                      group='metrics')
    yield webtest_app(api)
    CONF.clear_override('allowed_source_ranges', group='metrics')


def webtest_app(api):
    """A new client of the application, made after the overrides."""
    import webtest
    return webtest.TestApp(api_app.setup_app(),
                           extra_environ={'REMOTE_ADDR': '127.0.0.1'})


def test_a_listed_source_scrapes_without_the_policy(open_to_loopback):
    # A member would be refused by the rule: from a listed network the
    # rule is not asked.
    response = open_to_loopback.get('/metrics', headers=MEMBER_A)
    assert response.status_int == 200
    # Through a proxy the peer says nothing of the client.
    proxied = open_to_loopback.get('/metrics', headers=dict(
        MEMBER_A, **{'X-Forwarded-For': '127.0.0.1'}), expect_errors=True)
    assert_error(proxied, 403, 'reserve.forbidden')


def test_with_keystone_an_unlisted_source_needs_a_token(api):
    CONF.set_override('auth_strategy', 'keystone', group='api')
    CONF.set_override('www_authenticate_uri', 'http://keystone.test/v3',
                      group='keystone_authtoken')
    CONF.set_override('allowed_source_ranges', ['192.0.2.0/24'],
                      group='metrics')
    try:
        app = webtest_app(api)
        listed = app.get('/metrics',
                         extra_environ={'REMOTE_ADDR': '192.0.2.7'})
        assert listed.status_int == 200
        assert 'reserve_bookings' in listed.text
        unlisted = app.get('/metrics', expect_errors=True,
                           extra_environ={'REMOTE_ADDR': '198.51.100.7'})
        assert_error(unlisted, 401, 'reserve.unauthorized')
        assert unlisted.headers['WWW-Authenticate'] == \
            'Keystone uri="http://keystone.test/v3"'
    finally:
        CONF.set_override('auth_strategy', 'noauth', group='api')
        CONF.clear_override('www_authenticate_uri',
                            group='keystone_authtoken')
        CONF.clear_override('allowed_source_ranges', group='metrics')


def test_a_bad_source_range_stops_the_api_from_starting(api):
    CONF.set_override('allowed_source_ranges', ['10.0.0.0/33'],
                      group='metrics')
    try:
        with pytest.raises(ValueError, match='10.0.0.0/33'):
            api_app.setup_app()
    finally:
        CONF.clear_override('allowed_source_ranges', group='metrics')


def test_disabled_metrics_are_a_path_like_any_other(api):
    CONF.set_override('enabled', False, group='metrics')
    try:
        response = webtest_app(api).get('/metrics', headers=ADMIN,
                                        expect_errors=True)
    finally:
        CONF.clear_override('enabled', group='metrics')
    assert_error(response, 404)
