"""The in-memory message bus of the all-in-one, without a busy loop.

The all-in-one runs its four services in one process over kombu's
``memory`` transport (``kombu+memory:////``). oslo.messaging sets that
transport's polling interval to 0 on every connection (to speed up its
own tests), so each listener thread would spin between messages and an
idle all-in-one would burn most of a core. The transport installed here
keeps a short sleep between polls instead: a message waits at most
POLL_INTERVAL longer, and an idle process stays idle.
"""
from kombu import transport
from kombu.transport import memory

POLL_INTERVAL = 0.01  # seconds


class Transport(memory.Transport):
    """kombu's memory transport (same broker state) that keeps its
    polling interval whatever the caller sets."""

    @property
    def polling_interval(self):
        return POLL_INTERVAL

    @polling_interval.setter
    def polling_interval(self, value):
        pass  # see the module docstring


def install():
    """Make ``memory://`` URLs use Transport; call before connecting."""
    transport.TRANSPORT_ALIASES['memory'] = '%s:Transport' % __name__
    cache = getattr(transport, '_transport_cache', None)
    if cache is not None:
        cache.pop('memory', None)
