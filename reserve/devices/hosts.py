"""The manager's libvirt connections to GPU hosts, and their locks.

Only the manager talks to libvirt: a ``test:///`` host's state lives in
the one connection that opened it (reserve.virt.connection.get_host), so
the connection of a URI is the process's. Work on one host (discovery, a
hold, attachments) holds that host's lock, so that a discovery never
interleaves with an attach on the same host.
"""
import functools
import threading

from oslo_config import cfg
from stevedore import driver

from reserve.virt import connection

CONF = cfg.CONF
# The openers of the fake libvirt (reserve_fakes), by name: tests and the
# quick start install it, production code never imports it.
OPENERS = 'reserve.virt.openers'

_LOCKS = {}
_LOCKS_LOCK = threading.Lock()


def host_lock(host_id):
    """The process's lock of a host (re-entrant)."""
    with _LOCKS_LOCK:
        lock = _LOCKS.get(host_id)
        if lock is None:
            lock = _LOCKS[host_id] = threading.RLock()
        return lock


def is_test_uri(uri):
    return uri.startswith('test:')


def connect(uri):
    """The HostConnection of ``uri``; test:/// hosts are completed by
    the fake libvirt when [devices]fake_test_driver is set (its opener
    ``local``, or ``shared`` through the server of
    [devices]fake_test_driver_socket when it is set)."""
    opener = None
    if is_test_uri(uri) and CONF.devices.fake_test_driver:
        socket = CONF.devices.fake_test_driver_socket
        if socket:
            opener = _fake_opener('shared')(socket)
        else:
            opener = _fake_opener('local')()
    return connection.get_host(uri, opener=opener)


@functools.lru_cache()
def _fake_opener(name):
    """The function of entry point ``name`` of OPENERS that makes an
    opener."""
    return driver.DriverManager(OPENERS, name).driver
