"""Pecan hooks: the request context, RPC clients and error rendering.

There is no database hook: controllers call ``reserve.db.api`` with the
request context, which carries the enginefacade transaction state.
"""
import threading

from oslo_config import cfg
from oslo_middleware import request_id as request_id_mw
from pecan import hooks

from reserve.api import errors
from reserve.common import context as reserve_context
from reserve.manager import rpcapi as manager_rpcapi
from reserve.metrics import rpc as rpc_metrics
from reserve.worker import rpcapi as worker_rpcapi


class ContextHook(hooks.PecanHook):
    """Builds ``request.context`` from the headers auth has set."""

    priority = 10

    def before(self, state):
        environ = state.request.environ
        kwargs = {}
        request_id = environ.get(request_id_mw.ENV_REQUEST_ID)
        if request_id:
            kwargs['request_id'] = request_id
        state.request.context = reserve_context.RequestContext.from_environ(
            environ, **kwargs)


class _LazyClient:
    """Creates its RPC client on first use, then reuses it.

    GET requests never touch it, so they never need a message transport.
    """

    def __init__(self, factory):
        self._factory = factory
        self._client = None
        self._lock = threading.Lock()

    def _get(self):
        if self._client is None:
            with self._lock:
                if self._client is None:
                    self._client = self._factory()
        return self._client

    def __getattr__(self, name):
        return getattr(self._get(), name)


class RPCHook(hooks.PecanHook):
    """Gives ``request.worker_api`` and ``request.manager_api``."""

    priority = 20

    def __init__(self):
        # Their failed casts and calls are counted (reserve_api_rpc_failures).
        self.worker_api = _LazyClient(
            lambda: rpc_metrics.counted(worker_rpcapi.WorkerAPI()))
        self.manager_api = _LazyClient(
            lambda: rpc_metrics.counted(manager_rpcapi.ManagerAPI(
                timeout=cfg.CONF.api.rpc_timeout)))

    def before(self, state):
        state.request.worker_api = self.worker_api
        state.request.manager_api = self.manager_api


class ErrorHook(hooks.PecanHook):
    """Renders every exception a controller or pecan raises as the one
    error body (unexpected ones as a 500 without a traceback)."""

    priority = 1000

    def on_error(self, state, exc):
        environ = state.request.environ
        return errors.response_for_exception(
            exc, errors.request_id_of(environ), environ)
