"""Opening a libvirt connection without waiting on it forever.

libvirt has no connect timeout: ``virConnectOpen`` to a host that takes
the TCP connection and never answers (a wedged libvirtd, a half-open
tunnel) waits for ever, and its keepalive only starts once a connection
is open (and needs an event loop the manager does not run). Transport
options (ssh's ConnectTimeout, ``no_tty``) cover one transport and not a
TLS handshake that hangs. So the open runs in a thread of its own and
the caller waits for it at most [devices]libvirt_connect_timeout
seconds; libvirt releases the GIL while it waits, and other hosts'
connections are opened and used meanwhile.

A thread blocked in libvirt cannot be interrupted, so a URI has at most
one attempt in flight (``Opening``, held by its HostConnection): a
caller that comes while it still hangs past its deadline fails at once
rather than start another thread, and once it ends (the peer answers,
refuses or resets) the next caller takes its connection, or its error,
and the one after starts afresh. An attempt abandoned by a closed
HostConnection closes the connection it may still get.
"""
import threading
import time

from oslo_log import log as logging

from reserve.virt import errors
from reserve.virt import uris

LOG = logging.getLogger(__name__)


class Opening:
    """One ``opener(uri)`` running in its own thread."""

    def __init__(self, opener, uri):
        self.uri = uri
        self.started = time.monotonic()
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._abandoned = False
        self._reported = False
        self._conn = None
        self._error = None
        threading.Thread(target=self._run, args=(opener,), daemon=True,
                         name='libvirt-open %s' % uris.display(uri)).start()

    def _run(self, opener):
        try:
            conn = opener(self.uri)
        except Exception as exc:  # noqa: BLE001 - handed to the waiter
            self._error = exc
        else:
            with self._lock:
                if not self._abandoned:
                    self._conn, conn = conn, None
            if conn is not None:
                _close_quietly(self.uri, conn)
        finally:
            self._done.set()

    def result(self, timeout):
        """The connection, once the attempt ends within ``timeout``
        seconds of its start; HostUnreachable when it failed or still
        hangs."""
        remaining = self.started + timeout - time.monotonic()
        if not self._done.wait(max(remaining, 0)):
            if not self._reported:
                self._reported = True
                LOG.warning('The libvirt host at %s did not answer within '
                            '%d s; its connection is tried again once this '
                            'attempt ends.', uris.display(self.uri),
                            timeout)
            raise errors.unreachable(
                self.uri, why='no answer within %d s' % timeout)
        if self._error is not None:
            raise errors.unreachable(self.uri, self._error)
        return self._conn

    @property
    def done(self):
        return self._done.is_set()

    def abandon(self):
        """Nobody takes this attempt's connection: close it, now or
        when it comes."""
        with self._lock:
            self._abandoned = True
            conn, self._conn = self._conn, None
        if conn is not None:
            _close_quietly(self.uri, conn)


def _close_quietly(uri, conn):
    try:
        conn.close()
    except Exception:  # noqa: BLE001 - nothing to do about it
        LOG.debug('Closing %s failed', uris.display(uri), exc_info=True)
