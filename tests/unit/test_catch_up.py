"""reserve.manager.catch_up: a booking left behind its lease by hand is
moved on, and told as its lease's start or end would have."""
import uuid

import pytest

from reserve.common import states
from reserve.manager import catch_up
from tests.unit import factories

B = states.Booking
L = states.Lease


def _booking_with_lease(booking_status, lease_status):
    booking_id = str(uuid.uuid4())
    lease = factories.make_lease(status=lease_status,
                                 **factories.booking_lease(booking_id))
    factories.make_booking(id=booking_id, status=booking_status,
                           lease_id=lease.id)
    return booking_id


@pytest.mark.parametrize('booking_status,lease_status,moved_to,event', [
    (B.ALLOCATED, L.ACTIVE, B.ACTIVE, 'reserve.reservation.start'),
    (B.ALLOCATED, L.TERMINATED, B.COMPLETE, 'reserve.reservation.end'),
    (B.ACTIVE, L.TERMINATED, B.COMPLETE, 'reserve.reservation.end'),
])
def test_a_lagging_booking_follows_its_lease(db, ctx, notifications,
                                             booking_status, lease_status,
                                             moved_to, event):
    booking_id = _booking_with_lease(booking_status, lease_status)
    assert catch_up.follow_lagging_owners(ctx) == 1
    assert factories.booking_status(booking_id) == moved_to
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
    booking_id = _booking_with_lease(booking_status, lease_status)
    assert catch_up.follow_lagging_owners(ctx) == 0
    assert factories.booking_status(booking_id) == booking_status
    assert notifications.event_types == []
