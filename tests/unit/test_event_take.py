"""reserve.db.events.event_take_due and event_next_time, on SQLite."""
import collections
import datetime
import sqlite3
import threading
import time

import pytest
from sqlalchemy import exc as sa_exc

from reserve.common import context as reserve_context
from reserve.common import states
from reserve.common import timeutils
from reserve.db import events as events_db
from reserve.db import leases as leases_db
from tests.fixtures import database
from tests.unit import factories
from tests.unit.factories import BEFORE_END, END, START, ago, ahead, event

pytestmark = pytest.mark.usefixtures('db')

UNDONE = states.Event.UNDONE
IN_PROGRESS = states.Event.IN_PROGRESS
DONE = states.Event.DONE
ERROR = states.Event.ERROR

STUCK_AFTER = datetime.timedelta(minutes=15)
RETRY_AFTER = datetime.timedelta(minutes=1)
MAX_ATTEMPTS = 3


def take(now=None, taker='manager-1', context=None, limit=50):
    """One manager's take, with a 15 min timeout and a 1 min retry."""
    now = now or timeutils.utcnow()
    return events_db.event_take_due(
        context or reserve_context.get_admin_context(), now, taker,
        stuck_before=now - STUCK_AFTER, retry_before=now - RETRY_AFTER,
        max_attempts=MAX_ATTEMPTS, limit=limit)


def taken_types(events):
    return [e.event_type for e in events]


def finish(event_id):
    events_db.event_update(reserve_context.get_admin_context(), event_id,
                           {'status': DONE})


# Due, future, taken once ----------------------------------------------------

def test_due_event_is_taken_once():
    lease = factories.make_lease([event(START, ago(minutes=1)),
                                  event(END, ahead(hours=2))])
    now = timeutils.utcnow()

    [taken] = take(now=now, taker='manager-1')

    assert taken.lease_id == lease.id
    assert taken.event_type == START
    assert taken.status == IN_PROGRESS
    assert taken.taken_by == 'manager-1'
    assert taken.taken_at == now
    assert taken.attempts == 1
    stored = factories.events_of(lease.id)
    assert stored[START].status == IN_PROGRESS
    assert stored[END].status == UNDONE
    # Neither the same manager nor another one gets it again.
    assert take(taker='manager-1') == []
    assert take(taker='manager-2') == []


def test_future_event_is_not_taken():
    lease = factories.make_lease([event(START, ahead(minutes=5))])
    assert take() == []
    assert factories.events_of(lease.id)[START].status == UNDONE


def test_event_is_due_at_its_own_second():
    when = ahead(minutes=5)
    factories.make_lease([event(START, when)])
    assert take(now=when - datetime.timedelta(seconds=1)) == []
    assert taken_types(take(now=when)) == [START]


def test_due_events_of_several_leases_are_taken_together():
    leases = [factories.make_lease([event(START, ago(minutes=m))])
              for m in (1, 2, 3)]
    taken = take()
    assert sorted(e.lease_id for e in taken) == sorted(
        lease.id for lease in leases)


def test_limit_caps_one_take():
    for m in (1, 2, 3):
        factories.make_lease([event(START, ago(minutes=m))])
    first = take(limit=2)
    second = take(limit=2)
    assert len(first) == 2
    assert len(second) == 1
    assert not {e.id for e in first} & {e.id for e in second}


# IN_PROGRESS: stuck or still running -----------------------------------------

def test_event_stuck_in_progress_is_taken_again():
    lease = factories.make_lease([event(
        START, ago(hours=1), status=IN_PROGRESS, attempts=1,
        taken_by='dead-manager', taken_at=ago(minutes=16))])
    now = timeutils.utcnow()

    [taken] = take(now=now, taker='manager-2')

    assert taken.lease_id == lease.id
    assert taken.taken_by == 'manager-2'
    assert taken.taken_at == now
    assert taken.attempts == 2
    assert take(taker='manager-3') == []


def test_event_in_progress_within_the_timeout_is_left_alone():
    lease = factories.make_lease([event(
        START, ago(hours=1), status=IN_PROGRESS, attempts=1,
        taken_by='busy-manager', taken_at=ago(minutes=14))])
    assert take(taker='manager-2') == []
    stored = factories.events_of(lease.id)[START]
    assert stored.taken_by == 'busy-manager'
    assert stored.attempts == 1


# ERROR: retried after a pause, a bounded number of times ---------------------

def test_failed_event_is_retried_after_the_retry_interval():
    lease = factories.make_lease([event(
        START, ago(hours=1), status=ERROR, attempts=1,
        updated_at=ago(minutes=2), last_error='nova: 503')])
    [taken] = take()
    assert taken.lease_id == lease.id
    assert taken.status == IN_PROGRESS
    assert taken.attempts == 2


def test_failed_event_is_not_retried_too_soon():
    factories.make_lease([event(START, ago(hours=1), status=ERROR,
                                attempts=1, updated_at=ago(seconds=30))])
    assert take() == []


def test_failed_event_out_of_attempts_is_left_for_an_operator():
    lease = factories.make_lease([event(
        START, ago(hours=1), status=ERROR, attempts=MAX_ATTEMPTS,
        updated_at=ago(hours=1))])
    assert take() == []
    assert factories.events_of(lease.id)[START].status == ERROR


def test_attempts_count_every_take():
    lease = factories.make_lease([event(START, ago(minutes=1))])
    ctx = reserve_context.get_admin_context()
    now = timeutils.utcnow()
    for attempt in range(1, MAX_ATTEMPTS + 1):
        [taken] = take(now=now)
        assert taken.attempts == attempt
        events_db.event_update(ctx, taken.id, {'status': ERROR})
        now += RETRY_AFTER + datetime.timedelta(seconds=5)
    # Out of attempts: never taken again, however long we wait.
    assert take(now=now + datetime.timedelta(days=1)) == []
    assert factories.events_of(lease.id)[START].attempts == MAX_ATTEMPTS


# Order within a lease --------------------------------------------------------

def test_only_the_earliest_unfinished_event_of_a_lease_is_eligible():
    lease = factories.make_lease([event(END, ago(minutes=1)),
                                  event(BEFORE_END, ago(minutes=30)),
                                  event(START, ago(hours=2))])
    order = []
    while True:
        taken = take()
        if not taken:
            break
        assert len(taken) == 1
        order.append(taken[0].event_type)
        finish(taken[0].id)
    assert order == [START, BEFORE_END, END]
    assert {e.status for e in factories.events_of(lease.id).values()} == {
        DONE}


def test_events_at_the_same_instant_run_in_lifecycle_order():
    when = ago(minutes=1)
    factories.make_lease([event(END, when), event(BEFORE_END, when),
                          event(START, when)])
    order = []
    for _ in range(3):
        [taken] = take()
        order.append(taken.event_type)
        finish(taken.id)
    assert order == [START, BEFORE_END, END]
    assert take() == []


# Callables: the times are taken when the test runs, not when it is
# collected (a long session would otherwise age them past the retry delay).
@pytest.mark.parametrize('start_values', [
    lambda: dict(status=IN_PROGRESS, attempts=1, taken_at=ago(minutes=1)),
    lambda: dict(status=ERROR, attempts=1, updated_at=ago(seconds=10)),
    lambda: dict(status=ERROR, attempts=MAX_ATTEMPTS,
                 updated_at=ago(hours=1)),
], ids=['running', 'waiting-for-retry', 'given-up'])
def test_end_waits_while_start_is_unfinished(start_values):
    lease = factories.make_lease([event(START, ago(hours=2),
                                        **start_values()),
                                  event(END, ago(minutes=1))])
    assert take() == []
    assert factories.events_of(lease.id)[END].status == UNDONE


def test_finished_start_lets_the_end_go():
    lease = factories.make_lease([event(START, ago(hours=2), status=DONE),
                                  event(END, ago(minutes=1))])
    [taken] = take()
    assert (taken.lease_id, taken.event_type) == (lease.id, END)


def test_a_blocked_lease_does_not_block_others():
    factories.make_lease([event(START, ago(hours=2), status=IN_PROGRESS,
                                attempts=1, taken_at=ago(minutes=1)),
                          event(END, ago(hours=1))])
    other = factories.make_lease([event(START, ago(minutes=1))])
    [taken] = take()
    assert taken.lease_id == other.id


def test_blocked_leases_do_not_starve_the_others():
    # Two leases whose start gave up: their end is due but must wait for
    # an operator. They sort first, and fill a take of two.
    for _ in range(2):
        factories.make_lease([
            event(START, ago(hours=3), status=ERROR, attempts=MAX_ATTEMPTS,
                  updated_at=ago(hours=3)),
            event(END, ago(hours=2))])
    ready = factories.make_lease([event(START, ago(minutes=1))])
    assert [e.lease_id for e in take(limit=2)] == [ready.id]


# Several managers at once ----------------------------------------------------

def _is_locked(exc):
    return (isinstance(exc, sa_exc.OperationalError) and
            'database is locked' in str(exc))


def test_concurrent_managers_take_each_event_exactly_once():
    due = set()
    for i in range(30):
        lease = factories.make_lease([event(START, ago(seconds=i + 1)),
                                      event(END, ahead(hours=1))])
        due.add(factories.events_of(lease.id)[START].id)

    threads_count = 8
    barrier = threading.Barrier(threads_count)
    taken = collections.Counter()
    errors = []
    lock = threading.Lock()

    def manager(name):
        context = reserve_context.get_admin_context()
        barrier.wait()
        while True:
            try:
                got = take(taker=name, context=context, limit=4)
            except Exception as exc:
                if _is_locked(exc):
                    # SQLite refused the write (see the next test): the
                    # event loop logs it and takes again on its next tick.
                    time.sleep(0.01)
                    continue
                errors.append((name, exc))
                return
            if not got:
                return
            with lock:
                taken.update(e.id for e in got)

    threads = [threading.Thread(target=manager, args=('manager-%d' % i,))
               for i in range(threads_count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)

    assert errors == []
    assert set(taken) == due
    assert set(taken.values()) == {1}
    assert take() == []
    rows = [e for lease in leases_db.lease_list(
        reserve_context.get_admin_context()) for e in lease.events
        if e.event_type == START]
    assert {e.id for e in rows} == due
    assert {(e.status, e.attempts) for e in rows} == {(IN_PROGRESS, 1)}


def test_take_waits_for_a_concurrent_writer_instead_of_failing(db):
    lease = factories.make_lease([event(START, ago(minutes=1))])
    other_writer = sqlite3.connect(str(db), isolation_level=None)
    other_writer.execute('BEGIN IMMEDIATE')   # e.g. a runner's update
    outcome = {}

    def manager():
        try:
            outcome['taken'] = take()
        except Exception as exc:
            outcome['error'] = exc

    thread = threading.Thread(target=manager)
    thread.start()
    time.sleep(0.5)
    other_writer.execute('COMMIT')
    other_writer.close()
    thread.join(30)

    if 'error' in outcome:
        raise outcome['error']
    assert [e.lease_id for e in outcome['taken']] == [lease.id]


# event_next_time -------------------------------------------------------------

def test_next_time_is_the_earliest_future_undone_event():
    now = timeutils.utcnow()
    soon = now + datetime.timedelta(minutes=5)
    factories.make_lease([event(START, now - datetime.timedelta(minutes=1)),
                          event(END, now + datetime.timedelta(hours=1))])
    factories.make_lease([event(START, soon),
                          event(END, now + datetime.timedelta(hours=2))])
    factories.make_lease([
        event(START, now + datetime.timedelta(minutes=1), status=DONE),
        event(BEFORE_END, now + datetime.timedelta(minutes=2),
              status=ERROR, attempts=1),
        event(END, now + datetime.timedelta(minutes=3),
              status=IN_PROGRESS, attempts=1, taken_at=now)])
    ctx = reserve_context.get_admin_context()
    assert events_db.event_next_time(ctx, after=now) == soon
    # strictly after
    assert events_db.event_next_time(ctx, after=soon) == \
        now + datetime.timedelta(hours=1)


def test_next_time_is_none_without_future_undone_events():
    ctx = reserve_context.get_admin_context()
    assert events_db.event_next_time(ctx, after=timeutils.utcnow()) is None
    factories.make_lease([event(START, ago(minutes=1)),
                          event(END, ahead(hours=1), status=DONE)])
    assert events_db.event_next_time(ctx, after=timeutils.utcnow()) is None


def test_a_restarted_manager_takes_back_its_own_events_at_once():
    ctx = reserve_context.get_admin_context()
    mine = factories.make_lease([event(
        START, ago(minutes=1), status=IN_PROGRESS, attempts=1,
        taken_by='manager-1', taken_at=ago(seconds=30))])
    others = factories.make_lease([event(
        START, ago(minutes=1), status=IN_PROGRESS, attempts=1,
        taken_by='manager-2', taken_at=ago(seconds=30))])
    # Within the timeout, nobody takes them...
    assert take(taker='manager-1') == []

    assert events_db.event_hand_back(
        ctx, 'manager-1', timeutils.utcnow()) == 1

    # ... but manager-1's own comes back at once, the other stays.
    [taken] = take(taker='manager-1')
    assert taken.lease_id == mine.id
    assert taken.attempts == 2
    assert database.lease_events(ctx, others.id)[0].status == \
        IN_PROGRESS
