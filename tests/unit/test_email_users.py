"""The user's address, from keystone's GET /v3/users/{id}, through a
keystoneauth adapter built from [keystone] (password auth, the identity
endpoint from the catalog, v3 by discovery), against a small keystone on
loopback (tests.fakes.keystone)."""
import logging

from oslo_config import cfg
import pytest

from reserve.notification.mail import users
from tests.fakes import keystone as fake_keystone

CONF = cfg.CONF


@pytest.fixture
def keystone():
    server = fake_keystone.FakeKeystone().start()
    yield server
    server.stop()


@pytest.fixture
def configured(keystone):
    """[keystone] as a deployment writes it: password auth."""
    undo = fake_keystone.configure(CONF, keystone)
    yield keystone
    undo()


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_address_from_keystone(configured):
    alice = configured.add_user('alice', email='alice@example.org')
    user = users.AddressBook().lookup(alice['id'])
    assert user == users.User(alice['id'], 'alice@example.org', 'alice')
    # Token first, then the user, on the v3 endpoint found from the catalog.
    assert ('POST', '/v3/auth/tokens') in configured.requests
    assert configured.user_requests() == ['/v3/users/%s' % alice['id']]


def test_user_without_address(configured, caplog):
    caplog.set_level(logging.INFO, logger='reserve.notification.mail')
    bob = configured.add_user('bob')
    assert users.AddressBook().lookup(bob['id']) is None
    assert 'has no e-mail address in keystone' in caplog.text


def test_unknown_user(configured, caplog):
    assert users.AddressBook().lookup('no-such-user') is None
    assert 'keystone does not know this user' in caplog.text


@pytest.mark.parametrize('status', [500, 503])
def test_keystone_error_is_logged_and_not_kept(configured, caplog, status):
    alice = configured.add_user('alice', email='alice@example.org')
    book = users.AddressBook()
    configured.fail_users_with = status
    assert book.lookup(alice['id']) is None
    assert 'keystone answered %d' % status in caplog.text
    # Not cached: once keystone is back, the address is found.
    configured.fail_users_with = None
    assert book.lookup(alice['id']).email == 'alice@example.org'


def test_service_user_without_the_role(configured, caplog):
    configured.service_user['roles'] = ['member']
    alice = configured.add_user('alice', email='alice@example.org')
    assert users.AddressBook().lookup(alice['id']) is None
    assert 'keystone answered 403' in caplog.text


def test_wrong_credentials(configured, caplog):
    CONF.set_override('password', 'wrong', group='keystone')
    alice = configured.add_user('alice', email='alice@example.org')
    assert users.AddressBook().lookup(alice['id']) is None
    assert 'No e-mail to user %s' % alice['id'] in caplog.text
    assert configured.user_requests() == []


def test_keystone_down(configured, caplog):
    alice = configured.add_user('alice', email='alice@example.org')
    configured.stop()
    assert users.AddressBook().lookup(alice['id']) is None
    assert 'No e-mail to user %s' % alice['id'] in caplog.text


def test_keystone_not_configured(keystone, caplog):
    caplog.set_level(logging.INFO, logger='reserve.notification.mail')
    alice = keystone.add_user('alice', email='alice@example.org')
    assert users.AddressBook().lookup(alice['id']) is None
    assert '[keystone] is not configured' in caplog.text
    assert keystone.requests == []


def test_address_without_keystone(override, keystone):
    override('address_without_keystone', '%(user_id)s@localhost', 'email')
    user = users.AddressBook().lookup('alice-id')
    assert user == users.User('alice-id', 'alice-id@localhost', 'alice-id')
    assert keystone.requests == []


def test_endpoint_without_credentials_is_refused(override, keystone,
                                                 caplog):
    # Configured, but keystone wants a token for GET /v3/users/{id}.
    override('endpoint_override', keystone.auth_url, group='keystone')
    alice = keystone.add_user('alice', email='alice@example.org')
    assert users.AddressBook().lookup(alice['id']) is None
    assert 'keystone answered 401' in caplog.text


def test_user_id_is_quoted(configured):
    odd = configured.add_user('odd', email='odd@example.org',
                              user_id='a/b c')
    assert users.AddressBook().lookup(odd['id']).email == 'odd@example.org'
    assert configured.user_requests() == ['/v3/users/a%2Fb%20c']


def test_answers_are_kept_for_the_ttl_only(override, configured):
    override('address_cache_ttl', 60, group='email')
    alice = configured.add_user('alice', email='alice@example.org')
    bob = configured.add_user('bob')
    clock = Clock()
    book = users.AddressBook(clock=clock)
    for _ in range(3):
        assert book.lookup(alice['id']).email == 'alice@example.org'
        assert book.lookup(bob['id']) is None
    assert len(configured.user_requests()) == 2

    # The addresses change in keystone: seen once the TTL has passed.
    alice['email'] = 'alice@new.example.org'
    configured.users[bob['id']]['email'] = 'bob@example.org'
    clock.now += 59
    assert book.lookup(alice['id']).email == 'alice@example.org'
    clock.now += 2
    assert book.lookup(alice['id']).email == 'alice@new.example.org'
    assert book.lookup(bob['id']).email == 'bob@example.org'
    assert len(configured.user_requests()) == 4


def test_ttl_zero_asks_every_time(override, configured):
    override('address_cache_ttl', 0, group='email')
    alice = configured.add_user('alice', email='alice@example.org')
    book = users.AddressBook()
    book.lookup(alice['id'])
    book.lookup(alice['id'])
    assert len(configured.user_requests()) == 2


def test_expired_answers_do_not_pile_up(override, configured):
    override('address_cache_ttl', 10, group='email')
    clock = Clock()
    book = users.AddressBook(clock=clock)
    for i in range(5):
        book.lookup(configured.add_user('u%d' % i, email='u%d@x' % i)['id'])
    clock.now += 11
    book.lookup(configured.add_user('last', email='last@x')['id'])
    assert len(book._cache) == 1
