"""A booking's status after its creation: the manager's moves
(reserve.manager.booking_status, through owners), the desk's close
(reserve.booking.cancel), and the listener, which moves nothing."""
import oslo_messaging as messaging
import pytest

from reserve.booking import cancel
from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import states
from reserve.db import bookings as bookings_db
from reserve.manager import owners
from reserve.notification import listener
from tests.unit import factories
from tests.unit.factories import booking_with_lease

pytestmark = pytest.mark.usefixtures('db')

B = states.Booking
L = states.Lease


def ctx():
    return reserve_context.get_admin_context()


def follow(lease, lease_status):
    moved = owners.follow(ctx(), lease, lease_status)
    owners.announce(ctx(), moved)
    return moved


@pytest.mark.parametrize('before,lease_status,after,event',
                         factories.BOOKING_FOLLOWS_LEASE)
def test_booking_moves_with_its_lease(notifications, before, lease_status,
                                      after, event):
    row, lease = booking_with_lease(before)

    assert follow(lease, lease_status).booking.status == after

    assert factories.booking_status(row.id) == after
    [(event_type, payload)] = notifications.sent
    assert event_type == event
    assert payload['reservation_id'] == row.id
    assert payload['status'] == after
    assert payload['lease_id'] == lease.id


@pytest.mark.parametrize('lease_status', [L.ACTIVE, L.TERMINATED])
def test_a_move_made_again_changes_nothing_and_tells_nobody(
        notifications, lease_status):
    row, lease = booking_with_lease(B.ALLOCATED)
    follow(lease, lease_status)
    status = factories.booking_status(row.id)
    notifications.clear()

    assert follow(lease, lease_status) is None

    assert factories.booking_status(row.id) == status
    assert notifications.sent == []


@pytest.mark.parametrize('lease_status', [L.ACTIVE, L.TERMINATED])
@pytest.mark.parametrize('stays', [B.ERROR, B.COMPLETE, B.PENDING_CREATE])
def test_finished_or_failed_bookings_never_move(notifications, lease_status,
                                                stays):
    row, lease = booking_with_lease(stays)
    assert follow(lease, lease_status) is None
    assert factories.booking_status(row.id) == stays
    assert notifications.sent == []


@pytest.mark.parametrize('lease_status', [L.PENDING, L.STARTING, L.ERROR,
                                          L.TERMINATING, L.DELETING])
def test_other_lease_states_move_nothing(notifications, lease_status):
    row, lease = booking_with_lease(B.ALLOCATED)
    assert follow(lease, lease_status) is None
    assert factories.booking_status(row.id) == B.ALLOCATED


@pytest.mark.parametrize('lease_status', [L.ACTIVE, L.TERMINATED])
def test_a_cancelled_booking_stays_cancelled_whatever_its_lease_does(
        notifications, lease_status):
    row, lease = booking_with_lease(B.ALLOCATED)
    closed = cancel.booking(ctx(), row.id, 'alice')
    assert closed.status == B.COMPLETE
    assert closed.status_reason.startswith('Cancelled by alice')

    assert follow(lease, lease_status) is None
    assert factories.booking_status(row.id) == B.COMPLETE
    assert notifications.sent == []
    with pytest.raises(exception.InvalidState):
        cancel.booking(ctx(), row.id, 'bob')


def test_an_eviction_shows_error_and_is_final(notifications):
    row, lease = booking_with_lease(B.ACTIVE)
    assert cancel.evict(ctx(), row.id, 'no room').status == B.ERROR
    assert cancel.evict(ctx(), row.id, 'again') is None
    follow(lease, L.TERMINATED)
    booking = bookings_db.booking_get(ctx(), row.id)
    assert (booking.status, booking.status_reason) == (B.ERROR, 'no room')


def test_the_shown_status_is_what_queries_filter_on():
    live, _ = booking_with_lease(B.ALLOCATED)
    closed, _ = booking_with_lease(B.ACTIVE)
    cancel.booking(ctx(), closed.id, 'alice')
    ids = lambda status: {b.id for b in bookings_db.booking_list(  # noqa
        ctx(), status=status)}
    assert ids(B.ALLOCATED) == {live.id}
    assert ids(B.ACTIVE) == set()
    assert ids(B.COMPLETE) == {closed.id}


def test_refused_lease_puts_a_pending_booking_in_error(notifications):
    row = factories.make_booking(status=B.PENDING_CREATE)
    owners.refused(ctx(), states.Owner.BOOKING, row.id,
                   exception.Invalid(reason='no room'))
    booking = bookings_db.booking_get(ctx(), row.id)
    assert booking.status == B.ERROR
    assert 'no room' in booking.status_reason
    assert notifications.sent == []


# The listener moves nothing -------------------------------------------------

def lease_event(event_type, lease_id):
    """What the notification daemon's endpoint is handed."""
    return listener.LeaseEventsEndpoint().info(
        ctx(), 'reserve.manager.host-a', event_type,
        {'lease_id': lease_id, 'status': 'ACTIVE'}, {})


@pytest.mark.parametrize('event_type', ['lease.event.start_lease',
                                        'lease.event.end_lease',
                                        'lease.create', 'lease.update'])
def test_lease_notifications_move_no_booking(notifications, event_type):
    row, lease = booking_with_lease(B.ALLOCATED)
    assert lease_event(event_type, lease.id) == \
        messaging.NotificationResult.HANDLED
    assert factories.booking_status(row.id) == B.ALLOCATED
    assert notifications.sent == []


def test_before_end_warns_live_bookings_only(notifications):
    live, lease = booking_with_lease(B.ACTIVE)
    factories.make_booking(status=B.ERROR, lease_id=lease.id)
    lease_event('lease.event.before_end_lease', lease.id)
    assert [(t, p['reservation_id']) for t, p in notifications.sent] == [
        ('reserve.reservation.before_end', live.id)]


def test_notification_for_an_unknown_lease_is_handled(notifications):
    assert lease_event('lease.event.before_end_lease', 'no-such-lease') == \
        messaging.NotificationResult.HANDLED
    assert notifications.sent == []
