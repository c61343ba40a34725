"""The manager's libvirt connections to GPU hosts, and their locks.

Only the manager talks to libvirt: a ``test:///`` host's state lives in
the one connection that opened it (reserve.virt.connection.get_host), so
the connection of a URI is the process's. Work on one host (discovery, a
claim, attachments) holds that host's lock, so that a discovery never
interleaves with an attach on the same host.
"""
import threading

from oslo_config import cfg

from reserve.virt import connection
from reserve.virt import fake
from reserve.virt import fake_shared

CONF = cfg.CONF

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
    reserve.virt.fake when [devices]fake_test_driver is set (reached
    through the shared server of [devices]fake_test_driver_socket when it
    is set)."""
    opener = None
    if is_test_uri(uri) and CONF.devices.fake_test_driver:
        socket = CONF.devices.fake_test_driver_socket
        opener = fake_shared.opener(socket) if socket else fake.opener()
    return connection.get_host(uri, opener=opener)
