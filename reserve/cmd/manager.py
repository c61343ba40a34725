"""reserve-manager (one process: the event loop is not split)."""
from reserve.common import service
from reserve.manager import service as manager_service


def main():
    service.prepare()
    service.serve(manager_service.ManagerService)
