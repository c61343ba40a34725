"""reserve-notification: the lease notification listener."""
from oslo_log import log as logging

from reserve.common import rpc
from reserve.db import heartbeat
from reserve.notification import listener

LOG = logging.getLogger(__name__)

POOL = 'reserve-notification'


class NotificationService:
    def __init__(self):
        self._listener = None
        self.heartbeat = heartbeat.Heartbeat('reserve-notification')

    def start(self):
        self.heartbeat.start()
        # One pool: several daemons share the work instead of each
        # receiving every notification.
        mail = listener.BookingMailEndpoint()
        mail.mailer.check()
        self._listener = rpc.get_notification_listener(
            [listener.LeaseEventsEndpoint(), mail,
             listener.SpotMailEndpoint(mail.mailer)], pool=POOL)
        self._listener.start()
        LOG.info('reserve-notification started')

    def stop(self):
        if self._listener is not None:
            self._listener.stop()
            self._listener.wait()
        self.heartbeat.stop()
        LOG.info('reserve-notification stopped')
