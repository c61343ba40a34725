"""E-mail drivers: chosen by [email]driver through stevedore; the SMTP
driver against a real SMTP server on loopback (aiosmtpd)."""
import email.message
import logging
import smtplib
import socket
import ssl
import threading
import time

import pytest

from reserve.notification.mail import drivers
from tests.fakes import smtp as fake_smtp


def message(to='alice@example.org', subject='[reserve] hello'):
    msg = email.message.EmailMessage()
    msg['From'] = 'GPU desk <gpu@cloud.example>'
    msg['To'] = to
    msg['Subject'] = subject
    msg.set_content('Instances WILL BE DELETED at 2026-08-13T14:00:00Z.\n')
    return msg


@pytest.fixture(scope='module')
def tls(tmp_path_factory):
    return fake_smtp.tls_files(tmp_path_factory.mktemp('tls'))


@pytest.fixture
def server_factory():
    servers = []

    def make(**kwargs):
        server = fake_smtp.SMTPServer(**kwargs).start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()


def use(override, server, **opts):
    override('driver', 'smtp', group='email')
    override('smtp_host', server.host, group='email')
    override('smtp_port', server.port, group='email')
    override('smtp_timeout', 5, group='email')
    for name, value in opts.items():
        override(name, value, group='email')


# Selection ------------------------------------------------------------------

def test_log_is_the_default_driver():
    assert isinstance(drivers.load(), drivers.LogDriver)


def test_smtp_driver_is_chosen_by_name(override):
    override('driver', 'smtp', group='email')
    override('smtp_host', 'relay.example.org', group='email')
    override('smtp_port', 587, group='email')
    driver = drivers.load()
    assert isinstance(driver, drivers.SMTPDriver)
    assert (driver.host, driver.port) == ('relay.example.org', 587)


def test_unknown_driver_is_named_in_the_error(override):
    override('driver', 'carrier-pigeon', group='email')
    with pytest.raises(drivers.DriverError,
                       match="'carrier-pigeon'.*email_drivers"):
        drivers.load()


@pytest.mark.parametrize('opts,error', [
    ({'smtp_ssl': True, 'smtp_starttls': True}, 'exclusive'),
    ({'smtp_password': 'secret'}, 'without smtp_username'),
])
def test_contradicting_smtp_options_fail_at_load(override, opts, error):
    override('driver', 'smtp', group='email')
    for name, value in opts.items():
        override(name, value, group='email')
    with pytest.raises(drivers.DriverError, match=error):
        drivers.load()


def test_log_driver_logs_the_whole_mail_and_sends_nothing(caplog):
    caplog.set_level(logging.INFO, logger='reserve.notification.mail')
    drivers.LogDriver().send(message())
    [record] = [r for r in caplog.records
                if r.name == 'reserve.notification.mail.drivers']
    text = record.getMessage()
    assert 'not sent' in text
    assert 'To: alice@example.org' in text
    assert 'Subject: [reserve] hello' in text
    assert 'WILL BE DELETED at 2026-08-13T14:00:00Z' in text


# SMTP, for real -------------------------------------------------------------

def test_smtp_plain(override, server_factory):
    server = server_factory()
    use(override, server)
    drivers.load().send(message())
    [got] = server.wait_for(1)
    assert got.rcpt_tos == ['alice@example.org']
    assert got.mail_from == 'gpu@cloud.example'
    assert got.subject == '[reserve] hello'
    assert 'WILL BE DELETED' in got.body
    assert not got.tls


def test_smtp_starttls_and_login(override, server_factory, tls):
    server = server_factory(starttls=True, tls=tls,
                            login=('reserve', 's3cret'))
    use(override, server, smtp_starttls=True, smtp_ca_file=tls[0],
        smtp_username='reserve', smtp_password='s3cret')
    drivers.load().send(message())
    [got] = server.wait_for(1)
    assert got.tls
    assert server.logins and server.logins[0][1] == 'reserve'
    assert got.rcpt_tos == ['alice@example.org']


def test_smtps(override, server_factory, tls):
    server = server_factory(implicit_tls=True, tls=tls)
    use(override, server, smtp_ssl=True, smtp_ca_file=tls[0])
    drivers.load().send(message())
    [got] = server.wait_for(1)
    assert got.tls


def test_tls_verifies_the_relay_certificate(override, server_factory, tls):
    # Without the CA that signed it, the relay's certificate is refused.
    server = server_factory(starttls=True, tls=tls)
    use(override, server, smtp_starttls=True)
    with pytest.raises(ssl.SSLCertVerificationError):
        drivers.load().send(message())
    assert server.received == []


def test_wrong_password_raises(override, server_factory, tls):
    server = server_factory(starttls=True, tls=tls,
                            login=('reserve', 's3cret'))
    use(override, server, smtp_starttls=True, smtp_ca_file=tls[0],
        smtp_username='reserve', smtp_password='wrong')
    with pytest.raises(smtplib.SMTPAuthenticationError):
        drivers.load().send(message())
    assert server.received == []


def test_refused_recipient_raises(override, server_factory):
    server = server_factory(refuse={'ghost@example.org'})
    use(override, server)
    with pytest.raises(smtplib.SMTPRecipientsRefused):
        drivers.load().send(message(to='ghost@example.org'))
    assert server.received == []


def test_relay_down_raises(override):
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        port = sock.getsockname()[1]
    # Nothing listens there any more.
    override('driver', 'smtp', group='email')
    override('smtp_host', '127.0.0.1', group='email')
    override('smtp_port', port, group='email')
    with pytest.raises(OSError):
        drivers.load().send(message())


def test_silent_relay_times_out(override):
    # A relay that accepts the connection and never greets.
    listener = socket.socket()
    listener.bind(('127.0.0.1', 0))
    listener.listen(1)
    accepted = []
    thread = threading.Thread(
        target=lambda: accepted.append(listener.accept()), daemon=True)
    thread.start()
    override('driver', 'smtp', group='email')
    override('smtp_host', '127.0.0.1', group='email')
    override('smtp_port', listener.getsockname()[1], group='email')
    override('smtp_timeout', 1, group='email')
    began = time.monotonic()
    try:
        with pytest.raises((socket.timeout, smtplib.SMTPException, OSError)):
            drivers.load().send(message())
        assert time.monotonic() - began < 5
    finally:
        for conn, _ in accepted:
            conn.close()
        listener.close()
