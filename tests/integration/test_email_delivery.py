"""The user mails, received for real.

A real SMTP server on loopback (aiosmtpd) that wants STARTTLS (its
certificate signed by a CA the test makes) and a login, and a keystone on
loopback that answers GET /v3/users/{id} behind password auth
(tests.fakes.keystone). A booking lives its whole life and the user's
mailbox gets four mails: allocated, before_end (the DELETED warning),
start ("your reservation is ready") and end.

* in one process: the four services over the in-memory bus, as
  reserve-all-in-one runs them (placement real, nova the double);
* as separate daemons over RabbitMQ on MariaDB against the loopback nova,
  as production runs them: the worker emits the allocated notification,
  the reserve-notification process mails.
"""
import datetime
import re
import time
import uuid

from oslo_config import cfg
import pytest

from tests.fakes import keystone as fake_keystone
from tests.fakes import smtp as fake_smtp
from tests.fixtures import backends
from tests.functional.test_all_in_one import ADMIN
# The all-in-one services, as tests/functional/test_all_in_one runs them.
from tests.functional.test_all_in_one import running  # noqa: F401
from tests.integration import cloud as cloud_mod
from tests.integration import reserve_daemons

pytestmark = pytest.mark.integration
CONF = cfg.CONF

SENDER = 'GPU desk <gpu@cloud.example>'
SMTP_LOGIN = ('reserve-mailer', 'm41l-s3cret')
EVENTS = {'allocated', 'start', 'before_end', 'end'}


@pytest.fixture(scope='module')
def tls(tmp_path_factory):
    return fake_smtp.tls_files(tmp_path_factory.mktemp('smtp-tls'))


@pytest.fixture
def smtp_server(tls):
    server = fake_smtp.SMTPServer(starttls=True, tls=tls, login=SMTP_LOGIN)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def keystone():
    server = fake_keystone.FakeKeystone().start()
    server.alice = server.add_user('alice', email='alice@uni.example.edu')
    server.bob = server.add_user('bob')          # no address in keystone
    yield server
    server.stop()


def email_options(smtp_server, tls):
    return {'driver': 'smtp', 'from_address': SENDER,
            'reply_to': 'help@cloud.example',
            'smtp_host': smtp_server.host, 'smtp_port': smtp_server.port,
            'smtp_starttls': True, 'smtp_ca_file': tls[0],
            'smtp_username': SMTP_LOGIN[0],
            'smtp_password': SMTP_LOGIN[1], 'smtp_timeout': 10}


@pytest.fixture
def mail_config(smtp_server, keystone, tls):
    """[email] and [keystone] of the in-process services."""
    options = email_options(smtp_server, tls)
    for name, value in options.items():
        CONF.set_override(name, value, group='email')
    undo = fake_keystone.configure(CONF, keystone)
    yield
    for name in options:
        CONF.clear_override(name, group='email')
    undo()


def _iso(seconds):
    when = datetime.datetime.utcnow() + datetime.timedelta(seconds=seconds)
    return when.replace(microsecond=0).isoformat() + 'Z'


_wait = cloud_mod.wait_for


def _by_event(mails):
    found = {}
    for mail in mails:
        event = mail.message['X-Reserve-Event']
        assert event not in found, 'two %s mails' % event
        found[event] = mail
    return found


def check_mails(mails, booking, address, flavor_name):
    """The four mails of ``booking`` (its API view once ALLOCATED)."""
    assert len(mails) == 4, [m.subject for m in mails]
    by_event = _by_event(mails)
    assert set(by_event) == EVENTS
    rsv_flavor = booking['compute_flavor']
    start, end = booking['start'], booking['end']
    for event, mail in by_event.items():
        # The envelope and the headers: to the user, from the desk, over
        # TLS, after a login.
        assert mail.rcpt_tos == [address]
        assert mail.mail_from == 'gpu@cloud.example'
        assert mail.tls
        assert mail.message['To'] == address
        assert mail.message['From'] == SENDER
        assert mail.message['Reply-To'] == 'help@cloud.example'
        assert mail.message['Auto-Submitted'] == 'auto-generated'
        assert mail.message['X-Reserve-Reservation-Id'] == booking['id']
        assert mail.subject.startswith('[reserve] ')
        body = mail.body
        assert re.search(r'Reservation:\s+%s' % booking['id'], body)
        assert re.search(r'Boot flavor:\s+%s' % rsv_flavor, body)
        assert end in body                       # ISO 8601, Z: UTC
        assert 'All times are UTC.' in body
        assert '$' not in body

    allocated = by_event['allocated']
    assert allocated.subject.startswith(
        '[reserve] Reservation confirmed: 1 x %s from ' % flavor_name)
    assert start in allocated.body

    ready = by_event['start']
    assert ready.subject.startswith(
        '[reserve] Your reservation is ready: 1 x %s until ' % flavor_name)
    assert 'openstack server create --flavor %s' % rsv_flavor in ready.body

    warning = by_event['before_end']
    end_short = end[:10] + ' ' + end[11:16] + ' UTC'
    assert warning.subject.startswith(
        '[reserve] Instances will be DELETED at %s' % end_short)
    assert ('At %s every instance booted with the boot flavor\n'
            'WILL BE DELETED' % end) in warning.body
    assert 'Copy your data off now' in warning.body

    over = by_event['end']
    assert over.subject.startswith('[reserve] Your reservation has ended')
    assert 'is over' in over.body

    # The order of the bus: allocated first, end last.
    assert mails[0] is allocated and mails[-1] is over


# In one process, over the in-memory bus -------------------------------------

def _booking(app, booking_id, user_id):
    headers = {'X-User-Id': user_id, 'X-Project-Id': 'project-a',
               'X-Roles': 'member,reader'}
    return app.get('/v1/reservations/%s' % booking_id,
                   headers=headers).json['reservation']


def _bookable(app, nova_flavor_id):
    """What a booking names: the booking desk's catalogue entry for the
    nova flavor (nova's flavor itself where there is no catalogue)."""
    name = 'desk-%s' % nova_flavor_id
    resp = app.get('/v1/flavors/%s' % name, headers=ADMIN,
                   expect_errors=True)
    if resp.status_int == 200:
        return name
    resp = app.post_json('/v1/flavors', {
        'name': name, 'nova_flavor_id': nova_flavor_id, 'slots': 4},
        headers=ADMIN, expect_errors=True)
    if resp.status_int == 404:
        return nova_flavor_id
    assert resp.status_int == 201, resp.text
    return name


def _book(app, user_id, start_in, end_in):
    headers = {'X-User-Id': user_id, 'X-Project-Id': 'project-a',
               'X-Roles': 'member,reader'}
    return app.post_json('/v1/reservations', {
        'flavor_id': _bookable(app, 'small'), 'start': _iso(start_in),
        'end': _iso(end_in), 'instance_count': 1},
        headers=headers).json['reservation']


def test_all_in_one_mails_the_user_at_each_step(
        mail_config, running, smtp_server, keystone):  # noqa: F811
    app, cloud = running
    # A booking shorter than this is warned at its start (the fixture's 0
    # would warn at the end, when the warning is no use and is dropped).
    CONF.set_override('minutes_before_end_lease', 60, group='manager')
    app.post_json('/v1/hosts', {'name': 'aio-host'}, headers=ADMIN)
    alice = keystone.alice['id']
    booking = _book(app, alice, start_in=3, end_in=10)
    allocated = _wait('ALLOCATED', lambda: _booking(
        app, booking['id'], alice)['compute_flavor'] and
        _booking(app, booking['id'], alice), 20)

    mails = smtp_server.wait_for(4, timeout=40)
    _wait('COMPLETE', lambda: _booking(app, booking['id'], alice)['status']
          == 'COMPLETE', 20)
    CONF.clear_override('minutes_before_end_lease', group='manager')
    time.sleep(1)           # nothing more comes
    assert len(smtp_server.received) == 4
    check_mails(mails, allocated, 'alice@uni.example.edu',
                _bookable(app, 'small'))
    assert all(login == SMTP_LOGIN[0] for _, login in smtp_server.logins)
    # One keystone look-up: the address is kept for [email]
    # address_cache_ttl.
    assert keystone.user_requests() == ['/v3/users/%s' % alice]


def test_all_in_one_user_without_address_gets_nothing(
        mail_config, running, smtp_server, keystone):  # noqa: F811
    app, cloud = running
    app.post_json('/v1/hosts', {'name': 'aio-host'}, headers=ADMIN)
    bob = keystone.bob['id']
    booking = _book(app, bob, start_in=2, end_in=5)
    _wait('COMPLETE', lambda: _booking(app, booking['id'], bob)['status']
          == 'COMPLETE', 30)
    time.sleep(1)
    assert smtp_server.received == []
    assert keystone.user_requests() == ['/v3/users/%s' % bob]


def test_all_in_one_smtp_down_never_blocks_the_booking(
        mail_config, running, smtp_server, keystone, caplog):  # noqa: F811
    smtp_server.stop()
    app, cloud = running
    CONF.set_override('minutes_before_end_lease', 60, group='manager')
    app.post_json('/v1/hosts', {'name': 'aio-host'}, headers=ADMIN)
    alice = keystone.alice['id']
    booking = _book(app, alice, start_in=2, end_in=5)
    _wait('COMPLETE', lambda: _booking(app, booking['id'], alice)['status']
          == 'COMPLETE', 30)
    _wait('the end mail given up', lambda: 'The end mail of reservation %s '
          'to alice@uni.example.edu was not sent' % booking['id']
          in caplog.text, 10)
    for event in ('allocated', 'start', 'before_end'):
        assert 'The %s mail of reservation %s' % (event, booking['id']) \
            in caplog.text, [r.getMessage() for r in caplog.records
                             if r.name.startswith('reserve.notification')]


# Separate daemons over RabbitMQ, against nova --------------------------------

EMAIL_CONF = """
[email]
driver = smtp
from_address = {from_address}
reply_to = {reply_to}
smtp_host = {smtp_host}
smtp_port = {smtp_port}
smtp_starttls = true
smtp_ca_file = {smtp_ca_file}
smtp_username = {smtp_username}
smtp_password = {smtp_password}
smtp_timeout = 10

[keystone]
auth_type = password
auth_url = {auth_url}
username = reserve
password = secret
project_name = service
user_domain_name = Default
project_domain_name = Default
"""


@pytest.fixture
def daemons(openstack_cloud, tmp_path, smtp_server, keystone, tls):
    with backends.throwaway_database('mysql', tmp_path) as url:
        # minutes_before_end_lease 60: a booking shorter than that is
        # warned at its start.
        service = reserve_daemons.ReserveDaemons(
            url, openstack_cloud['compute'], openstack_cloud['placement'],
            before_end=60)
        with open(service.conf, 'a') as conf:
            conf.write(EMAIL_CONF.format(
                auth_url=keystone.auth_url,
                **email_options(smtp_server, tls)))
        service.start()
        try:
            service.enroll_computes()
            yield service
        finally:
            service.stop()


@pytest.fixture
def source_flavor(openstack_cloud):
    nova = cloud_mod.nova_client('admin', 'admin', 'admin')
    flavor = nova.flavors.create('mail-%s' % uuid.uuid4().hex[:6],
                                 ram=256, vcpus=1, disk=1)
    yield flavor
    flavor.delete()


def test_daemons_mail_the_user_at_each_step(daemons, source_flavor,
                                            smtp_server, keystone):
    alice = keystone.alice['id']
    project = 'mail-%s' % uuid.uuid4().hex[:6]
    if hasattr(daemons, 'catalogue_flavor'):
        # Bookings name the booking desk's catalogue entries.
        flavor = daemons.catalogue_flavor(source_flavor.id)['name']
    else:
        flavor = source_flavor.id
    resp = daemons.request('POST', '/v1/reservations', project=project,
                           user=alice, json={
                               'flavor_id': flavor,
                               'start': _iso(6), 'end': _iso(20),
                               'instance_count': 1})
    assert resp.status_code == 201, resp.text
    booking_id = resp.json()['reservation']['id']

    def booking():
        resp = daemons.request('GET', '/v1/reservations/%s' % booking_id,
                               project=project, user=alice)
        assert resp.status_code == 200, resp.text
        found = resp.json()['reservation']
        assert found['status'] != 'ERROR', found
        return found

    allocated = _wait('ALLOCATED', lambda: booking()['compute_flavor'] and
                      booking(), 30, interval=0.5)
    mails = smtp_server.wait_for(4, timeout=90)
    _wait('COMPLETE', lambda: booking()['status'] == 'COMPLETE', 60,
          interval=0.5)
    time.sleep(2)
    assert len(smtp_server.received) == 4, daemons.logs('notification')
    check_mails(mails, allocated, 'alice@uni.example.edu', flavor)
    assert 'Sent the end mail of reservation %s' % booking_id in \
        daemons.logs('notification')
