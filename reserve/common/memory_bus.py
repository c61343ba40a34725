"""The in-memory message bus of the all-in-one: waiting blocks.

The all-in-one runs its four services in one process over kombu's
``memory`` transport (``kombu+memory:////``). That transport polls: its
listeners try every queue, sleep ``polling_interval`` and try again, and
oslo.messaging sets that interval to 0 on every connection, so an idle
process would spin. Here a listener with nothing to read instead waits
on a condition that every message put on the bus signals: an idle
all-in-one sleeps, and a message is read the moment it is sent.

The bus lives in this process: it has no host to connect to, nor a
heartbeat to keep up. Its connections name no host (kombu would warn
that it "reverts to localhost" on each one), and configure() turns
oslo.messaging's heartbeats off (it would warn, once per connection,
that the driver cannot do them).
"""
import socket
import threading
import time

from kombu import transport
import oslo_messaging.opts
from kombu.transport import memory
from kombu.transport import virtual

# The longest a waiting listener sleeps without a signal (a safety net:
# every put signals).
IDLE_WAIT = 5.0  # seconds

_arrived = threading.Condition()
_sent = 0  # messages put on the bus, ever: a listener waits only if unchanged


def _signal():
    global _sent
    with _arrived:
        _sent += 1
        _arrived.notify_all()


class Channel(memory.Channel):
    def _put(self, queue, message, **kwargs):
        super()._put(queue, message, **kwargs)
        _signal()

    def _put_fanout(self, exchange, message, routing_key=None, **kwargs):
        super()._put_fanout(exchange, message, routing_key, **kwargs)
        _signal()


class Transport(memory.Transport):
    """kombu's memory transport (same broker state) whose listeners block
    between messages instead of polling."""

    Channel = Channel

    @property
    def default_connection_params(self):
        # No host: the broker is this process's memory.
        return {'port': self.default_port}

    @property
    def polling_interval(self):
        return None

    @polling_interval.setter
    def polling_interval(self, value):
        pass  # see the module docstring

    def drain_events(self, connection, timeout=None):
        started = time.monotonic()
        while True:
            with _arrived:
                seen = _sent
            try:
                self.cycle.get(self._deliver, timeout=timeout)
                return
            except virtual.Empty:
                waited = time.monotonic() - started
                if timeout is not None and waited >= timeout:
                    raise socket.timeout()
                wait = IDLE_WAIT if timeout is None else min(
                    IDLE_WAIT, timeout - waited)
                with _arrived:
                    if _sent == seen:  # nothing came since the last look
                        _arrived.wait(wait)


def configure(conf):
    """No heartbeats on the in-memory bus: nothing can stop answering
    them. A value set in a config file still wins."""
    for group, opts in oslo_messaging.opts.list_opts():
        if group == 'oslo_messaging_rabbit':
            conf.register_opts(opts, group=group)
    conf.set_default('heartbeat_timeout_threshold', 0,
                     group='oslo_messaging_rabbit')


def install():
    """Make ``memory://`` URLs use Transport; call before connecting."""
    transport.TRANSPORT_ALIASES['memory'] = '%s:Transport' % __name__
    cache = getattr(transport, '_transport_cache', None)
    if cache is not None:
        cache.pop('memory', None)
