"""reserve.manager.events.EventLoop.tick: what runs, and in which order."""
import threading
import time

import pytest

from reserve.common import exception
from reserve.common import states
from reserve.db import events as events_db
from reserve.manager import events as manager_events
from tests.unit import factories
from tests.unit.factories import BEFORE_END, END, START, ago, ahead, event

pytestmark = pytest.mark.usefixtures('db')

DONE = states.Event.DONE


class RecordingRunner(manager_events.EventRunner):
    """Records the events it is given and marks them done."""

    def __init__(self):
        self.ran = []
        self._lock = threading.Lock()

    def run(self, context, event):
        with self._lock:
            self.ran.append((event.event_type, event.lease_id,
                             event.status, event.attempts))
        events_db.event_update(context, event.id, {'status': DONE})
        return True


@pytest.fixture
def loop(override):
    override('host', 'manager-a')
    override('event_workers', 4, group='manager')
    runner = RecordingRunner()
    event_loop = manager_events.EventLoop(runner=runner)
    yield event_loop
    event_loop.stop()


def lease_due_at(event_type):
    """A lease whose earliest unfinished event, ``event_type``, is due:
    the events before it are done, those after it in the future."""
    order = [START, BEFORE_END, END]
    due = order.index(event_type)
    events = []
    for i, kind in enumerate(order):
        if i < due:
            events.append(event(kind, ago(minutes=30 - i), status=DONE))
        elif i == due:
            events.append(event(kind, ago(minutes=1)))
        else:
            events.append(event(kind, ahead(hours=i)))
    return factories.make_lease(events)


def test_tick_runs_teardown_before_start(override):
    override('host', 'manager-a')
    override('event_workers', 8, group='manager')
    loop = manager_events.EventLoop(runner=RecordingRunner())
    leases = {}
    # Interleave the kinds so that creation order cannot explain the result.
    for kind in (START, END, BEFORE_END, START, BEFORE_END, END, START):
        lease = lease_due_at(kind)
        leases[lease.id] = kind

    assert loop.tick() == len(leases)

    ran_types = [kind for kind, _, _, _ in loop.runner.ran]
    assert ran_types == [BEFORE_END] * 2 + [END] * 2 + [START] * 3
    assert sorted((lease_id, kind) for kind, lease_id, _, _
                  in loop.runner.ran) == sorted(leases.items())
    loop.stop()


def test_tick_takes_no_more_than_it_runs_at_once(loop):
    # Four workers: the other due events stay for another manager.
    for kind in (START, END, BEFORE_END, START, BEFORE_END, END, START):
        lease_due_at(kind)
    assert loop.tick() == 4
    assert loop.tick() == 3
    assert loop.tick() == 0


def test_tick_hands_the_runner_taken_events(loop):
    lease = lease_due_at(START)
    loop.tick()
    assert loop.runner.ran == [(START, lease.id, states.Event.IN_PROGRESS, 1)]
    assert factories.events_of(lease.id)[START].taken_by == 'manager-a'


def test_tick_runs_nothing_twice_nor_early(loop):
    lease_due_at(START)
    factories.make_lease([event(START, ahead(minutes=5))])
    assert loop.tick() == 1
    assert loop.tick() == 0
    assert len(loop.runner.ran) == 1


def test_next_event_of_a_lease_runs_on_the_following_tick(loop):
    # start and end both overdue: one per tick, start first.
    lease = factories.make_lease([event(START, ago(minutes=30)),
                                  event(END, ago(minutes=1))])
    assert loop.tick() == 1
    assert loop.tick() == 1
    assert loop.tick() == 0
    assert [(kind, lease_id) for kind, lease_id, _, _ in loop.runner.ran] \
        == [(START, lease.id), (END, lease.id)]


def test_nothing_is_taken_while_the_heartbeat_is_not_fresh(override):
    # A manager started with the database away has not beaten yet: what
    # it took, another manager would take over as a dead one's.
    override('host', 'manager-a')
    alive = [False]
    event_loop = manager_events.EventLoop(runner=RecordingRunner(),
                                          alive=lambda: alive[0])
    try:
        lease = lease_due_at(START)
        assert event_loop.tick() == 0
        assert factories.events_of(lease.id)[START].taken_by is None
        alive[0] = True
        assert event_loop.tick() == 1
    finally:
        event_loop.stop()


class FailingRunner(manager_events.EventRunner):
    def __init__(self, error):
        self.error = error

    def _start_lease(self, context, lease):
        raise self.error


@pytest.mark.parametrize('error, traceback', [
    (exception.CloudError(service='nova', reason='503 from the proxy'),
     False),
    (RuntimeError('a bug'), True)])
def test_an_expected_failure_is_one_line_a_bug_a_traceback(
        override, caplog, error, traceback):
    override('host', 'manager-a')
    lease = lease_due_at(START)
    event_loop = manager_events.EventLoop(runner=FailingRunner(error))
    try:
        assert event_loop.tick() == 1
    finally:
        event_loop.stop()
    [record] = [r for r in caplog.records if 'failed' in r.getMessage()]
    assert bool(record.exc_info) is traceback
    assert str(error) in record.getMessage() or traceback
    event = factories.events_of(lease.id)[START]
    assert (event.status, event.attempts) == ('ERROR', 1)


class HangingRunner(RecordingRunner):
    """Hangs on the first event it is given until released."""

    def __init__(self):
        super().__init__()
        self.hanging = threading.Event()
        self.release = threading.Event()

    def run(self, context, event):
        if not self.hanging.is_set():
            self.hanging.set()
            self.release.wait(30)
        return super().run(context, event)


def test_an_event_that_hangs_holds_only_its_own_worker(override):
    # A cloud call waiting out its timeout: the loop goes on taking and
    # running what comes due meanwhile.
    override('host', 'manager-a')
    override('event_interval', 1, group='manager')
    runner = HangingRunner()
    event_loop = manager_events.EventLoop(runner=runner)
    lease_due_at(START)
    event_loop.start()
    try:
        assert runner.hanging.wait(10)
        later = lease_due_at(START)
        deadline = time.monotonic() + 10
        while not any(lease_id == later.id
                      for _, lease_id, _, _ in runner.ran):
            assert time.monotonic() < deadline, 'blocked behind the hang'
            time.sleep(0.1)
    finally:
        runner.release.set()
        event_loop.stop()
    assert len(runner.ran) == 2


def _run_of(runner, lease, within):
    deadline = time.monotonic() + within
    while not any(lease_id == lease.id for _, lease_id, _, _ in runner.ran):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture
def waiting_loop(override, monkeypatch):
    """A started loop with nothing due, asleep for its 60 s interval;
    ``takes`` counts its reads of due events (each a writer
    transaction)."""
    override('host', 'manager-a')
    override('event_interval', 60, group='manager')
    takes = []
    take = events_db.event_take_due

    def counted(*args, **kwargs):
        takes.append(1)
        return take(*args, **kwargs)
    monkeypatch.setattr(events_db, 'event_take_due', counted)
    event_loop = manager_events.EventLoop(runner=RecordingRunner())
    event_loop.start()
    deadline = time.monotonic() + 10
    while event_loop._looks_at is None:
        assert time.monotonic() < deadline, 'the loop never went to sleep'
        time.sleep(0.01)
    event_loop.takes = takes
    yield event_loop
    event_loop.stop()


def test_a_wake_for_an_event_due_before_the_next_look_runs_it_then(
        waiting_loop):
    now = factories.ago(seconds=1)
    due_now = factories.make_lease([event(START, now)])
    waiting_loop.wake(due=now)
    assert _run_of(waiting_loop.runner, due_now, within=5)
    soon = factories.ahead(seconds=2)
    due_soon = factories.make_lease([event(START, soon)])
    waiting_loop.wake(due=soon)
    # Within seconds of its time, not at the end of the 60 s wait.
    assert _run_of(waiting_loop.runner, due_soon, within=8)


def test_a_wake_for_an_event_due_after_the_next_look_takes_nothing_now(
        waiting_loop):
    later = factories.ahead(hours=2)
    factories.make_lease([event(START, later)])
    before = len(waiting_loop.takes)
    waiting_loop.wake(due=later)
    time.sleep(0.5)
    assert len(waiting_loop.takes) == before
    waiting_loop.wake()     # a wake that does not say: a look now
    deadline = time.monotonic() + 5
    while len(waiting_loop.takes) == before:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert waiting_loop.runner.ran == []
