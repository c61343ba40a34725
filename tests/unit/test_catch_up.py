"""reserve.manager.catch_up: a booking left behind its lease by hand is
moved on, and told as its lease's start or end would have."""
import pytest

from reserve.common import states
from reserve.manager import catch_up
from tests.unit import factories

B = states.Booking
L = states.Lease


@pytest.mark.parametrize('booking_status,lease_status,moved_to,event',
                         factories.BOOKING_FOLLOWS_LEASE)
def test_a_lagging_booking_follows_its_lease(db, ctx, notifications,
                                             booking_status, lease_status,
                                             moved_to, event):
    booking, _ = factories.booking_with_lease(booking_status, lease_status)
    assert catch_up.follow_lagging_owners(ctx) == 1
    assert factories.booking_status(booking.id) == moved_to
    assert notifications.event_types == [event]
    # Moved once: nothing more to do, nothing told again.
    assert catch_up.follow_lagging_owners(ctx) == 0
    assert notifications.event_types == [event]


@pytest.mark.parametrize('booking_status,lease_status', [
    (B.ALLOCATED, L.PENDING), (B.ACTIVE, L.ACTIVE),
    (B.COMPLETE, L.TERMINATED), (B.ALLOCATED, L.STARTING),
    (B.ACTIVE, L.TERMINATING),
])
def test_bookings_in_step_are_left_alone(db, ctx, notifications,
                                         booking_status, lease_status):
    booking, _ = factories.booking_with_lease(booking_status, lease_status)
    assert catch_up.follow_lagging_owners(ctx) == 0
    assert factories.booking_status(booking.id) == booking_status
    assert notifications.event_types == []
