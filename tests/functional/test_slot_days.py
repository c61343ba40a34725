"""A flavor's slots held by day (reserve.db.slot_days) stay what its live
bookings hold, through every write of a booking, on every backend.

A hypothesis state machine creates bookings of two flavors (live or on
standby), moves their status, closes them, moves their start and end,
and destroys them, each through reserve.db.bookings as the service does.
After every step:

* the table equals what the bookings on record count, worked out anew
  from every live booking (the days from its start's to the day after
  its end's), and rebuild() writes the same rows;
* for a window, held_at_most is at least the instances held at any one
  instant of it, counted booking by booking with the guard: the bound
  admission's shortcut trusts.
"""
import collections
import datetime

from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import stateful
from hypothesis import strategies as st
import pytest
import sqlalchemy as sa

from reserve.common import states
from reserve.db import api as db_api
from reserve.db import bookings as bookings_db
from reserve.db import models
from reserve.db import series as series_db
from reserve.db import slot_days
from tests.fixtures import backends
from tests.fixtures import database
from tests.functional import api_fixtures

B = states.Booking
HOUR = datetime.timedelta(hours=1)
BASE = datetime.datetime(2031, 3, 1, 0)
GUARD = datetime.timedelta(minutes=30)
T = models.flavor_slot_days


@pytest.fixture(scope='module', params=backends.BACKENDS)
def flavors(request, tmp_path_factory):
    """Two catalogue flavors on a fresh database of each backend."""
    with database.on_backend(request.param,
                             tmp_path_factory.mktemp('slot-days')):
        yield [api_fixtures.make_flavor('slot-days-%d' % i).id
               for i in range(2)]


def _table(session):
    return {(flavor_id, day): n for flavor_id, day, n in session.execute(
        sa.select(T.c.flavor_id, T.c.day, T.c.instances)) if n}


def _expected(session):
    """What every live booking counts, worked out anew."""
    found = collections.Counter()
    for booking in session.query(models.Booking):
        if booking.status in B.LIVE:
            day = booking.start.date()
            while day <= booking.end.date() + datetime.timedelta(days=1):
                found[booking.flavor_id, day] += booking.instance_count
                day += datetime.timedelta(days=1)
    return {key: n for key, n in found.items() if n}


def _held_at_most_truly(session, flavor_id, start, end):
    """The most instances held at one instant of [start, end), each
    booking until its end plus GUARD: tried at every instant one begins
    holding (and at the window's start)."""
    live = [b for b in session.query(models.Booking)
            if b.flavor_id == flavor_id and b.status in B.LIVE]
    instants = [start] + [b.start for b in live if start <= b.start < end]
    return max(sum(b.instance_count for b in live
                   if b.start <= t < b.end + GUARD) for t in instants)


hours = st.integers(0, 24 * 6)


class SlotDays(stateful.RuleBasedStateMachine):

    def __init__(self, flavors):
        super().__init__()
        self.flavors = flavors
        self.context = api_fixtures.admin_context()
        with db_api.writer.using(self.context) as session:
            session.execute(models.Booking.__table__.delete())
            session.execute(models.Series.__table__.delete())
            session.execute(T.delete())

    bookings = stateful.Bundle('bookings')

    @stateful.rule(target=bookings, flavor=st.integers(0, 1), start=hours,
                   length=st.integers(1, 72), count=st.integers(1, 4),
                   status=st.sampled_from(B.LIVE + (B.STANDBY,)))
    def create(self, flavor, start, length, count, status):
        return bookings_db.booking_create(self.context, dict(
            project_id='p', user_id='u', flavor_id=self.flavors[flavor],
            instance_count=count, start=BASE + start * HOUR,
            end=BASE + (start + length) * HOUR, status=status)).id

    @stateful.rule(booking=bookings, status=st.sampled_from(B.ALL))
    def move(self, booking, status):
        bookings_db.booking_move(self.context, booking, status, B.ALL)

    @stateful.rule(booking=bookings,
                   closed_as=st.sampled_from((B.COMPLETE, B.ERROR)))
    def close(self, booking, closed_as):
        bookings_db.booking_close(self.context, booking, closed_as,
                                  'test', B.CLOSABLE)

    @stateful.rule(booking=bookings, start=hours,
                   length=st.integers(1, 96))
    def move_window(self, booking, start, length):
        bookings_db.booking_update(self.context, booking, {
            'start': BASE + start * HOUR,
            'end': BASE + (start + length) * HOUR})

    @stateful.rule(booking=stateful.consumes(bookings))
    def destroy(self, booking):
        bookings_db.booking_destroy(self.context, booking)

    @stateful.rule(booking=bookings, count=st.integers(1, 4))
    def resize(self, booking, count):
        bookings_db.booking_update(self.context, booking,
                                   {'instance_count': count})

    @stateful.rule(flavor=st.integers(0, 1), start=hours,
                   length=st.integers(1, 48))
    def held_at_most_bounds_every_instant(self, flavor, start, length):
        begins = BASE + start * HOUR
        ends = begins + length * HOUR
        with db_api.reader.using(self.context) as session:
            truly = _held_at_most_truly(session, self.flavors[flavor],
                                        begins, ends)
        assert slot_days.held_at_most(self.context, self.flavors[flavor],
                                      begins, ends) >= truly

    @stateful.invariant()
    def counts_are_the_bookings(self):
        with db_api.writer.using(self.context) as session:
            expected = _expected(session)
            assert _table(session) == expected
            slot_days.rebuild(session.connection())
            assert _table(session) == expected


@pytest.mark.parametrize('steps', [40])
def test_slot_days_follow_every_write_of_a_booking(flavors, steps):
    SlotDays.TestCase.settings = settings(
        max_examples=25, stateful_step_count=steps, deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture,
                               HealthCheck.too_slow])
    stateful.run_state_machine_as_test(lambda: SlotDays(flavors),
                                       settings=SlotDays.TestCase.settings)


def test_a_withdrawn_series_takes_its_bookings_off(flavors):
    context = api_fixtures.admin_context()
    with db_api.writer.using(context) as session:
        session.execute(T.delete())
    series = series_db.series_create(context, {
        'project_id': 'p', 'user_id': 'u', 'flavor_id': flavors[0],
        'instance_count': 2, 'start': BASE, 'end': BASE + 4 * HOUR,
        'rrule': 'FREQ=DAILY;COUNT=2', 'policy': 'all'})
    for day in range(2):
        bookings_db.booking_create(context, dict(
            project_id='p', user_id='u', flavor_id=flavors[0],
            instance_count=2, start=BASE + day * 24 * HOUR,
            end=BASE + (day * 24 + 4) * HOUR, status=B.PENDING_CREATE,
            series_id=series.id))
    assert slot_days.held_at_most(context, flavors[0], BASE,
                                  BASE + 72 * HOUR) == 4
    series_db.series_destroy(context, series.id)
    with db_api.reader.using(context) as session:
        assert _table(session) == {}
