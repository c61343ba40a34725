"""The idle hosts a placement looks at first are found by the database
(store.idle_hosts through Board.idle_hosts) exactly as reading every
allocation would find them.

Hypothesis writes allocations and host maintenance windows on a few
hosts, on every backend, and asks for the first idle hosts over a
window: they must be the hosts, in the order asked, that no allocation
(until its end plus the guard) and no maintenance window meets, as a
board that read everything says. Times are whole minutes in a short
range, so allocations often touch the window's edges.
"""
import datetime

from hypothesis import given
from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import strategies as st
import pytest

from reserve.capacity import model
from reserve.capacity import store
from reserve.common import context as reserve_context
from reserve.db import api as db_api
from reserve.db import models
from tests.fixtures import backends
from tests.fixtures import database
from tests.functional import api_fixtures

MINUTE = datetime.timedelta(minutes=1)
BASE = datetime.datetime(2031, 6, 2, 9)
HOSTS = 6


@pytest.fixture(scope='module', params=backends.BACKENDS)
def hosts(request, tmp_path_factory):
    """Enrolled hosts on a fresh database of each backend, by id."""
    tmp_path = tmp_path_factory.mktemp('idle-hosts')
    with database.on_backend(request.param, tmp_path):
        yield sorted(api_fixtures.make_host('idle%d.example.org' % i).id
                     for i in range(HOSTS))


def _write(hosts, allocations, windows):
    tables = models.Base.metadata.tables
    with db_api.writer.using(api_fixtures.admin_context()) as session:
        for name in ('allocations', 'host_maintenance_windows'):
            session.execute(tables[name].delete())
        if allocations:
            session.execute(tables['allocations'].insert(), [
                {'id': 'a%d' % i, 'host_id': hosts[host], 'amount': 1,
                 'start': BASE + start * MINUTE,
                 'end': BASE + (start + length) * MINUTE, 'vcpus': 1,
                 'memory_mb': 1, 'disk_gb': 1}
                for i, (host, start, length) in enumerate(allocations)])
        if windows:
            session.execute(tables['host_maintenance_windows'].insert(), [
                {'id': 'w%d' % i, 'host_id': hosts[host],
                 'start': BASE + start * MINUTE,
                 'end': BASE + (start + length) * MINUTE}
                for i, (host, start, length) in enumerate(windows)])
        # Allocations longer than any before (as allocations_create
        # keeps it).
        store.stretch(session, 60 * 60)


spans = st.tuples(st.integers(0, HOSTS - 1), st.integers(0, 40),
                  st.integers(1, 30))


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(allocations=st.lists(spans, max_size=8),
       windows=st.lists(spans, max_size=2),
       start=st.integers(0, 40), length=st.integers(1, 20),
       guard=st.integers(0, 3), wanted=st.integers(1, HOSTS),
       order=st.permutations(range(HOSTS)))
def test_the_idle_hosts_found_are_those_nothing_holds(
        hosts, allocations, windows, start, length, guard, wanted, order):
    _write(hosts, allocations, windows)
    context = reserve_context.get_admin_context()
    asked = [hosts[i] for i in order]
    begin, until = BASE + start * MINUTE, BASE + (start + length) * MINUTE
    with db_api.reader.using(context):
        state = store.read_state(context)
        lazy = model.Board(context, state, begin, until, guard * MINUTE,
                           lazy=True)
        found = lazy.idle_hosts(asked, wanted)
        read = model.Board(context, state, begin, until, guard * MINUTE)
        idle = [h for h in asked
                if not read.allocations_of([h], {'vcpus': 1})[h]]
    assert found == idle[:wanted]
    # What was found idle reads as nothing afterwards.
    assert all(lazy.allocations_of([h], {'vcpus': 1})[h] == []
               for h in found)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(allocations=st.lists(spans, max_size=8),
       windows=st.lists(spans, max_size=2),
       asked_over=st.lists(st.tuples(st.integers(0, 40), st.integers(1, 20)),
                           min_size=1, max_size=4),
       guard=st.integers(0, 3), read_first=st.sets(st.integers(
           0, HOSTS - 1)), order=st.permutations(range(HOSTS)))
def test_the_hosts_idle_within_a_board_are_those_nothing_holds(
        hosts, allocations, windows, asked_over, guard, read_first, order):
    """An offer search asks which hosts are idle over windows inside its
    board's (Board.idle_between), one after the other: the hosts the
    board read are answered from their allocations, the others by the
    database; all must agree with a board that read everything, over
    every window, and no idle host may be one an earlier window found
    held by something that still holds it (Board.known_held, which the
    search's walk passes over)."""
    _write(hosts, allocations, windows)
    context = reserve_context.get_admin_context()
    asked = [hosts[i] for i in order]
    with db_api.reader.using(context):
        state = store.read_state(context)
        board = (BASE, BASE + 80 * MINUTE, guard * MINUTE)
        lazy = model.Board(context, state, *board, lazy=True)
        lazy.allocations_of([hosts[i] for i in sorted(read_first)],
                            {'vcpus': 1})
        read = model.Board(context, state, *board)
        held = read.allocations_of(asked, {'vcpus': 1})
        for low, length in asked_over:
            low_s, high_s = low * 60, (low + length) * 60
            idle = lazy.idle_between(asked, low_s, high_s)
            meeting = {h for h in asked
                       if any(a.start < high_s and a.until > low_s
                              for a in held[h])}
            assert idle == set(asked) - meeting
            assert not any(lazy.known_held(h, low_s, high_s)
                           for h in set(asked) - meeting)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(allocations=st.lists(spans, max_size=8), start=st.integers(0, 40),
       length=st.integers(1, 20), guard=st.integers(0, 3))
def test_a_held_host_is_held_until_the_last_end_of_what_holds_it(
        hosts, allocations, start, length, guard):
    """store.held_hosts: the hosts an allocation holds over the window,
    each with the latest end (plus the guard) of those allocations."""
    _write(hosts, allocations, [])
    context = reserve_context.get_admin_context()
    begin, until = BASE + start * MINUTE, BASE + (start + length) * MINUTE
    expected = {}
    for host, a_start, a_length in allocations:
        if a_start < start + length and a_start + a_length + guard > start:
            ends = (a_start + a_length + guard - start) * 60
            expected[hosts[host]] = max(expected.get(hosts[host], 0), ends)
    with db_api.reader.using(context):
        state = store.read_state(context)
        assert store.held_hosts(context, state, begin, until,
                                guard * MINUTE, hosts) == expected
