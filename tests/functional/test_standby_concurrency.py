"""The standby list under concurrent cancellations: a freed slot goes to
one waiter only, and nothing is overbooked.

A hypothesis state machine on MariaDB and PostgreSQL (the capacity lock
is a row lock there; SQLite too, with its process lock): waiters queue
on a flavor whose slots and hosts are both short; then live bookings are
cancelled or ended earlier while several promotion passes (as several
workers would run them) start at the same instant, released together by
a barrier with the cancels. After every step:

* no waiter is promoted by two passes, and every promoted one is
  PENDING_CREATE with exactly its instances placed;
* at no instant do the live bookings hold more than the flavor's slots,
  nor the instances on a host more than it holds;
* a further pass (the one the cancel's cast asks for) leaves no waiter
  that fits: a slot freed is never left to a waiter that fits.
"""
import datetime

from hypothesis import HealthCheck
from hypothesis import Phase
from hypothesis import settings
from hypothesis import stateful
from hypothesis import strategies as st
import pytest

from reserve.booking import admission
from reserve.booking import cancel
from reserve.booking import standby
from reserve.capacity import model
from reserve.capacity import store
from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import states
from reserve.common import timeutils
from reserve.db import bookings as bookings_db
from reserve.db import flavors as flavors_db
from reserve.db import hosts as hosts_db
from tests.fixtures import backends
from tests.fixtures import database
from tests.fixtures.races import together
from tests.functional import api_fixtures

HOUR = datetime.timedelta(hours=1)
B = states.Booking
# Two hosts of two instances each, and three slots: either may bind.
SLOTS = 3
HOST_HOLDS = 2
SETTINGS = settings(max_examples=10, stateful_step_count=5, deadline=None,
                    database=None, phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=list(HealthCheck))


def _context(project):
    return reserve_context.RequestContext(
        user_id='user-%s' % project, project_id='project-%s' % project,
        roles=['member', 'reader'])


def _admin():
    return reserve_context.get_admin_context()


class StandbyMachine(stateful.RuleBasedStateMachine):
    """One flavor and two hosts per example (their own names), on the
    database of the test."""
    examples = 0

    def __init__(self):
        super().__init__()
        StandbyMachine.examples += 1
        n = StandbyMachine.examples
        # The hosts of the examples before are out of the way.
        for host in hosts_db.host_list(_admin(), reservable=True):
            hosts_db.host_update(_admin(), host.id, {'reservable': False})
        hosts = [api_fixtures.make_host(
            'h%d-%d.example.org' % (n, i), vcpus=HOST_HOLDS,
            memory_mb=HOST_HOLDS * 1024, local_gb=HOST_HOLDS * 10)
            for i in range(2)]
        self.host_ids = {h.id for h in hosts}
        self.flavor = api_fixtures.make_flavor('gpu.sb%d' % n, slots=SLOTS)
        self.start = timeutils.utcnow().replace(microsecond=0) + 2 * HOUR
        self.projects = 0

    def teardown(self):
        # The waiters left are cancelled: the passes of the examples
        # after read only their own.
        for booking in self._bookings():
            if booking.status == B.STANDBY:
                standby.cancel(_admin(), booking.id, 'teardown')

    def _window(self, offset):
        start = self.start + offset * HOUR
        return start, start + 2 * HOUR

    def _bookings(self):
        return [b for b in bookings_db.booking_list(_admin(),
                                                    flavor_id=self.flavor.id)]

    def _live(self):
        return [b for b in self._bookings() if b.status in B.LIVE]

    # rules ---------------------------------------------------------------

    @stateful.initialize(booked=st.lists(st.tuples(st.integers(0, 2),
                                                   st.integers(1, 2)),
                                         min_size=2, max_size=4),
                         waiting=st.lists(st.tuples(st.integers(0, 2),
                                                    st.integers(1, 2)),
                                          min_size=2, max_size=5))
    def fill(self, booked, waiting):
        """Most examples start full, with waiters queued."""
        for offset, count in booked + waiting:
            self.ask(offset, count)

    @stateful.rule(offset=st.integers(0, 2), count=st.integers(1, 2))
    def ask(self, offset, count):
        """A project asks with standby: booked when it fits, else it
        waits."""
        self.projects += 1
        start, end = self._window(offset)
        try:
            standby.book_or_wait(_context(self.projects), self.flavor,
                                 start, end, count)
        except exception.NoCapacity:
            # More than the hosts could ever hold side by side: never.
            assert count > SLOTS

    @stateful.rule(data=st.data(), passes=st.integers(2, 4),
                   earlier=st.booleans())
    def free_and_race(self, data, passes, earlier):
        """Cancel (or end earlier) live bookings while ``passes`` passes
        start at the same instant."""
        live = self._live()
        if not live:
            return
        freed = data.draw(st.lists(st.sampled_from(live), min_size=1,
                                   max_size=2, unique_by=lambda b: b.id))

        def free(booking):
            if earlier and booking.end - booking.start > HOUR:
                return admission.change_end(_admin(), booking,
                                            booking.start + HOUR / 2)
            return cancel.booking(_admin(), booking.id, 'race')

        results = together(
            *[lambda b=b: free(b) for b in freed],
            *[lambda: standby.promote(_admin()) for _ in range(passes)],
            raised=True)
        failures = [r for r in results if isinstance(r, Exception)
                    and not isinstance(r, exception.InvalidState)]
        assert failures == []
        promoted = [b.id for r in results[len(freed):] for b in r]
        # No waiter promoted twice.
        assert len(promoted) == len(set(promoted)), promoted
        for booking_id in promoted:
            row = bookings_db.booking_get(_admin(), booking_id)
            assert row.status in B.LIVE
            placed = store.allocations_of_booking(_admin(), booking_id)
            if row.status == B.PENDING_CREATE:
                assert sum(a.amount for a in placed) == row.instance_count

    @stateful.rule()
    def another_pass(self):
        """The pass the cancel's cast asks for: after it, no waiter that
        fits is left waiting."""
        standby.promote(_admin())
        # Read again: the calendar's reads go by its longest booking.
        flavor = flavors_db.flavor_get(_admin(), self.flavor.id)
        for waiter in self._bookings():
            if waiter.status != B.STANDBY:
                continue
            windows = admission.free_slots(
                _admin(), flavor, waiter.start, waiter.end,
                waiter.instance_count, False)
            assert not any(w[0] <= waiter.start and waiter.end <= w[1]
                           for w in windows), waiter.id

    # invariants ----------------------------------------------------------

    @stateful.invariant()
    def nothing_overbooked(self):
        live = self._live()
        guard = model.guard()
        instants = {b.start for b in live}
        for t in instants:
            held = sum(b.instance_count for b in live
                       if b.start <= t < b.end + guard)
            assert held <= SLOTS, (t, held)
        on_host = {}
        for booking in live:
            for a in store.allocations_of_booking(_admin(), booking.id):
                assert a.host_id in self.host_ids
                on_host.setdefault(a.host_id, []).append(a)
        for host_id, allocations in on_host.items():
            for t in {a.start for a in allocations}:
                held = sum(a.amount for a in allocations
                           if a.start <= t < a.end + guard)
                assert held <= HOST_HOLDS, (host_id, t, held)

    @stateful.invariant()
    def waiters_hold_nothing(self):
        for booking in self._bookings():
            if booking.status == B.STANDBY:
                assert store.allocations_of_booking(_admin(),
                                                    booking.id) == []


@pytest.mark.parametrize('backend', backends.BACKENDS)
def test_concurrent_cancels_and_passes_give_a_slot_to_one_waiter(
        backend, tmp_path):
    with database.on_backend(backend, tmp_path):
        stateful.run_state_machine_as_test(StandbyMachine, settings=SETTINGS)


def test_passes_at_the_same_instant_admit_one_waiter_per_slot(tmp_path):
    """Twenty waiters for one slot freed, eight passes at once, on
    MariaDB: one waiter admitted, by one pass."""
    with database.on_backend('mysql', tmp_path):
        flavor = api_fixtures.make_flavor('gpu.one', slots=1)
        start = timeutils.utcnow().replace(microsecond=0) + HOUR
        held = admission.book(_context('held'), flavor, start,
                              start + HOUR, 1)
        waiters = [standby.book_or_wait(_context(i), flavor, start,
                                        start + HOUR, 1)[0]
                   for i in range(20)]
        assert {w.status for w in waiters} == {B.STANDBY}
        cancel.booking(_admin(), held.id, 'test')
        results = together(*[lambda: standby.promote(_admin())
                             for _ in range(8)], raised=True)
        promoted = [b.id for r in results for b in r]
        # The oldest waiter, once.
        assert promoted == [waiters[0].id]
        assert [b.id for b in bookings_db.booking_list(
            _admin(), flavor_id=flavor.id) if b.status in B.LIVE] == [
            waiters[0].id]
