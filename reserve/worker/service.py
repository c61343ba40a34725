"""reserve-worker: the RPC server on topic reserve-worker and the
periodic reconciler."""
import threading

from oslo_config import cfg
from oslo_log import log as logging

from reserve.common import context as reserve_context
from reserve.common import rpc
from reserve.db import api as db_api
from reserve.db import heartbeat
from reserve.worker import reconciler
from reserve.worker import rpcapi
from reserve.worker import standby_loop
from reserve.worker import worker

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


class WorkerService:
    def __init__(self):
        self.standby = standby_loop.StandbyLoop(rpcapi.WorkerAPI())
        self.endpoint = worker.BookingWorker(standby_pass=self.standby)
        self._server = None
        self._stop = threading.Event()
        self._thread = None
        self.heartbeat = heartbeat.Heartbeat('reserve-worker')

    def start(self):
        self.heartbeat.start()
        self._server = rpc.get_server(rpc.WORKER_TOPIC,
                                      self.endpoint.target.version,
                                      [self.endpoint])
        self._server.start()
        worker_api = rpcapi.WorkerAPI()
        self._reconciler = reconciler.Reconciler(worker_api)
        self._thread = threading.Thread(target=self._reconcile_loop,
                                        name='reserve-reconciler',
                                        daemon=True)
        self._thread.start()
        self.standby.start()
        LOG.info('reserve-worker started')

    def _reconcile_loop(self):
        while not self._stop.wait(CONF.worker.reconcile_interval):
            try:
                self._reconciler.run(reserve_context.get_admin_context())
            except Exception as exc:
                db_api.log_failure(LOG, 'Reconciler run failed', exc)

    def stop(self):
        self._stop.set()
        if self._server is not None:
            self._server.stop()
            self._server.wait()
        if self._thread is not None:
            self._thread.join(10)
        self.standby.stop()
        self.heartbeat.stop()
        LOG.info('reserve-worker stopped')
