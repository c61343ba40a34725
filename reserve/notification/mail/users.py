"""Where a booking's user reads mail: keystone's ``email`` of the user.

``GET /v3/users/{user_id}`` through a keystoneauth adapter built from
``[keystone]`` (service type ``identity``, identity API v3 found by
version discovery). Answers are kept ``[email]address_cache_ttl``
seconds, so an address changed in keystone is used within that time.
Nothing here raises: a user without an address, an unknown user,
keystone down or not configured all give None, with a log line.
"""
import collections
import threading
import time
import urllib.parse

from keystoneauth1 import exceptions as ks_exc
from oslo_config import cfg
from oslo_log import log as logging

from reserve.common import keystone

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

GROUP = 'keystone'

User = collections.namedtuple('User', ['id', 'email', 'name'])


def keystone_configured():
    group = getattr(CONF, GROUP)
    return bool(group.auth_type or group.endpoint_override)


def _without_keystone(user_id):
    pattern = CONF.email.address_without_keystone
    if pattern:
        return User(user_id, pattern % {'user_id': user_id}, user_id)
    LOG.info('No e-mail to user %s: [keystone] is not configured '
             '(set auth_type, or endpoint_override)', user_id)
    return None


class AddressBook:
    """user id → User(id, email, name) or None, from keystone."""

    def __init__(self, adapter=None, clock=time.monotonic):
        self._adapter = adapter
        self._clock = clock
        self._cache = {}
        self._lock = threading.Lock()

    def _get_adapter(self):
        if self._adapter is None:
            self._adapter = keystone.get_adapter(
                GROUP, min_version=(3, 0), max_version=(3, 'latest'))
        return self._adapter

    def _cached(self, user_id):
        with self._lock:
            hit = self._cache.get(user_id)
            if hit is None:
                return False, None
            expires, user = hit
            if expires <= self._clock():
                del self._cache[user_id]
                return False, None
            return True, user

    def _remember(self, user_id, user):
        ttl = CONF.email.address_cache_ttl
        if ttl <= 0:
            return
        with self._lock:
            now = self._clock()
            # Drop what has expired, so the cache never grows stale rows.
            for key in [k for k, (exp, _) in self._cache.items()
                        if exp <= now]:
                del self._cache[key]
            self._cache[user_id] = (now + ttl, user)

    def lookup(self, user_id):
        """The user's User, or None when no mail can reach them."""
        if not user_id:
            return None
        found, user = self._cached(user_id)
        if found:
            return user
        if not keystone_configured():
            return _without_keystone(user_id)
        try:
            user, cacheable = self._ask_keystone(user_id)
        except Exception as exc:
            LOG.warning('No e-mail to user %s: keystone could not be asked '
                        'for the address: %s', user_id, exc)
            return None
        if cacheable:
            self._remember(user_id, user)
        return user

    def _ask_keystone(self, user_id):
        """(User or None, whether the answer may be cached)."""
        try:
            resp = self._get_adapter().get(
                '/users/%s' % urllib.parse.quote(user_id, safe=''),
                raise_exc=False)
        except ks_exc.ClientException as exc:
            LOG.warning('No e-mail to user %s: keystone unreachable or '
                        'misconfigured: %s', user_id, exc)
            return None, False
        if resp.status_code == 404:
            LOG.warning('No e-mail to user %s: keystone does not know this '
                        'user', user_id)
            return None, True
        if resp.status_code != 200:
            LOG.warning('No e-mail to user %s: keystone answered %s to GET '
                        '/v3/users/%s: %s', user_id, resp.status_code,
                        user_id, resp.text[:200])
            return None, False
        try:
            body = resp.json()['user']
        except (ValueError, KeyError, TypeError):
            LOG.warning('No e-mail to user %s: keystone\'s answer has no '
                        'user: %s', user_id, resp.text[:200])
            return None, False
        address = body.get('email')
        if not address or not isinstance(address, str):
            LOG.info('No e-mail to user %s (%s): the user has no e-mail '
                     'address in keystone', user_id, body.get('name'))
            return None, True
        return User(user_id, address.strip(), body.get('name')), True
