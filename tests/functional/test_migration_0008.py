"""Migration 0008 gives existing leases their owner from their name."""
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
BOOKING = '7b1f2c4e-0000-4000-8000-000000000001'
DEVICE = '7b1f2c4e-0000-4000-8000-000000000002'


def _lease(conn, lease_id, name):
    now = datetime.datetime(2031, 1, 1)
    conn.execute(sa.text(
        "INSERT INTO leases (id, name, project_id, user_id, start_date, "
        "end_date, status, degraded, created_at, updated_at) VALUES (:id, "
        ":name, 'p', 'u', :now, :now, 'PENDING', :no, :now, :now)"),
        {'id': lease_id, 'name': name, 'now': now, 'no': False})


@pytest.mark.parametrize('backend', backends.BACKENDS)
def test_leases_name_their_owner_by_key(backend, tmp_path):
    with backends.throwaway_database(backend, tmp_path) as url:
        CONF.set_override('connection', url, group='database')
        database.reset_engine()
        try:
            engine = db_api.get_engine()
            with engine.begin() as conn:
                command.upgrade(migration._config(conn), '0007')
                _lease(conn, 'l1', 'reservation-' + BOOKING)
                _lease(conn, 'l2', 'device-reservation-' + DEVICE)
                _lease(conn, 'l3', 'made-by-hand')
            with engine.begin() as conn:
                command.upgrade(migration._config(conn), '0008')
            with engine.connect() as conn:
                owners = {row.id: (row.owner_type, row.owner_id)
                          for row in conn.execute(sa.text(
                              'SELECT id, owner_type, owner_id FROM '
                              'leases'))}
            assert owners == {'l1': ('booking', BOOKING),
                              'l2': ('device-reservation', DEVICE),
                              'l3': (None, None)}
            # One lease per owner.
            with pytest.raises(db_exc.DBDuplicateEntry):
                with engine.begin() as conn:
                    _lease(conn, 'l4', 'another-name')
                    conn.execute(sa.text(
                        "UPDATE leases SET owner_type = 'booking', "
                        "owner_id = :id WHERE id = 'l4'"), {'id': BOOKING})
            with engine.begin() as conn:
                command.downgrade(migration._config(conn), '0007')
        finally:
            database.reset_engine()
            CONF.clear_override('connection', group='database')
