"""reserve.db.desk: catalogue lookups and the calendar's reads."""
import datetime

from oslo_db import exception as db_exc
import pytest

from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import states
from reserve.db import api as db_api
from reserve.db import bookings as bookings_db
from reserve.db import desk
from reserve.db import flavors as flavors_db
from reserve.db import maintenance as maintenance_db
from tests.unit import factories

T0 = datetime.datetime(2031, 1, 1)
H = datetime.timedelta(hours=1)
GUARD = datetime.timedelta(seconds=60)


def ctx():
    return reserve_context.get_admin_context()


def _read(flavor_ref, start, end):
    flavor = flavors_db.flavor_get(ctx(), flavor_ref)
    return desk.bookings_in_window(ctx(), [flavor], start, end,
                                   GUARD)[flavor.id]


def test_a_long_booking_is_found_far_from_its_start(db):
    factories.make_booking(start=T0, end=T0 + H)
    long_one = factories.make_booking(start=T0, end=T0 + 30 * 24 * H)
    assert flavors_db.flavor_get(ctx(), 'gpu.a100').longest_booking == \
        30 * 24 * 3600
    found = _read('gpu.a100', T0 + 29 * 24 * H, T0 + 29 * 24 * H + H)
    assert found == [(long_one.start, long_one.end, 1)]


def test_moving_an_end_stretches_the_bound(db):
    row = factories.make_booking(start=T0, end=T0 + H)
    bookings_db.booking_update(ctx(), row.id, {'end': T0 + 100 * H})
    assert flavors_db.flavor_get(ctx(), 'gpu.a100').longest_booking == \
        100 * 3600
    assert _read('gpu.a100', T0 + 99 * H, T0 + 101 * H) == [
        (T0, T0 + 100 * H, 1)]
    # Shorter again: the bound stays (it is only an upper bound).
    bookings_db.booking_update(ctx(), row.id, {'end': T0 + 2 * H})
    assert flavors_db.flavor_get(ctx(), 'gpu.a100').longest_booking == \
        100 * 3600


def test_window_edges_and_the_guard(db):
    factories.make_booking(start=T0, end=T0 + H)
    # Held until its end + guard; a window starting then sees nothing.
    assert _read('gpu.a100', T0 + H, T0 + 2 * H) == [(T0, T0 + H, 1)]
    assert _read('gpu.a100', T0 + H + GUARD, T0 + 2 * H) == []
    # A window ending at its start does not meet it.
    assert _read('gpu.a100', T0 - H, T0) == []


def test_only_live_bookings_of_the_flavor_are_read(db):
    for status in states.Booking.ALL:
        factories.make_booking(status=status, start=T0, end=T0 + H)
    factories.make_booking(flavor_id='gpu.h100', start=T0, end=T0 + H)
    assert len(_read('gpu.a100', T0, T0 + H)) == 3


def test_maintenance_in_window(db):
    a100 = factories.make_flavor('gpu.a100')
    h100 = factories.make_flavor('gpu.h100')
    listed = maintenance_db.window_create(ctx(), {
        'start': T0, 'end': T0 + H, 'all_flavors': False},
        [a100.id])
    everything = maintenance_db.window_create(ctx(), {
        'start': T0 + 2 * H, 'end': T0 + 3 * H,
        'all_flavors': True})
    found = desk.maintenance_in_window(ctx(), [a100.id, h100.id], T0,
                                       T0 + 4 * H, GUARD)
    assert [(w.id, ids) for w, ids in found] == [
        (listed.id, {a100.id}), (everything.id, {a100.id, h100.id})]
    assert [w.id for w, _ in desk.maintenance_in_window(
        ctx(), [h100.id], T0, T0 + 4 * H, GUARD)] == [everything.id]
    # Held a guard longer than its end, like a booking.
    assert desk.maintenance_in_window(ctx(), [a100.id], T0 + H,
                                      T0 + H + GUARD, GUARD)[0][0].id == \
        listed.id
    assert desk.maintenance_in_window(ctx(), [a100.id], T0 + H + GUARD,
                                      T0 + 2 * H, GUARD) == []


def test_visibility_of_flavors(db):
    factories.make_flavor('public')
    factories.make_flavor('private', is_public=False)
    flavors_db.grant_add(ctx(), flavors_db.flavor_get(ctx(), 'private').id,
                         'project-a')
    factories.make_flavor('off', active=False)
    seen = [f.name for f in flavors_db.flavor_list(
        ctx(), project_id='project-a', active_only=True)]
    assert seen == ['private', 'public']
    seen = [f.name for f in flavors_db.flavor_list(
        ctx(), project_id='project-b', active_only=True)]
    assert seen == ['public']
    with pytest.raises(exception.FlavorNotFound):
        flavors_db.flavor_get(ctx(), 'private', project_id='project-b')
    with pytest.raises(exception.FlavorNotFound):
        flavors_db.flavor_get(ctx(), 'off', project_id='project-a',
                              active_only=True)
    flavor = flavors_db.flavor_get(ctx(), 'off')
    assert flavors_db.flavor_get(ctx(), flavor.id).name == 'off'
    assert flavors_db.flavor_find_id(ctx(), 'off') == flavor.id
    assert flavors_db.flavor_find_id(ctx(), 'nothing') is None


def test_bookings_must_name_a_catalogue_flavor(db):
    with pytest.raises(db_exc.DBReferenceError):
        bookings_db.booking_create(ctx(), {
            'project_id': 'p', 'user_id': 'u', 'flavor_id': 'nova-id',
            'instance_count': 1, 'start': T0, 'end': T0 + H,
            'status': states.Booking.PENDING_CREATE})


def test_flavor_lock_returns_fresh_rows_in_id_order(db):
    flavors = [factories.make_flavor('f%d' % i) for i in range(3)]
    with db_api.writer.using(ctx()):
        locked = flavors_db.flavor_lock(ctx(),
                                        [f.id for f in reversed(flavors)])
        assert [f.id for f in locked] == sorted(f.id for f in flavors)
        everything = flavors_db.flavor_lock(ctx())
        assert len(everything) == 3
