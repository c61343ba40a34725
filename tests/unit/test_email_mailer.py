"""Which mail goes when: the Mailer, the notification daemon's mail
endpoint fed by the reserve.reservation.* notifications that sync and the
worker emit, and failures that must never reach the booking flow."""
import datetime
import logging
import smtplib
import types

import oslo_messaging as messaging
import pytest

from reserve.common import context as reserve_context
from reserve.common import states
from reserve.db import bookings as bookings_db
from reserve.manager import booking_status
from reserve.manager import owners
from reserve.notification import listener
from reserve.notification.mail import mailer as mailer_mod
from reserve.notification.mail import render
from reserve.notification.mail import users
from tests.unit import factories

B = states.Booking
L = states.Lease
ALL = list(render.EVENTS)


class RecordingDriver:
    def __init__(self, fail=None):
        self.sent = []
        self.fail = fail

    def send(self, message):
        if self.fail is not None:
            raise self.fail
        self.sent.append(message)

    def events(self):
        return [(m['X-Reserve-Event'], m['X-Reserve-Reservation-Id'])
                for m in self.sent]


class AddressBook:
    """user id → address, counting the look-ups."""

    def __init__(self, addresses=None):
        self.addresses = addresses if addresses is not None else {
            'alice': 'alice@example.org'}
        self.asked = []

    def lookup(self, user_id):
        self.asked.append(user_id)
        address = self.addresses.get(user_id)
        return users.User(user_id, address, user_id) if address else None


@pytest.fixture
def driver():
    return RecordingDriver()


@pytest.fixture
def book():
    return AddressBook()


@pytest.fixture
def mailer(db, driver, book):
    return mailer_mod.Mailer(driver=driver, address_book=book)


@pytest.fixture
def ctx():
    return reserve_context.get_admin_context()


def booking(status, lease=None, **values):
    values.setdefault('reserved_flavor_id', 'rsv-flavor-1')
    return factories.make_booking(status=status,
                                  lease_id=lease.id if lease else None,
                                  **values)


# The Mailer -----------------------------------------------------------------

@pytest.mark.parametrize('event,status', [
    ('allocated', B.ALLOCATED), ('allocated', B.ACTIVE),
    ('start', B.ACTIVE),
    ('before_end', B.ALLOCATED), ('before_end', B.ACTIVE),
    ('end', B.COMPLETE),
])
def test_mail_goes_to_the_user_of_the_booking(mailer, driver, ctx, event,
                                              status):
    row = booking(status)
    assert mailer.booking_event(ctx, event, row.id) is True
    [msg] = driver.sent
    assert msg['To'] == 'alice@example.org'
    assert msg['X-Reserve-Event'] == event
    assert msg['X-Reserve-Reservation-Id'] == row.id
    assert 'rsv-flavor-1' in msg.get_content()
    # The flavor by its catalogue name.
    assert '1 x gpu.a100' in msg['Subject']


@pytest.mark.parametrize('event,status', [
    ('allocated', B.PENDING_CREATE), ('allocated', B.ERROR),
    ('allocated', B.COMPLETE),
    ('start', B.ALLOCATED), ('start', B.COMPLETE), ('start', B.ERROR),
    ('before_end', B.COMPLETE), ('before_end', B.ERROR),
    ('end', B.ACTIVE), ('end', B.ERROR),
])
def test_no_mail_that_is_no_longer_true(mailer, driver, book, ctx, event,
                                        status):
    row = booking(status)
    assert mailer.booking_event(ctx, event, row.id) is False
    assert driver.sent == []
    assert book.asked == []


@pytest.mark.parametrize('event', ['allocated', 'start', 'before_end'])
def test_no_mail_about_a_window_already_over(mailer, driver, ctx, event):
    row = booking(B.ACTIVE, start=factories.ago(hours=2),
                  end=factories.ago(seconds=1))
    assert mailer.booking_event(ctx, event, row.id) is False
    assert driver.sent == []


def test_end_mail_after_the_end(mailer, driver, ctx):
    row = booking(B.COMPLETE, start=factories.ago(hours=2),
                  end=factories.ago(minutes=1))
    assert mailer.booking_event(ctx, 'end', row.id) is True


def test_no_mail_for_a_booking_that_is_gone(mailer, driver, ctx, caplog):
    caplog.set_level(logging.INFO, logger='reserve.notification.mail')
    assert mailer.booking_event(ctx, 'end', 'no-such-booking') is False
    assert 'it is gone' in caplog.text
    assert driver.sent == []


def test_unknown_event_sends_nothing(mailer, driver, ctx):
    row = booking(B.ACTIVE)
    assert mailer.booking_event(ctx, 'extended', row.id) is False
    assert driver.sent == []


def test_only_enabled_events_mail(override, mailer, driver, book, ctx):
    override('enabled_events', ['before_end'], group='email')
    row = booking(B.ACTIVE)
    for event in ('allocated', 'start', 'before_end'):
        mailer.booking_event(ctx, event, row.id)
    assert driver.events() == [('before_end', row.id)]
    assert book.asked == ['alice']


def test_no_events_enabled_means_no_mail(override, mailer, driver, ctx):
    override('enabled_events', [], group='email')
    assert mailer.check() is False
    row = booking(B.ACTIVE)
    assert mailer.booking_event(ctx, 'start', row.id) is False
    assert driver.sent == []


def test_user_without_address_gets_no_mail(mailer, driver, ctx):
    row = booking(B.ACTIVE, user_id='carol')
    assert mailer.booking_event(ctx, 'start', row.id) is False
    assert driver.sent == []


@pytest.mark.parametrize('failure', [
    smtplib.SMTPServerDisconnected('Connection unexpectedly closed'),
    ConnectionRefusedError(111, 'Connection refused'),
    TimeoutError('timed out'),
    smtplib.SMTPRecipientsRefused({'alice@example.org': (550, b'no')}),
])
def test_driver_failure_is_logged_never_raised(db, book, ctx, caplog,
                                               failure):
    failing = mailer_mod.Mailer(driver=RecordingDriver(fail=failure),
                                address_book=book)
    row = booking(B.ACTIVE)
    assert failing.booking_event(ctx, 'start', row.id) is False
    assert 'was not sent' in caplog.text
    assert type(failure).__name__ in caplog.text


def test_driver_that_cannot_load_is_logged(override, db, book, ctx, caplog):
    override('driver', 'no-such-driver', group='email')
    broken = mailer_mod.Mailer(address_book=book)
    assert broken.check() is False
    assert 'User e-mails will not be sent' in caplog.text
    row = booking(B.ACTIVE)
    assert broken.booking_event(ctx, 'start', row.id) is False


def test_broken_template_is_logged(override, mailer, driver, ctx, tmp_path,
                                   caplog):
    (tmp_path / 'start.txt').write_text('Subject: $nope\n\nx\n')
    override('template_dir', str(tmp_path), group='email')
    row = booking(B.ACTIVE)
    assert mailer.booking_event(ctx, 'start', row.id) is False
    assert 'unknown value' in caplog.text
    assert driver.sent == []


def test_check_names_the_driver(mailer, caplog):
    caplog.set_level(logging.INFO, logger='reserve.notification.mail')
    assert mailer.check() is True
    assert 'RecordingDriver' in caplog.text


def test_log_driver_by_default(db, book, ctx, caplog):
    caplog.set_level(logging.INFO, logger='reserve.notification.mail')
    row = booking(B.ACTIVE)
    assert mailer_mod.Mailer(address_book=book).booking_event(
        ctx, 'before_end', row.id) is True
    assert 'WILL BE DELETED' in caplog.text
    assert 'To: alice@example.org' in caplog.text


def test_flavor_name_from_the_catalogue_when_there_is_one(
        monkeypatch, mailer, driver, ctx):
    class Flavor:
        name = 'A100 80GB'

    class Catalogue:
        @staticmethod
        def flavor_get(context, ref):
            return Flavor()

    monkeypatch.setattr(mailer_mod, '_catalogue', lambda: Catalogue)
    row = booking(B.ACTIVE)
    mailer.booking_event(ctx, 'start', row.id)
    assert '1 x A100 80GB' in driver.sent[0].get_content()


def test_flavor_id_when_the_catalogue_does_not_know_it(
        monkeypatch, mailer, driver, ctx):
    class Catalogue:
        @staticmethod
        def flavor_get(context, ref):
            raise LookupError(ref)

    monkeypatch.setattr(mailer_mod, '_catalogue', lambda: Catalogue)
    row = booking(B.ACTIVE)
    mailer.booking_event(ctx, 'start', row.id)
    assert '1 x %s' % row.flavor_id in driver.sent[0].get_content()


# The notification daemon: lease events → notifications → mails -------------

@pytest.fixture
def endpoint(mailer):
    return listener.BookingMailEndpoint(mailer=mailer)


@pytest.fixture
def daemon(notifications, endpoint, ctx):
    """Makes the manager's moves of a lease's bookings and feeds its
    lease notifications to the lease endpoint, then
    every reserve.reservation.* notification that emitted (as the bus would
    bring them back) to the mail endpoint."""
    leases = listener.LeaseEventsEndpoint()

    def deliver_emitted():
        for event_type, payload in list(notifications.sent):
            assert endpoint.filter_rule.match(
                {}, 'reserve.notification', event_type, {}, payload)
            assert endpoint.info(ctx, 'reserve.notification', event_type,
                                 payload, {}) == \
                messaging.NotificationResult.HANDLED
        notifications.clear()

    def lease_event(event_type, lease_id):
        # The manager moves the lease's bookings with it (and announces
        # each move that won), then sends its lease notification.
        name = {'lease.event.start_lease': 'started',
                'lease.event.end_lease': 'ended'}.get(event_type)
        if name is not None:
            for row in bookings_db.booking_list_by_lease(ctx, lease_id):
                moved = booking_status.move(ctx, row.id, name)
                if moved is not None:
                    moved.announce(ctx)
        leases.info(ctx, 'reserve.manager.host-a', event_type,
                    {'lease_id': lease_id}, {})
        deliver_emitted()

    lease_event.deliver_emitted = deliver_emitted
    return lease_event


@pytest.fixture
def lease(db):
    return factories.make_lease(status=L.ACTIVE)


def test_each_lease_event_mails_once(daemon, driver, lease):
    row = booking(B.ALLOCATED, lease)
    for event_type in ('lease.event.start_lease', 'lease.event.start_lease',
                       'lease.event.before_end_lease',
                       'lease.event.end_lease', 'lease.event.end_lease',
                       'lease.event.start_lease'):
        daemon(event_type, lease.id)
    assert driver.events() == [('start', row.id), ('before_end', row.id),
                               ('end', row.id)]


def test_before_end_warns_live_bookings_only(daemon, driver, lease):
    live = booking(B.ACTIVE, lease)
    booking(B.ERROR, lease)
    booking(B.COMPLETE, lease)
    daemon('lease.event.before_end_lease', lease.id)
    assert driver.events() == [('before_end', live.id)]


def test_every_booking_of_the_lease_is_told(daemon, driver, book, lease):
    book.addresses['bob'] = 'bob@example.org'
    first = booking(B.ALLOCATED, lease)
    second = booking(B.ALLOCATED, lease, user_id='bob')
    daemon('lease.event.start_lease', lease.id)
    assert sorted(driver.events()) == sorted([('start', first.id),
                                              ('start', second.id)])
    assert sorted(m['To'] for m in driver.sent) == ['alice@example.org',
                                                    'bob@example.org']


def test_lease_create_no_longer_mails(daemon, driver, lease):
    booking(B.ALLOCATED, lease)
    daemon('lease.create', lease.id)
    assert driver.sent == []


def test_mail_failure_leaves_the_booking_flow_alone(db, notifications, book,
                                                    ctx, lease):
    broken = mailer_mod.Mailer(
        driver=RecordingDriver(fail=smtplib.SMTPServerDisconnected('down')),
        address_book=book)
    endpoint = listener.BookingMailEndpoint(mailer=broken)
    row = booking(B.ALLOCATED, lease)
    booking_status.move(ctx, row.id, 'started').announce(ctx)
    [(event_type, payload)] = notifications.sent
    assert endpoint.info(ctx, 'reserve.notification', event_type, payload,
                         {}) == messaging.NotificationResult.HANDLED
    assert factories.booking_status(row.id) == B.ACTIVE


def test_mailer_bug_never_reaches_the_listener(db, ctx, monkeypatch):
    endpoint = listener.BookingMailEndpoint(
        mailer=mailer_mod.Mailer(driver=RecordingDriver(),
                                 address_book=AddressBook()))
    monkeypatch.setattr(bookings_db, 'booking_get', _explode)
    assert endpoint.info(ctx, 'reserve.notification',
                         'reserve.reservation.start',
                         {'reservation_id': 'x'}, {}) == \
        messaging.NotificationResult.HANDLED


def _explode(*args, **kwargs):
    raise RuntimeError('database on fire')


def test_notification_without_reservation_is_ignored(endpoint, driver, ctx):
    assert endpoint.info(ctx, 'reserve.notification',
                         'reserve.reservation.start', {}, {}) == \
        messaging.NotificationResult.HANDLED
    assert driver.sent == []


@pytest.mark.parametrize('publisher,event_type,matches', [
    ('reserve.notification', 'reserve.reservation.start', True),
    ('reserve.notification', 'reserve.reservation.allocated', True),
    ('reserve.manager.host-a', 'lease.event.start_lease', False),
    ('nova-compute:host1', 'reserve.reservation.start', False),
])
def test_mail_endpoint_listens_to_reservation_notifications(
        endpoint, publisher, event_type, matches):
    assert bool(endpoint.filter_rule.match(
        {}, publisher, event_type, {}, {})) is matches


# The manager: allocated, once ----------------------------------------------

def test_allocated_is_told_once(daemon, notifications, driver, ctx, db):
    row = factories.make_booking(status=B.PENDING_CREATE)
    made = factories.make_lease(status=L.PENDING)
    lease = types.SimpleNamespace(
        id=made.id, owner_type=states.Owner.BOOKING, owner_id=row.id,
        reservations=[types.SimpleNamespace(id='rsv-flavor-9')])
    for _ in range(2):  # made again (a recast creation): nothing more
        owners.announce(ctx, owners.allocated(ctx, lease))
    assert notifications.event_types == ['reserve.reservation.allocated']
    payload = notifications.sent[0][1]
    assert payload['reservation_id'] == row.id
    assert payload['reserved_flavor_id'] == 'rsv-flavor-9'
    assert 'compute_flavor' not in payload
    assert payload['status'] == B.ALLOCATED
    daemon.deliver_emitted()
    assert driver.events() == [('allocated', row.id)]
    assert 'rsv-flavor-9' in driver.sent[0].get_content()


def test_window_times_in_the_mail_are_the_booking_times(mailer, driver, ctx):
    start = datetime.datetime(2031, 3, 4, 9, 30)
    row = booking(B.ALLOCATED, start=start,
                  end=start + datetime.timedelta(hours=6))
    mailer.booking_event(ctx, 'allocated', row.id)
    text = driver.sent[0].get_content()
    assert '2031-03-04T09:30:00Z  (Tuesday 04 March 2031, 09:30 UTC)' in text
    assert '2031-03-04T15:30:00Z  (Tuesday 04 March 2031, 15:30 UTC)' in text
    assert 'Length:         6 hours' in text


# Spot servers: the spot task's notifications mail the server's user ------

SPOT = {'server_id': 'srv-1', 'user_id': 'alice', 'project_id': 'p-spot',
        'host': 'host1', 'gpus': 1, 'action': 'delete',
        'reason': 'the reservation owners boot into their seats'}


def _spot_notification(mailer, ctx, event_type, **payload):
    endpoint = listener.SpotMailEndpoint(mailer)
    return endpoint.info(ctx, 'reserve.spot.manager-1', event_type,
                         dict(SPOT, **payload), {})


def test_a_spot_warning_and_reclaim_mail_the_servers_user(mailer, driver,
                                                          book, ctx):
    assert _spot_notification(
        mailer, ctx, 'spot.server.warning',
        reclaim_by='2030-01-01T10:00:00Z') == \
        messaging.NotificationResult.HANDLED
    _spot_notification(mailer, ctx, 'spot.server.reclaimed')
    assert [(m['X-Reserve-Event'], m['X-Reserve-Server-Id'], m['To'])
            for m in driver.sent] == [
        ('spot_warning', 'srv-1', 'alice@example.org'),
        ('spot_reclaimed', 'srv-1', 'alice@example.org')]
    assert book.asked == ['alice', 'alice']


def test_spot_mails_follow_enabled_events_and_unknown_users(
        mailer, driver, ctx, override):
    _spot_notification(mailer, ctx, 'spot.server.reclaimed',
                       user_id='nobody')
    _spot_notification(mailer, ctx, 'spot.server.reclaimed', user_id=None)
    override('enabled_events', ['end'], group='email')
    _spot_notification(mailer, ctx, 'spot.server.reclaimed')
    assert driver.sent == []


def test_a_failing_spot_mail_is_logged_in_one_line(ctx, book, db, caplog):
    broken = mailer_mod.Mailer(
        driver=RecordingDriver(fail=smtplib.SMTPServerDisconnected('gone')),
        address_book=book)
    with caplog.at_level(logging.WARNING):
        _spot_notification(broken, ctx, 'spot.server.reclaimed')
    lines = [r for r in caplog.records if 'spot server srv-1' in
             r.getMessage()]
    assert len(lines) == 1 and lines[0].exc_info is None
