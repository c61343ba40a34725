"""reserve-notification."""
from oslo_config import cfg

from reserve.common import service
from reserve.notification import service as notification_service


def main():
    service.prepare()
    service.serve(notification_service.NotificationService,
                  workers=cfg.CONF.notification.workers)
