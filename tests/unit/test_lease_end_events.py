"""Moving a lease's end moves its end events, and warns the users again.

The manager's update_lease on leases written straight to the database
(no reservations, so no plugin has a say), and the real event loop
running what falls due; the manager's notifications are recorded.
"""
import datetime

import pytest

from reserve.common import context as reserve_context
from reserve.common import states
from reserve.common import timeutils
from reserve.manager import events as manager_events
from reserve.manager import manager as lease_manager
from reserve.manager import notify
from tests.fixtures import database
from tests.unit.conftest import NotificationRecorder
from tests.unit import factories
from tests.unit.factories import BEFORE_END, END, START, ago, ahead, event

pytestmark = pytest.mark.usefixtures('db')

DONE = states.Event.DONE
UNDONE = states.Event.UNDONE
WARN_MINUTES = 60


@pytest.fixture
def sent(override, monkeypatch):
    override('minutes_before_end_lease', WARN_MINUTES, group='manager')
    override('host', 'manager-a')
    recorder = NotificationRecorder()
    monkeypatch.setattr(notify, '_notifier', lambda: recorder)
    return recorder


@pytest.fixture
def loop(sent):
    event_loop = manager_events.EventLoop()
    yield event_loop
    event_loop.stop()


def _ctx():
    return reserve_context.get_admin_context()


def _move_end(lease, end):
    lease_manager.LeaseManager(nova_client=object(),
                               placement_client=object()).update_lease(
        _ctx(), lease.id, {'end': end})


def _events(lease):
    """(type, time, status) of the lease's events, by time then type."""
    return sorted((e.event_type, e.time, e.status)
                  for e in database.lease_events(_ctx(), lease.id))


def _warned_lease(end_in_minutes=30):
    """An active lease whose users were warned of its end already."""
    start, end = ago(hours=2), ahead(minutes=end_in_minutes)
    warned = end - datetime.timedelta(minutes=WARN_MINUTES)
    return factories.make_lease(
        [event(START, start, status=DONE),
         event(BEFORE_END, warned, status=DONE),
         event(END, end)],
        status=states.Lease.ACTIVE, start=start, end=end), warned


def test_extending_after_the_warning_arms_a_new_one(sent):
    lease, warned = _warned_lease()
    new_end = ahead(hours=3)

    _move_end(lease, new_end)

    assert _events(lease) == sorted([
        (START, lease.start, DONE),
        (BEFORE_END, warned, DONE),
        (BEFORE_END, new_end - datetime.timedelta(minutes=WARN_MINUTES),
         UNDONE),
        (END, new_end, UNDONE)])


def test_shortening_after_the_warning_warns_again_at_once(sent, loop):
    lease, warned = _warned_lease(end_in_minutes=50)
    new_end = ahead(minutes=20)

    _move_end(lease, new_end)
    sent.clear()
    assert loop.tick() == 1

    # The new warning was due already (20 minutes left, warned 60 before).
    assert sent.event_types == ['lease.event.before_end_lease']
    assert sent.sent[0][1]['end'] == timeutils.isoformat(new_end)
    assert [status for kind, _, status in _events(lease)
            if kind == BEFORE_END] == [DONE, DONE]


def test_a_warning_still_to_come_just_moves(sent):
    start, end = ahead(hours=1), ahead(hours=4)
    lease = factories.make_lease(
        [event(START, start),
         event(BEFORE_END, end - datetime.timedelta(minutes=WARN_MINUTES)),
         event(END, end)], start=start, end=end)
    new_end = ahead(hours=6)

    _move_end(lease, new_end)

    assert _events(lease) == sorted([
        (START, start, UNDONE),
        (BEFORE_END, new_end - datetime.timedelta(minutes=WARN_MINUTES),
         UNDONE),
        (END, new_end, UNDONE)])


def test_the_same_end_warns_nobody_again(sent):
    lease, _ = _warned_lease()
    before = _events(lease)

    _move_end(lease, lease.end)

    assert _events(lease) == before
