"""Several managers claiming the same due events at once, on every
backend: each event is claimed exactly once (FOR UPDATE SKIP LOCKED on
MariaDB and PostgreSQL, compare-and-swap everywhere)."""
import collections
import datetime
import threading

import pytest

from reserve.common import context as reserve_context
from reserve.common import states
from reserve.common import timeutils
from reserve.db import api as db_api
from tests.fixtures import backends
from tests.fixtures import database


def _lease(ctx, i, now):
    start = now - datetime.timedelta(seconds=i + 1)
    return db_api.lease_create(ctx, {
        'name': 'lease-%d' % i, 'project_id': 'p', 'user_id': 'u',
        'start_date': start, 'end_date': now + datetime.timedelta(hours=1),
        'status': states.Lease.PENDING}, [], [
        {'event_type': states.Event.START, 'time': start,
         'status': states.Event.UNDONE},
        {'event_type': states.Event.END,
         'time': now + datetime.timedelta(hours=1),
         'status': states.Event.UNDONE}])


@pytest.mark.parametrize('backend', backends.BACKENDS)
def test_concurrent_managers_claim_each_event_once(backend, tmp_path):
    with backends.throwaway_database(backend, tmp_path) as url:
        database.use_database(url)
        try:
            _run_claimers(backend)
        finally:
            db_api.reset_engine()


def _run_claimers(backend):
    now = timeutils.utcnow()
    ctx = reserve_context.get_admin_context()
    for i in range(40):
        _lease(ctx, i, now)
    claimed = collections.Counter()
    errors = []
    barrier = threading.Barrier(6)
    lock = threading.Lock()

    def manager(name):
        barrier.wait()
        while True:
            try:
                got = db_api.event_claim_due(
                    reserve_context.get_admin_context(), timeutils.utcnow(),
                    claimer=name,
                    stuck_before=now - datetime.timedelta(hours=1),
                    retry_before=now - datetime.timedelta(hours=1),
                    max_attempts=5, limit=5)
            except Exception as exc:  # reported below
                errors.append(exc)
                return
            if not got:
                return
            with lock:
                claimed.update((e.id, name) for e in got)

    threads = [threading.Thread(target=manager, args=('m%d' % i,))
               for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    by_event = collections.Counter(event_id for event_id, _ in claimed)
    assert len(by_event) == 40
    assert set(by_event.values()) == {1}
