"""Secrets stay secret: no token on the message bus, no internals in what
a member reads (status_reason, last_error, mails), the database password
masked in the all-in-one's banner, the access log line escaped."""
import json
import logging
import sys

from oslo_messaging._drivers import common as messaging_common
from oslo_messaging import transport as messaging_transport
import pytest

from reserve.cmd import all_in_one
from reserve.cmd import api as api_cmd
from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import rpc
from reserve.common import states
from reserve.db import bookings as bookings_db
from reserve.manager import events as manager_events
from reserve.manager import owners
from reserve.manager import rpcapi as manager_rpcapi
from reserve.notification.mail import render
from reserve import plugins
from reserve.virt import exception as virt_exception
from tests.fixtures import database
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import CONF
from tests.functional.api_fixtures import future
from tests.functional.api_fixtures import make_booking
from tests.functional.api_fixtures import make_flavor
from tests.functional.api_fixtures import make_host
from tests.functional.api_fixtures import make_lease
from tests.functional.hostile.http import assert_http_error

TOKEN = 'gAAAAABsecret-keystone-token-of-alice'
# What a failing cloud or database puts in an exception's text.
INTERNALS = ('http://10.0.0.5:8778', 'SELECT', 'pymysql', 'Traceback',
             'hunter2')
LEAKY_TEXT = ('POST http://10.0.0.5:8778/resource_providers answered 500: '
              '(pymysql.err.OperationalError) (1205, "Lock wait timeout") '
              '[SQL: SELECT * FROM hosts WHERE password=\'hunter2\']')


def _no_internals(text):
    for secret in INTERNALS:
        assert secret not in text, (secret, text)


@pytest.fixture
def wire(monkeypatch):
    """What the transports are given to send: (kind, context) pairs."""
    sent = []
    real_send = messaging_transport.Transport._send
    real_notify = messaging_transport.Transport._send_notification

    def send(self, target, ctxt, message, *args, **kwargs):
        sent.append(('rpc', ctxt))
        return real_send(self, target, ctxt, message, *args, **kwargs)

    def notify(self, target, ctxt, message, *args, **kwargs):
        sent.append(('notification', ctxt))
        return real_notify(self, target, ctxt, message, *args, **kwargs)

    monkeypatch.setattr(messaging_transport.Transport, '_send', send)
    monkeypatch.setattr(messaging_transport.Transport, '_send_notification',
                        notify)
    return sent


def test_a_booking_cast_carries_no_token(http, wire):
    make_flavor('gpu.a100')
    made = http.post('member_a', '/v1/reservations', headers={
        'X-Auth-Token': TOKEN}, json={
            'flavor_id': 'gpu.a100', 'start': future(24),
            'end': future(48)})
    assert made.status_code == 201, made.text
    casts = [ctxt for kind, ctxt in wire if kind == 'rpc']
    assert casts, wire
    for ctxt in casts:
        assert TOKEN not in json.dumps(ctxt)
        assert 'auth_token' not in ctxt
        # Who asked still travels.
        assert ctxt['project_id'] == 'project-a'


def test_a_notification_carries_no_token(api, wire):  # noqa: F811
    # oslo.messaging's notifier redacts the context too; the serializer
    # would drop the token anyway.
    ctxt = reserve_context.RequestContext(
        user_id='alice', project_id='project-a', auth_token=TOKEN,
        roles=['member'])
    rpc.get_notifier('reserve.manager').info(ctxt, 'lease.create',
                                             {'id': 'x'})
    sent = [c for kind, c in wire if kind == 'notification']
    assert sent and all(TOKEN not in json.dumps(c) for c in sent)


def _remote_cloud_error():
    """A CloudError as the worker gets it from the manager over RPC: its
    str() carries the manager's traceback."""
    try:
        raise exception.CloudError(service='placement', reason=LEAKY_TEXT)
    except exception.CloudError:
        data = messaging_common.serialize_remote_exception(sys.exc_info())
    return messaging_common.deserialize_remote_exception(
        data, rpc.ALLOWED_EXMODS)


def test_a_cloud_failure_reaches_members_in_reserves_words(http):
    remote = _remote_cloud_error()
    assert isinstance(remote, exception.CloudError)
    assert 'Traceback' in str(remote)  # what was stored before
    booking = make_booking()
    # The manager refuses the lease over it: the booking's ERROR is its.
    owners.refused(admin_context(), states.Owner.BOOKING, booking.id,
                   remote)
    shown = http.get('member_a', '/v1/reservations/%s' % booking.id)
    assert shown.status_code == 200
    reservation = shown.json()['reservation']
    assert reservation['status'] == states.Booking.ERROR
    assert 'placement' in reservation['status_reason']
    _no_internals(reservation['status_reason'])
    # The mail the user gets about it.
    mail = render.build_message(
        'cancelled', bookings_db.booking_get(admin_context(), booking.id),
        'alice@example.org')
    assert 'placement' in mail.get_content()
    _no_internals(mail.as_string())


def test_an_unexpected_failure_is_an_internal_error_with_its_request_id(
        http, monkeypatch, caplog):
    host = make_host()
    lease = make_lease(host=host)
    plugin = plugins.get_plugin('flavor:instance')

    def on_start(context, lease, reservation):
        raise RuntimeError(LEAKY_TEXT)

    monkeypatch.setattr(plugin, 'on_start', on_start)
    start = [e for e in database.lease_events(admin_context(), lease.id)
             if e.event_type == states.Event.START][0]
    context = admin_context()
    with caplog.at_level(logging.ERROR):
        assert manager_events.EventRunner().run(context, start) is False
    shown = http.get('member_a', '/v1/leases/%s' % lease.id)
    assert shown.status_code == 200, shown.text
    lease_view = shown.json()['lease']
    said = 'internal error, request id %s' % context.request_id
    assert said in lease_view['status_reason']
    errors = [e['last_error'] for e in lease_view['events'] if e['last_error']]
    assert errors == [said]
    _no_internals(json.dumps(lease_view))
    # The whole exception is in the log, once, with that request id.
    logged = [r for r in caplog.records if LEAKY_TEXT in (
        r.getMessage() + str(r.exc_info and r.exc_info[1]))]
    assert len(logged) == 1
    assert context.request_id in logged[0].getMessage()


def test_the_all_in_one_banner_masks_the_database_password(api):
    CONF.set_override('connection',
                      'mysql+pymysql://reserve:hunter2@db.example/reserve',
                      group='database')
    try:
        text = all_in_one.banner(['gpu-host-1'])
    finally:
        CONF.clear_override('connection', group='database')
    assert 'hunter2' not in text
    assert 'mysql+pymysql://reserve:***@db.example/reserve' in text


def test_the_access_log_escapes_the_path(http, caplog):
    with caplog.at_level(logging.INFO, logger='reserve.cmd.api'):
        response = http.get(
            'member_a', '/v1/reservations/x%0A127.0.0.1%20%22GET%20/%22%20'
                        '200%1B%5B31m')
    assert response.status_code == 404
    lines = [r.getMessage() for r in caplog.records
             if r.name == api_cmd.LOG.logger.name]
    assert lines
    line = lines[-1]
    assert '\n' not in line and '\x1b' not in line
    assert '\\x0a127.0.0.1 \\"GET /\\" 200\\x1b[31m' in line


def test_a_failing_cloud_is_answered_without_its_text(http, monkeypatch,
                                                      caplog):
    def fail(self, context, values):
        raise virt_exception.VirtError(uri='qemu+ssh://root@10.0.0.9/system',
                                       reason='open: ' + LEAKY_TEXT)

    monkeypatch.setattr(manager_rpcapi.ManagerAPI, 'create_host', fail)
    with caplog.at_level(logging.ERROR):
        response = http.post('admin', '/v1/hosts', json={'name': 'gpu1'})
    detail = assert_http_error(response, 502, 'libvirt')
    _no_internals(response.text)
    assert '10.0.0.9' not in detail
    request_id = response.json()['errors'][0]['request_id']
    assert any(request_id in r.getMessage() and LEAKY_TEXT in r.getMessage()
               for r in caplog.records)
