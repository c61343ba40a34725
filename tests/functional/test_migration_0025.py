"""Migration 0025: the flavors' slots held by day, worked out from the
bookings on record (live ones only, from a booking's start's day to the
day after its end's), as reserve.db.slot_days.rebuild works them out;
dropped again by its downgrade; on every backend."""
import datetime

import pytest
import sqlalchemy as sa

from reserve import conf as reserve_conf  # noqa: F401 (registers options)
from tests.fixtures import backends
from tests.fixtures import database

NOW = datetime.datetime(2031, 1, 1)


def _booking(booking_id, status, start, end, count, closed_as=None):
    return {'id': booking_id, 'project_id': 'p', 'user_id': 'u',
            'flavor_id': 'f1', 'instance_count': count, 'start': start,
            'end': end, 'status': status, 'closed_as': closed_as,
            'created_at': NOW, 'updated_at': NOW}


@pytest.mark.parametrize('backend', backends.BACKENDS)
def test_slot_days_are_worked_out_from_the_live_bookings(backend, tmp_path):
    with database.at_revision(backend, tmp_path, '0024') as engine:
        meta = sa.MetaData()
        meta.reflect(engine, only=('flavors', 'bookings'))
        with engine.begin() as conn:
            conn.execute(meta.tables['flavors'].insert(), [{
                'id': 'f1', 'name': 'f', 'nova_flavor_id': 'f',
                'nova_flavor': '{}', 'slots': 9, 'active': True,
                'is_public': True, 'longest_booking': 0, 'spot': False,
                'created_at': NOW, 'updated_at': NOW}])
            day = datetime.datetime(2031, 3, 1)
            conn.execute(meta.tables['bookings'].insert(), [
                _booking('live', 'ACTIVE', day + datetime.timedelta(
                    hours=22), day + datetime.timedelta(hours=30), 2),
                _booking('also', 'PENDING_CREATE', day, day +
                         datetime.timedelta(hours=1), 1),
                _booking('cancelled', 'ALLOCATED', day, day +
                         datetime.timedelta(days=5), 4,
                         closed_as='COMPLETE'),
                _booking('over', 'COMPLETE', day, day +
                         datetime.timedelta(days=5), 4)])
        database.upgrade(engine, '0025')
        with engine.connect() as conn:
            rows = conn.execute(sa.text(
                'SELECT day, instances FROM flavor_slot_days '
                'ORDER BY day')).all()
        assert [(str(d), n) for d, n in rows] == [
            ('2031-03-01', 3), ('2031-03-02', 3), ('2031-03-03', 2)]
        database.downgrade(engine, '0024')
        assert not sa.inspect(engine).has_table('flavor_slot_days')
