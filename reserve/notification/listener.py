"""The notification daemon's endpoints.

LeaseEventsEndpoint: ``lease.event.before_end_lease`` warns the live
bookings of the lease (``reserve.reservation.before_end``); it writes
nothing (a booking's status is the manager's). BookingMailEndpoint: each
``reserve.reservation.<event>`` (from the manager for each move of a
booking, from here before the end, from the desk for a drain's cancel)
mails the booking's user.

Each notification is emitted once per booking move (the moves are
compare-and-swaps), so each mail goes once in the normal path. A
notification delivered twice (a daemon killed after sending but before
the bus had its acknowledgement, a before_end_lease event run again by the
manager) sends its mail twice: mails are at least once, never blocking.
"""
from oslo_log import log as logging
import oslo_messaging as messaging

from reserve.common import states
from reserve.notification.mail import mailer as mail
from reserve.notification import sync

LOG = logging.getLogger(__name__)


class LeaseEventsEndpoint:
    filter_rule = messaging.NotificationFilter(
        publisher_id=r'^reserve\.manager', event_type=r'^lease\.')

    def info(self, ctxt, publisher_id, event_type, payload, metadata):
        lease_id = payload.get('lease_id')
        LOG.debug('%s for lease %s from %s', event_type, lease_id,
                  publisher_id)
        # The booking's moves (and their reserve.reservation.<event>)
        # are the manager's, made with its lease's; the warning before
        # the end moves nothing.
        if event_type == 'lease.event.before_end_lease':
            for booking in sync.bookings_of_lease(ctxt, lease_id):
                if booking.status in states.Booking.LIVE:
                    sync.emit(ctxt, 'before_end', booking)
        return messaging.NotificationResult.HANDLED


class SpotMailEndpoint:
    """``spot.server.warning`` and ``spot.server.reclaimed`` (from the
    manager's spot task) mail the spot server's user."""
    filter_rule = messaging.NotificationFilter(
        publisher_id=r'^reserve\.spot', event_type=r'^spot\.server\.')

    EVENTS = {'spot.server.warning': 'spot_warning',
              'spot.server.reclaimed': 'spot_reclaimed'}

    def __init__(self, mailer):
        self.mailer = mailer

    def info(self, ctxt, publisher_id, event_type, payload, metadata):
        event = self.EVENTS.get(event_type)
        if event and (payload or {}).get('server_id'):
            self.mailer.spot_event(ctxt, event, payload)
        return messaging.NotificationResult.HANDLED


class BookingMailEndpoint:
    filter_rule = messaging.NotificationFilter(
        publisher_id=r'^reserve\.', event_type=r'^reserve\.reservation\.')

    PREFIX = 'reserve.reservation.'

    def __init__(self, mailer=None):
        self.mailer = mailer or mail.Mailer()

    def info(self, ctxt, publisher_id, event_type, payload, metadata):
        event = event_type[len(self.PREFIX):]
        booking_id = (payload or {}).get('reservation_id')
        if booking_id:
            # Never raises: a mail that fails is logged and dropped.
            self.mailer.booking_event(ctxt, event, booking_id)
        return messaging.NotificationResult.HANDLED
