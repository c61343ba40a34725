"""Availability computed by the database is the calendar's least_free.

availability() asks the database for each flavor's peak load (window
functions over the bookings) instead of reading the bookings. Hypothesis
writes bookings in any state and maintenance windows for two flavors,
on every backend, and checks the answer against calendar.least_free
given the same occupants. Times are whole minutes in a short range, so
bookings often touch (one ending, with its guard, as another starts).
"""
import datetime

from hypothesis import given
from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import strategies as st
from oslo_config import cfg
import pytest

from reserve.booking import admission
from reserve.booking import calendar
from reserve.common import context as reserve_context
from reserve.common import states
from reserve.db import api as db_api
from reserve.db import desk
from reserve.db import flavors as flavors_db
from reserve.db import models
from tests.fixtures import backends
from tests.fixtures import database
from tests.functional import api_fixtures

CONF = cfg.CONF
MINUTE = datetime.timedelta(minutes=1)
BASE = datetime.datetime(2031, 6, 2, 9)
LONGEST = 20  # minutes


@pytest.fixture(scope='module', params=backends.BACKENDS)
def flavors(request, tmp_path_factory):
    """Two catalogue flavors on a fresh database of each backend."""
    tmp_path = tmp_path_factory.mktemp('availability')
    with database.on_backend(request.param, tmp_path):
        try:
            yield [api_fixtures.make_flavor(
                name, slots=0, longest_booking=LONGEST * 60)
                for name in ('a', 'b')]
        finally:
            CONF.clear_override('guard_seconds', group='booking')


def _write(flavors, slots, bookings, maintenance):
    """Replace the calendars; returns the occupants per flavor id, in
    whole minutes from BASE, as calendar.py takes them."""
    tables = models.Base.metadata.tables
    occupants = {f.id: [] for f in flavors}
    rows, windows, links = [], [], []
    for i, (which, start, length, count, status) in enumerate(bookings):
        flavor_id = flavors[which].id
        rows.append({
            'id': 'b%d' % i, 'project_id': 'p', 'user_id': 'u',
            'flavor_id': flavor_id, 'instance_count': count,
            'start': BASE + start * MINUTE,
            'end': BASE + (start + length) * MINUTE,
            'status': status, 'created_at': BASE, 'updated_at': BASE})
        if status in states.Booking.LIVE:
            occupants[flavor_id].append((start, start + length, count))
    for i, (which, start, length) in enumerate(maintenance):
        # which: 0 or 1 closes that flavor, 2 closes every flavor.
        windows.append({
            'id': 'm%d' % i, 'start': BASE + start * MINUTE,
            'end': BASE + (start + length) * MINUTE,
            'all_flavors': which == 2, 'created_at': BASE,
            'updated_at': BASE})
        closed = flavors if which == 2 else [flavors[which]]
        for flavor in closed:
            if which != 2:
                links.append({'window_id': 'm%d' % i,
                              'flavor_id': flavor.id, 'created_at': BASE,
                              'updated_at': BASE})
            occupants[flavor.id].append((start, start + length,
                                         slots[flavor.id]))
    with db_api.get_engine().begin() as conn:
        for name in ('maintenance_window_flavors', 'maintenance_windows',
                     'bookings'):
            conn.execute(tables[name].delete())
        for name, values in (('bookings', rows),
                             ('maintenance_windows', windows),
                             ('maintenance_window_flavors', links)):
            if values:
                conn.execute(tables[name].insert(), values)
        for flavor in flavors:
            conn.execute(tables['flavors'].update()
                         .where(tables['flavors'].c.id == flavor.id)
                         .values(slots=slots[flavor.id]))
    return occupants


booking_st = st.tuples(st.integers(0, 1), st.integers(0, 30),
                       st.integers(1, LONGEST), st.integers(0, 3),
                       st.sampled_from(states.Booking.ALL))
maintenance_st = st.tuples(st.integers(0, 2), st.integers(0, 40),
                           st.integers(1, 10))
window_st = st.tuples(st.integers(-5, 45), st.integers(1, 30))


@settings(max_examples=50, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(slots=st.tuples(st.integers(0, 6), st.integers(0, 6)),
       bookings=st.lists(booking_st, max_size=10),
       maintenance=st.lists(maintenance_st, max_size=2),
       window=window_st, guard=st.integers(0, 4))
def test_availability_is_least_free(flavors, slots, bookings, maintenance,
                                    window, guard):
    slots = {f.id: n for f, n in zip(flavors, slots)}
    occupants = _write(flavors, slots, bookings, maintenance)
    CONF.set_override('guard_seconds', guard * 60, group='booking')
    admin = reserve_context.get_admin_context()
    listed = flavors_db.flavor_list(admin)
    start, length = window
    q_start, q_end = BASE + start * MINUTE, BASE + (start + length) * MINUTE

    free = admission.availability(admin, listed, q_start, q_end)

    assert free == {
        f.id: calendar.least_free(slots[f.id], occupants[f.id], start,
                                  start + length, guard)
        for f in flavors}, occupants


@settings(max_examples=50, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bookings=st.lists(booking_st, max_size=12), window=window_st,
       guard=st.integers(0, 4))
def test_peak_load_is_the_calendars(flavors, bookings, window, guard):
    # No maintenance and room to spare: the peak itself, not clamped.
    room = 10 ** 6
    occupants = _write(flavors, {f.id: room for f in flavors}, bookings, [])
    start, length = window

    peaks = desk.peak_loads(
        reserve_context.get_admin_context(), flavors,
        BASE + start * MINUTE, BASE + (start + length) * MINUTE,
        guard * MINUTE)

    assert peaks == {
        f.id: room - calendar.least_free(room, occupants[f.id], start,
                                         start + length, guard)
        for f in flavors}, occupants
