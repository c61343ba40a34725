"""Admission and free-slots never disagree, through the database.

Hypothesis writes a flavor's calendar (bookings in any state, maintenance
windows), then asks free-slots for a window and tries bookings inside
it: a booking is admitted exactly when a free slot covers it, and once
admitted, free-slots no longer offers its time.
"""
import datetime

from hypothesis import given
from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import strategies as st
from oslo_config import cfg
import pytest

from reserve.booking import admission
from reserve.capacity import model
from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import states
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import bookings as bookings_db
from reserve.db import flavors as flavors_db
from reserve.db import hosts as hosts_db
from reserve.db import maintenance as maintenance_db
from reserve.db import models
from tests.fixtures import database
from tests.functional import api_fixtures

CONF = cfg.CONF
MINUTE = datetime.timedelta(minutes=1)
GUARD_MINUTES = 1


@pytest.fixture(scope='module')
def calendar_db(tmp_path_factory):
    path = tmp_path_factory.mktemp('agreement') / 'calendar.sqlite'
    database.use_database('sqlite:///%s' % path)
    CONF.set_override('guard_seconds', 60 * GUARD_MINUTES, group='booking')
    CONF.set_override('reservations', -1, group='quota')
    CONF.set_override('instance_hours', -1, group='quota')
    yield
    for name, group in (('guard_seconds', 'booking'),
                        ('reservations', 'quota'),
                        ('instance_hours', 'quota')):
        CONF.clear_override(name, group=group)
    database.reset_engine()
    CONF.clear_override('connection', group='database')


def _ctx():
    return reserve_context.RequestContext(user_id='alice',
                                          project_id='project-a',
                                          roles=['member'])


def _reset(slots):
    with db_api.get_engine().begin() as conn:
        for table in ('maintenance_window_flavors', 'maintenance_windows',
                      'bookings', 'flavor_projects', 'flavors'):
            conn.execute(models.Base.metadata.tables[table].delete())
    return api_fixtures.make_flavor('gpu.prop', nova_flavor_id='n',
                                    slots=slots)


booking_st = st.tuples(st.integers(0, 80), st.integers(1, 40),
                       st.integers(1, 3), st.sampled_from(states.Booking.ALL))
maintenance_st = st.tuples(st.integers(0, 80), st.integers(1, 20))


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(slots=st.integers(1, 4), bookings=st.lists(booking_st, max_size=6),
       maintenance=st.lists(maintenance_st, max_size=2),
       count=st.integers(1, 4),
       tries=st.lists(st.tuples(st.integers(0, 60), st.integers(1, 30)),
                      min_size=1, max_size=4))
def test_admission_is_what_free_slots_say(calendar_db, slots, bookings,
                                          maintenance, count, tries):
    flavor = _reset(slots)
    ctx = _ctx()
    admin = reserve_context.get_admin_context()
    base = timeutils.utcnow() + datetime.timedelta(hours=1)
    for start, length, n, status in bookings:
        bookings_db.booking_create(admin, {
            'project_id': 'project-z', 'user_id': 'zoe',
            'flavor_id': flavor.id, 'instance_count': n,
            'start': base + start * MINUTE,
            'end': base + (start + length) * MINUTE,
            'status': status})
    for start, length in maintenance:
        maintenance_db.window_create(admin, {
            'start': base + start * MINUTE,
            'end': base + (start + length) * MINUTE,
            'all_flavors': False}, [flavor.id])
    flavor = flavors_db.flavor_get(admin, flavor.id)
    q_start, q_end = base, base + 100 * MINUTE

    for start, length in tries:
        s = base + start * MINUTE
        e = s + length * MINUTE
        gaps = admission.free_slots(ctx, flavor, q_start, q_end, count,
                                    bypass_maintenance=False)
        offered = any(a <= s and e <= b for a, b in gaps)
        try:
            booking = admission.book(ctx, flavor, s, e, count)
        except (exception.NoCapacity, exception.MaintenanceConflict):
            admitted = False
        else:
            admitted = True
        assert admitted == offered, (s, e, gaps)
        if admitted:
            after = admission.free_slots(ctx, flavor, q_start, q_end, count,
                                         bypass_maintenance=False)
            assert not any(a < e and s < b for a, b in after) or \
                count * 2 <= slots
            assert booking.flavor_id == flavor.id


def _reset_hosts(capacities):
    """Hosts of ``capacities`` vCPUs (nothing else binds) and two
    catalogue entries of 1-vCPU instances sharing them, with slots to
    spare: the hosts are what bind."""
    with db_api.get_engine().begin() as conn:
        for table in ('allocations', 'maintenance_window_flavors',
                      'maintenance_windows', 'bookings', 'flavor_projects',
                      'flavors', 'host_capabilities', 'hosts'):
            conn.execute(models.Base.metadata.tables[table].delete())
    admin = reserve_context.get_admin_context()
    hosts = [hosts_db.host_create(admin, {
        'name': 'h%d' % i, 'kind': 'nova', 'vcpus': vcpus,
        'memory_mb': 10 ** 6, 'local_gb': 10 ** 4})
        for i, vcpus in enumerate(capacities)]
    record = dict(api_fixtures.SMALL_RECORD, id='n', name='n')
    return hosts, [api_fixtures.make_flavor(name, nova_flavor_id='n',
                                            slots=100, nova_flavor=record)
                   for name in ('gpu.one', 'gpu.other')]


def _overbooked(hosts, base):
    """Some host holding more instances than it has vCPUs at a minute."""
    admin = reserve_context.get_admin_context()
    guard = model.guard()
    allocations = []
    with db_api.reader.using(admin) as session:
        allocations = session.query(models.Allocation).all()
    for host in hosts:
        for minute in range(0, 200):
            t = base + minute * MINUTE
            held = sum(c.amount for c in allocations
                       if c.host_id == host.id and
                       c.start <= t < c.end + guard)
            if held > host.vcpus:
                return host.name, t
    return None


@settings(max_examples=50, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(capacities=st.lists(st.integers(1, 3), min_size=1, max_size=3),
       others=st.lists(st.tuples(st.integers(0, 80), st.integers(1, 40),
                                 st.integers(1, 3)), max_size=6),
       count=st.integers(1, 4),
       tries=st.lists(st.tuples(st.integers(0, 60), st.integers(1, 30)),
                      min_size=1, max_size=4))
def test_hosts_shared_by_two_entries_are_offered_exactly(
        calendar_db, capacities, others, count, tries):
    """Two catalogue entries share the hosts: what the other entry holds
    is never offered again, a booking is admitted exactly when a
    free-slots window covers it, availability is what the hosts hold
    throughout, and no host is ever overbooked."""
    hosts, (one, other) = _reset_hosts(capacities)
    ctx = _ctx()
    base = timeutils.utcnow() + datetime.timedelta(hours=1)
    for start, length, n in others:
        try:
            admission.book(ctx, other, base + start * MINUTE,
                           base + (start + length) * MINUTE, n)
        except exception.NoCapacity:
            pass
    q_start, q_end = base, base + 100 * MINUTE
    for start, length in tries:
        s = base + start * MINUTE
        e = s + length * MINUTE
        windows = admission.free_slots(ctx, one, q_start, q_end, count,
                                       bypass_maintenance=False)
        offered = any(a <= s and e <= b for a, b in windows)
        # Availability over [s, e): what the hosts hold throughout.
        free = admission.availability(ctx, [one], s, e)[one.id]
        try:
            admission.book(ctx, one, s, e, count)
        except exception.NoCapacity:
            admitted = False
        else:
            admitted = True
        assert admitted == offered, (s, e, windows)
        if admitted:
            assert free >= count
        assert _overbooked(hosts, base) is None
