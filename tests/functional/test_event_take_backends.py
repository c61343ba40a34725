"""Several managers taking the same due events at once, on every
backend: each event is taken exactly once (FOR UPDATE SKIP LOCKED on
MariaDB and PostgreSQL, compare-and-swap everywhere)."""
import collections
import datetime
import threading

import pytest

from reserve.common import context as reserve_context
from reserve.common import states
from reserve.common import timeutils
from reserve.db import events as events_db
from reserve.db import leases as leases_db
from tests.fixtures import backends
from tests.fixtures import database


def _lease(ctx, i, now):
    start = now - datetime.timedelta(seconds=i + 1)
    return leases_db.lease_create(ctx, {
        'name': 'lease-%d' % i, 'project_id': 'p', 'user_id': 'u',
        'start': start, 'end': now + datetime.timedelta(hours=1),
        'status': states.Lease.PENDING}, [], [
        {'event_type': states.Event.START, 'time': start,
         'status': states.Event.UNDONE},
        {'event_type': states.Event.END,
         'time': now + datetime.timedelta(hours=1),
         'status': states.Event.UNDONE}])


@pytest.mark.parametrize('backend', backends.BACKENDS)
def test_concurrent_managers_take_each_event_once(backend, tmp_path):
    with database.on_backend(backend, tmp_path):
        _run_takers(backend)


def _run_takers(backend):
    now = timeutils.utcnow()
    ctx = reserve_context.get_admin_context()
    for i in range(40):
        _lease(ctx, i, now)
    taken = collections.Counter()
    errors = []
    barrier = threading.Barrier(6)
    lock = threading.Lock()

    def manager(name):
        barrier.wait()
        while True:
            try:
                got = events_db.event_take_due(
                    reserve_context.get_admin_context(), timeutils.utcnow(),
                    taker=name,
                    stuck_before=now - datetime.timedelta(hours=1),
                    retry_before=now - datetime.timedelta(hours=1),
                    max_attempts=5, limit=5)
            except Exception as exc:  # reported below
                errors.append(exc)
                return
            if not got:
                return
            with lock:
                taken.update((e.id, name) for e in got)

    threads = [threading.Thread(target=manager, args=('m%d' % i,))
               for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    by_event = collections.Counter(event_id for event_id, _ in taken)
    assert len(by_event) == 40
    assert set(by_event.values()) == {1}


@pytest.mark.parametrize('backend', backends.BACKENDS)
def test_a_dead_managers_events_are_taken_over(backend, tmp_path):
    """Events taken by a manager whose heartbeat stopped go to another
    one after [DEFAULT]service_down_time, not after event_timeout; those
    of a live manager, or of one with no heartbeat row (an older release
    during an upgrade), stay with it."""
    with database.on_backend(backend, tmp_path):
        _take_over()


def _take(ctx, taker, now):
    return {e.lease_id for e in events_db.event_take_due(
        ctx, now, taker=taker,
        stuck_before=now - datetime.timedelta(hours=1),
        retry_before=now - datetime.timedelta(hours=1), max_attempts=5,
        alive_since=now - datetime.timedelta(seconds=15))}


def _take_over():
    from reserve.db import services as services_db
    ctx = reserve_context.get_admin_context()
    now = timeutils.utcnow()
    second = datetime.timedelta(seconds=1)
    leases = {name: _lease(ctx, i, now)
              for i, name in enumerate(('dies', 'lives', 'old'))}
    services_db.beat(ctx, 'reserve-manager', 'dies', now)
    services_db.beat(ctx, 'reserve-manager', 'lives', now)
    assert _take(ctx, 'dies', now) == set(leases.values())
    # Hand two of them to the others, as if each had taken its own.
    for owner in ('lives', 'old'):
        events_db.event_update(ctx, database.lease_events(
            ctx, leases[owner])[0].id, {'taken_by': owner})

    later = now + 10 * second
    services_db.beat(ctx, 'reserve-manager', 'lives', later)
    assert _take(ctx, 'taker', later) == set()   # 'dies' beat 10 s ago

    later = now + 16 * second
    services_db.beat(ctx, 'reserve-manager', 'lives', later)
    assert _take(ctx, 'taker', later) == {leases['dies']}
    taken = database.lease_events(ctx, leases['dies'])[0]
    assert (taken.taken_by, taken.attempts) == ('taker', 2)
    # A minute on: 'lives' still beats, and the 'old' one (no row) and
    # the taker keep theirs until event_timeout.
    services_db.beat(ctx, 'reserve-manager', 'lives', later + 60 * second)
    assert _take(ctx, 'again', later + 60 * second) == set()
