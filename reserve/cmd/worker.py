"""reserve-worker."""
from oslo_config import cfg

from reserve.common import service
from reserve.worker import service as worker_service


def main():
    service.prepare()
    service.serve(worker_service.WorkerService,
                  workers=cfg.CONF.worker.workers)
