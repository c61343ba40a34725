"""Migration 0002 moves existing bookings onto catalogue flavors."""
import datetime

from alembic import command
from oslo_config import cfg
from oslo_db import exception as db_exc
import pytest
import sqlalchemy as sa

from reserve import conf as reserve_conf  # noqa: F401 (registers options)
from reserve.db import api as db_api
from reserve.db import migration
from tests.fixtures import backends
from tests.fixtures import database

CONF = cfg.CONF
T0 = datetime.datetime(2031, 3, 1, 8)


def _booking(conn, booking_id, flavor_id, hours):
    now = datetime.datetime(2031, 1, 1)
    conn.execute(sa.text(
        "INSERT INTO bookings (id, project_id, user_id, flavor_id, "
        "instance_count, start_date, end_date, status, created_at, "
        "updated_at) VALUES (:id, 'p', 'u', :flavor, 1, :start, :end, "
        "'ALLOCATED', :now, :now)"),
        {'id': booking_id, 'flavor': flavor_id, 'start': T0,
         'end': T0 + datetime.timedelta(hours=hours), 'now': now})


@pytest.mark.parametrize('backend', backends.BACKENDS)
def test_bookings_of_nova_flavors_get_catalogue_entries(backend,
                                                        tmp_path):
    with backends.throwaway_database(backend, tmp_path) as url:
        CONF.set_override('connection', url, group='database')
        database.reset_engine()
        try:
            engine = db_api.get_engine()
            with engine.begin() as conn:
                command.upgrade(migration._config(conn), '0001')
                _booking(conn, 'b1', 'nova-a100', 3)
                _booking(conn, 'b2', 'nova-a100', 30)
                _booking(conn, 'b3', 'gpu.h100', 2)
            with engine.begin() as conn:
                command.upgrade(migration._config(conn), '0002')
            assert migration.version() == '0002'

            with engine.connect() as conn:
                flavors = {row.name: row for row in conn.execute(sa.text(
                    'SELECT * FROM flavors'))}
                bookings = dict(conn.execute(sa.text(
                    'SELECT id, flavor_id FROM bookings')).all())
            assert sorted(flavors) == ['gpu.h100', 'nova-a100']
            a100 = flavors['nova-a100']
            assert a100.nova_flavor_id == 'nova-a100'
            # For an operator to review before anything more is booked.
            assert (a100.slots, bool(a100.active),
                    bool(a100.is_public)) == (0, False, False)
            assert 'migration 0002' in a100.description
            assert a100.longest_booking == 30 * 3600
            assert bookings == {'b1': a100.id, 'b2': a100.id,
                                'b3': flavors['gpu.h100'].id}

            # Bookings must now name a catalogue flavor.
            with pytest.raises((db_exc.DBReferenceError,
                                sa.exc.IntegrityError)):
                with engine.begin() as conn:
                    _booking(conn, 'b4', 'not-in-the-catalogue', 1)
        finally:
            database.reset_engine()
            CONF.clear_override('connection', group='database')
