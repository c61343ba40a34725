"""Start-up shared by the daemons: config, logging, signals, workers."""
import gc
import signal
import sys
import threading

import cotyledon
from oslo_config import cfg
from oslo_log import log as logging

from reserve import conf as reserve_conf  # noqa: F401 (registers options)
from reserve.conf import opts
from reserve.common import rpc

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


def prepare(argv=None, default_config_files=None):
    """Parse the command line and config files, set up logging."""
    logging.register_options(CONF)
    opts.set_defaults(CONF)
    CONF(sys.argv[1:] if argv is None else argv, project='reserve',
         default_config_files=default_config_files)
    logging.setup(CONF, 'reserve')


def freeze_start_up_objects():
    """Once a server is built: collect what its start-up threw away and
    move what is left (modules, the application, schemas, policies) out
    of the garbage collector's way. Full collections then stop walking
    them (the p99 of a page of 1,000 device reservations halves:
    tests/benchmarks/bench_device_list.py), and WSGI workers forked
    after it share those pages instead of touching them."""
    gc.collect()
    gc.freeze()


class _Process(cotyledon.Service):
    """Runs one reserve service object in a cotyledon worker process."""

    def __init__(self, worker_id, factory):
        super().__init__(worker_id)
        self._factory = factory
        self._service = None

    def run(self):
        # Transports are made after the fork, in the worker itself.
        self._service = self._factory()
        self._service.start()

    def terminate(self):
        if self._service is not None:
            self._service.stop()
        rpc.cleanup()


def serve(factory, workers=1):
    """Run ``workers`` processes of the service made by ``factory``."""
    manager = cotyledon.ServiceManager()
    manager.add(_Process, workers=workers, args=(factory,))
    manager.run()


def run_in_threads(services, on_started=None):
    """Run several service objects in this process until a signal."""
    stop = threading.Event()

    def _stop(signum, _frame):
        LOG.info('Signal %d received, stopping', signum)
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    for service in services:
        service.start()
    if on_started is not None:
        on_started()
    while not stop.wait(1):
        pass
    for service in reversed(services):
        try:
            service.stop()
        except Exception:
            LOG.exception('Stopping %s failed', service)
    rpc.cleanup()
