"""RPC failures the API sees, counted where its casts and calls leave.

``counted`` puts a thin proxy in front of the oslo.messaging client of an
RPC API object (reserve.worker.rpcapi.WorkerAPI,
reserve.manager.rpcapi.ManagerAPI: their ``_client``): every cast and
call goes through unchanged, and one that raises is counted in
instruments.RPC_FAILURES before the exception goes on to the caller,
which handles it as before (a lost cast is logged, a call answered 503).
"""
import oslo_messaging as messaging

from reserve.metrics import instruments


def error_kind(exc):
    """timeout, remote or transport: who failed."""
    if isinstance(exc, messaging.MessagingTimeout):
        return 'timeout'
    if isinstance(exc, (messaging.RemoteError, messaging.ExpectedException)):
        return 'remote'
    if isinstance(exc, messaging.MessagingException):
        return 'transport'
    # reserve's own errors crossing the bus as themselves (the manager
    # refused: ALLOWED_EXMODS) are answers of the daemon.
    if type(exc).__module__.startswith('reserve.'):
        return 'remote'
    return 'transport'


class _Prepared:
    """A prepared call context whose cast and call are counted."""

    def __init__(self, prepared, topic):
        self._prepared = prepared
        self._topic = topic

    # Positional-only: the RPC's own keyword arguments (``kind`` of
    # diagnose, say) pass through **kwargs untouched.
    def _send(self, how, context, method, /, **kwargs):
        try:
            return getattr(self._prepared, how)(context, method, **kwargs)
        except Exception as exc:
            instruments.RPC_FAILURES.labels(
                how, self._topic, method, error_kind(exc)).inc()
            raise

    def cast(self, context, method, /, **kwargs):
        return self._send('cast', context, method, **kwargs)

    def call(self, context, method, /, **kwargs):
        return self._send('call', context, method, **kwargs)

    def __getattr__(self, name):
        return getattr(self._prepared, name)


class _CountedClient:
    """An oslo.messaging RPC client whose prepared contexts count."""

    def __init__(self, client):
        self._client = client
        self._topic = client.target.topic

    def prepare(self, *args, **kwargs):
        return _Prepared(self._client.prepare(*args, **kwargs), self._topic)

    def cast(self, context, method, /, **kwargs):
        return self.prepare().cast(context, method, **kwargs)

    def call(self, context, method, /, **kwargs):
        return self.prepare().call(context, method, **kwargs)

    def __getattr__(self, name):
        return getattr(self._client, name)


def counted(rpc_api):
    """``rpc_api`` (an object holding its client as ``_client``), its
    failures counted from now on."""
    rpc_api._client = _CountedClient(rpc_api._client)
    return rpc_api
