"""Bookings follow their lease: notification.sync and the listener."""
import oslo_messaging as messaging
import pytest

from reserve.common import context as reserve_context
from reserve.common import rpc
from reserve.common import states
from reserve.notification import listener
from reserve.notification import sync
from tests.unit import factories

pytestmark = pytest.mark.usefixtures('db')

B = states.Booking
L = states.Lease


@pytest.fixture
def lease(db):
    return factories.make_lease(status=L.ACTIVE)


def booking(lease, status):
    return factories.make_booking(status=status, lease_id=lease.id)


def lease_event(event_type, lease_id):
    """What the notification daemon's endpoint is handed."""
    return listener.LeaseEventsEndpoint().info(
        reserve_context.get_admin_context(), 'reserve.manager.host-a',
        event_type, {'lease_id': lease_id, 'status': 'ACTIVE'}, {})


# apply_lease_status ----------------------------------------------------------

@pytest.mark.parametrize('lease_status,before,after,event', [
    (L.ACTIVE, B.ALLOCATED, B.ACTIVE, 'start'),
    (L.TERMINATED, B.ALLOCATED, B.COMPLETE, 'end'),
    (L.TERMINATED, B.ACTIVE, B.COMPLETE, 'end'),
])
def test_booking_moves_with_its_lease(notifications, lease, lease_status,
                                      before, after, event):
    row = booking(lease, before)
    ctx = reserve_context.get_admin_context()

    moved = sync.apply_lease_status(ctx, lease.id, lease_status)

    assert [b.id for b in moved] == [row.id]
    assert moved[0].status == after
    assert factories.booking_status(row.id) == after
    [(event_type, payload)] = notifications.sent
    assert event_type == 'reserve.reservation.%s' % event
    assert payload['reservation_id'] == row.id
    assert payload['status'] == after
    assert payload['lease_id'] == lease.id
    assert payload['project_id'] == 'project-a'


@pytest.mark.parametrize('lease_status', [L.ACTIVE, L.TERMINATED])
def test_replay_changes_nothing_and_tells_nobody(notifications, lease,
                                                 lease_status):
    row = booking(lease, B.ALLOCATED)
    ctx = reserve_context.get_admin_context()
    sync.apply_lease_status(ctx, lease.id, lease_status)
    status = factories.booking_status(row.id)
    notifications.clear()

    assert sync.apply_lease_status(ctx, lease.id, lease_status) == []

    assert factories.booking_status(row.id) == status
    assert notifications.sent == []


@pytest.mark.parametrize('lease_status', [L.ACTIVE, L.TERMINATED])
@pytest.mark.parametrize('stays', [B.ERROR, B.COMPLETE, B.PENDING_CREATE])
def test_finished_or_failed_bookings_never_move(notifications, lease,
                                                lease_status, stays):
    row = booking(lease, stays)
    ctx = reserve_context.get_admin_context()
    assert sync.apply_lease_status(ctx, lease.id, lease_status) == []
    assert factories.booking_status(row.id) == stays
    assert notifications.sent == []


def test_active_booking_is_not_moved_by_a_start(notifications, lease):
    row = booking(lease, B.ACTIVE)
    ctx = reserve_context.get_admin_context()
    assert sync.apply_lease_status(ctx, lease.id, L.ACTIVE) == []
    assert factories.booking_status(row.id) == B.ACTIVE
    assert notifications.sent == []


@pytest.mark.parametrize('lease_status', [L.PENDING, L.STARTING, L.ERROR,
                                          L.TERMINATING, L.DELETING])
def test_other_lease_states_move_nothing(notifications, lease, lease_status):
    row = booking(lease, B.ALLOCATED)
    ctx = reserve_context.get_admin_context()
    assert sync.apply_lease_status(ctx, lease.id, lease_status) == []
    assert factories.booking_status(row.id) == B.ALLOCATED
    assert notifications.sent == []


def test_only_the_bookings_of_that_lease_move(notifications, lease):
    mine = booking(lease, B.ALLOCATED)
    other_lease = factories.make_lease(status=L.PENDING)
    theirs = booking(other_lease, B.ALLOCATED)
    ctx = reserve_context.get_admin_context()
    sync.apply_lease_status(ctx, lease.id, L.ACTIVE)
    assert factories.booking_status(mine.id) == B.ACTIVE
    assert factories.booking_status(theirs.id) == B.ALLOCATED
    assert [p['reservation_id'] for _, p in notifications.sent] == [mine.id]


# The listener's endpoint -----------------------------------------------------

def test_start_lease_notification_activates_the_booking(notifications,
                                                        lease):
    row = booking(lease, B.ALLOCATED)
    result = lease_event('lease.event.start_lease', lease.id)
    assert result == messaging.NotificationResult.HANDLED
    assert factories.booking_status(row.id) == B.ACTIVE
    assert notifications.event_types == ['reserve.reservation.start']


@pytest.mark.parametrize('before', [B.ALLOCATED, B.ACTIVE])
def test_end_lease_notification_completes_the_booking(notifications, lease,
                                                      before):
    row = booking(lease, before)
    lease_event('lease.event.end_lease', lease.id)
    assert factories.booking_status(row.id) == B.COMPLETE
    assert notifications.event_types == ['reserve.reservation.end']


def test_replayed_notifications_are_harmless(notifications, lease):
    row = booking(lease, B.ALLOCATED)
    for event_type in ('lease.event.start_lease', 'lease.event.start_lease',
                       'lease.event.end_lease', 'lease.event.end_lease',
                       'lease.event.start_lease'):
        lease_event(event_type, lease.id)
    assert factories.booking_status(row.id) == B.COMPLETE
    assert notifications.event_types == ['reserve.reservation.start',
                                         'reserve.reservation.end']


@pytest.mark.parametrize('stays', [B.ERROR, B.COMPLETE])
@pytest.mark.parametrize('event_type', ['lease.event.start_lease',
                                        'lease.event.end_lease'])
def test_listener_leaves_error_and_complete_bookings(notifications, lease,
                                                     stays, event_type):
    row = booking(lease, stays)
    lease_event(event_type, lease.id)
    assert factories.booking_status(row.id) == stays
    assert notifications.sent == []


def test_before_end_warns_live_bookings_only(notifications, lease):
    live = booking(lease, B.ACTIVE)
    booking(lease, B.ERROR)
    lease_event('lease.event.before_end_lease', lease.id)
    assert factories.booking_status(live.id) == B.ACTIVE
    assert [(t, p['reservation_id']) for t, p in notifications.sent] == [
        ('reserve.reservation.before_end', live.id)]


def test_unrelated_lease_notifications_change_nothing(notifications, lease):
    row = booking(lease, B.ALLOCATED)
    assert lease_event('lease.update', lease.id) == \
        messaging.NotificationResult.HANDLED
    assert factories.booking_status(row.id) == B.ALLOCATED
    assert notifications.sent == []


def test_notification_for_an_unknown_lease_is_handled(notifications):
    assert lease_event('lease.event.end_lease', 'no-such-lease') == \
        messaging.NotificationResult.HANDLED
    assert notifications.sent == []


def test_moves_through_the_real_notifier_on_the_fake_transport(override,
                                                               lease):
    # No recorder: the notifier is oslo.messaging's, on fake://.
    override('transport_url', 'fake://')
    rpc.cleanup()
    sync._NOTIFIER = None
    try:
        row = booking(lease, B.ALLOCATED)
        lease_event('lease.event.start_lease', lease.id)
        assert factories.booking_status(row.id) == B.ACTIVE
        assert sync._NOTIFIER is not None
    finally:
        rpc.cleanup()
        sync._NOTIFIER = None
