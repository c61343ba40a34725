"""Every offer the search answers is admitted, through the database.

Hypothesis books a flavor of GPUs on a few hosts at random (through the
admission, so the hosts hold real allocations), then searches offers
and books each one on its own right after the search: every one is
admitted, on as many hosts as it said, and is removed again before the
next is tried. The offers are of the shape asked, within the range,
in the order asked, and never overlap.
"""
import datetime

from hypothesis import event
from hypothesis import given
from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import strategies as st
from oslo_config import cfg
import pytest

from reserve.booking import admission
from reserve.booking import offers
from reserve.capacity import store
from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import bookings as bookings_db
from reserve.db import flavors as flavors_db
from reserve.db import models
from tests.fixtures import database
from tests.functional import api_fixtures

CONF = cfg.CONF
MINUTE = datetime.timedelta(minutes=1)
QUOTA = ('reservations', 'instance_hours')


@pytest.fixture(scope='module')
def gpu_cloud(tmp_path_factory):
    """Three hosts of 1, 2 and 3 VGPUs and a flavor of one VGPU an
    instance, on 5 slots."""
    path = tmp_path_factory.mktemp('offers') / 'offers.sqlite'
    database.use_database('sqlite:///%s' % path)
    for name in QUOTA:
        CONF.set_override(name, -1, group='quota')
    for n in (1, 2, 3):
        api_fixtures.make_host('gpu%d.example.org' % n, gpus={'VGPU': n})
    record = dict(api_fixtures.SMALL_RECORD, id='vgpu', name='vgpu',
                  extra_specs={'resources:VGPU': '1'})
    flavor = api_fixtures.make_flavor('vgpu', nova_flavor_id='vgpu',
                                      nova_flavor=record, slots=5)
    yield flavor
    for name in QUOTA:
        CONF.clear_override(name, group='quota')
    database.reset_engine()
    CONF.clear_override('connection', group='database')


def _ctx():
    return reserve_context.RequestContext(user_id='alice',
                                          project_id='project-a',
                                          roles=['member'])


def _reset():
    with db_api.get_engine().begin() as conn:
        # The flavor's slots by day go with its bookings.
        for table in ('allocations', 'bookings', 'offers',
                      'flavor_slot_days'):
            conn.execute(models.Base.metadata.tables[table].delete())


def _hosts_of(booking_id):
    return len({a.host_id for a in store.allocations_of_booking(
        reserve_context.get_admin_context(), booking_id)})


booking_st = st.tuples(st.integers(0, 240), st.integers(5, 120),
                       st.integers(1, 3))


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bookings=st.lists(booking_st, max_size=8),
       count=st.integers(1, 4), minutes=st.integers(10, 150),
       latest=st.integers(0, 240), sort=st.sampled_from(offers.SORTS),
       limit=st.integers(1, 8))
def test_every_offer_is_admitted_at_once(gpu_cloud, bookings, count,
                                         minutes, latest, sort, limit):
    _reset()
    ctx = _ctx()
    flavor = flavors_db.flavor_get(ctx, gpu_cloud.id)
    base = timeutils.utcnow().replace(second=0, microsecond=0) + \
        datetime.timedelta(hours=1)
    for start, length, n in bookings:
        try:
            admission.book(ctx, flavor, base + start * MINUTE,
                           base + (start + length) * MINUTE, n)
        except exception.NoCapacity:
            pass
    # Read again, as a search request would: the bookings made the
    # flavor's longest booking longer, and the search's reads of its
    # bookings reach back that far.
    flavor = flavors_db.flavor_get(ctx, gpu_cloud.id)
    length = minutes * MINUTE
    earliest, latest = base, base + latest * MINUTE
    found = offers.search(ctx, [flavor], count, length, earliest, latest,
                          sort, limit)
    event('offers: %s' % (len(found) if len(found) < 3 else 'more'))

    assert len(found) <= limit
    key = ((lambda o: o.start) if sort == offers.SORT_START
           else (lambda o: (o.hosts, o.start)))
    assert [key(o) for o in found] == sorted(key(o) for o in found)
    for n, offer in enumerate(found):
        assert earliest <= offer.start <= latest
        assert offer.end - offer.start == length
        assert offer.count == count and offer.flavor.id == flavor.id
        assert all(offer.end <= other.start or other.end <= offer.start
                   for other in found[n + 1:])
        booking = admission.book(ctx, flavor, offer.start, offer.end, count)
        assert _hosts_of(booking.id) == offer.hosts
        bookings_db.booking_destroy(ctx, booking.id)
    if sort == offers.SORT_START and found:
        # Nothing fits sooner than the first offer, to the minute.
        first = found[0].start
        for minute in range(int((first - earliest) / MINUTE)):
            start = earliest + minute * MINUTE
            with pytest.raises(exception.NoCapacity):
                admission.book(ctx, flavor, start, start + length, count)
