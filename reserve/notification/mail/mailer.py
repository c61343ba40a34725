"""One mail per booking event, to the booking's user; never raises.

The notification daemon calls ``Mailer.booking_event`` for each
``reserve.reservation.<event>`` notification (see listener). The booking
is read again from the database so the mail tells its current window and
flavor, and a mail that no longer makes sense (a "ready" mail for a
booking already over, a warning for a booking already ended or gone) is
dropped.
"""
from oslo_config import cfg
from oslo_log import log as logging

from reserve.common import exception
from reserve.common import states
from reserve.common import timeutils
from reserve.db import bookings as bookings_db
from reserve.notification.mail import drivers
from reserve.notification.mail import render
from reserve.notification.mail import users

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

B = states.Booking

# event → (booking states in which its mail is still worth sending,
#           whether the booking must not have ended yet)
_STILL_TRUE = {
    'allocated': ((B.ALLOCATED, B.ACTIVE), True),
    'start': ((B.ACTIVE,), True),
    'before_end': ((B.ALLOCATED, B.ACTIVE), True),
    'end': ((B.COMPLETE,), False),
    'cancelled': ((B.ERROR,), False),
    'healed': (B.LIVE, True),
    'degraded': (B.LIVE, True),
    'restored': (B.LIVE, True),
    # The standby list (reserve.booking.standby).
    'promoted': (B.LIVE, True),
    'lapsed': ((B.LAPSED,), False),
}


def _catalogue():
    # The booking desk's catalogue, where there is one.
    try:
        from reserve.db import flavors
    except ImportError:
        return None
    return flavors


def flavor_name(context, booking):
    """The booked flavor's name in the catalogue, else its id."""
    catalogue = _catalogue()
    if catalogue is not None:
        try:
            return catalogue.flavor_get(context, booking.flavor_id).name
        except Exception:
            LOG.debug('Flavor %s of reservation %s is not in the catalogue',
                      booking.flavor_id, booking.id)
    return booking.flavor_id


class Mailer:
    def __init__(self, driver=None, address_book=None):
        self._driver = driver
        self.address_book = address_book or users.AddressBook()

    @property
    def driver(self):
        if self._driver is None:
            self._driver = drivers.load()
        return self._driver

    def check(self):
        """Load the driver now; log (never raise) if it cannot be."""
        if not CONF.email.enabled_events:
            LOG.info('User e-mails are off ([email]enabled_events is '
                     'empty)')
            return False
        try:
            driver = self.driver
        except drivers.DriverError as exc:
            LOG.error('User e-mails will not be sent: %s', exc)
            return False
        LOG.info('User e-mails on %s through the %s driver',
                 ', '.join(CONF.email.enabled_events),
                 type(driver).__name__)
        return True

    def booking_event(self, context, event, booking_id):
        """Mail the user of ``booking_id`` about ``event``; True if sent."""
        try:
            return self._booking_event(context, event, booking_id)
        except Exception:
            LOG.exception('The %s mail of reservation %s was not sent',
                          event, booking_id)
            return False

    def spot_event(self, context, event, payload):
        """Mail the user of a spot server about ``event`` (spot_warning,
        spot_reclaimed); True if sent. Never raises."""
        try:
            return self._spot_event(event, payload)
        except Exception:
            LOG.exception('The %s mail of spot server %s was not sent',
                          event, (payload or {}).get('server_id'))
            return False

    def _spot_event(self, event, payload):
        if event not in render.SPOT_EVENTS:
            return False
        if event not in CONF.email.enabled_events:
            LOG.debug('No %s mail: not in [email]enabled_events', event)
            return False
        user = payload.get('user_id') and self.address_book.lookup(
            payload['user_id'])
        if not user:
            return False
        message = render.build_spot_message(event, payload, user.email,
                                            user_name=user.name)
        return self._send(message, event, 'spot server %s' %
                          payload['server_id'], payload['user_id'],
                          user.email)

    def _send(self, message, event, what, user_id, address):
        try:
            self.driver.send(message)
        except Exception as exc:
            LOG.warning('The %s mail of %s to %s was not sent: %s: %s',
                        event, what, address, type(exc).__name__, exc)
            return False
        LOG.info('Sent the %s mail of %s to user %s <%s>', event, what,
                 user_id, address)
        return True

    def _booking_event(self, context, event, booking_id):
        if event not in _STILL_TRUE:
            return False  # a spot event is spot_event's
        if event not in CONF.email.enabled_events:
            LOG.debug('No %s mail: not in [email]enabled_events', event)
            return False
        try:
            booking = bookings_db.booking_get(context, booking_id)
        except exception.BookingNotFound:
            LOG.info('No %s mail for reservation %s: it is gone', event,
                     booking_id)
            return False
        statuses, not_over = _STILL_TRUE[event]
        if booking.status not in statuses or (
                not_over and booking.end <= timeutils.utcnow()):
            LOG.info('No %s mail for reservation %s: it is %s, ending %s',
                     event, booking_id, booking.status,
                     timeutils.isoformat(booking.end))
            return False
        user = self.address_book.lookup(booking.user_id)
        if user is None:
            return False
        message = render.build_message(
            event, booking, user.email, user_name=user.name,
            flavor_name=flavor_name(context, booking))
        return self._send(message, event, 'reservation %s' % booking_id,
                          booking.user_id, user.email)
