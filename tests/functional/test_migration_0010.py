"""Migration 0010: deleting a booking row no longer deletes the
allocations of its lease (the key becomes NULL), on every backend."""
import datetime

from alembic import command
from oslo_config import cfg
import pytest
import sqlalchemy as sa

from reserve import conf as reserve_conf  # noqa: F401 (registers options)
from reserve.db import api as db_api
from reserve.db import migration
from tests.fixtures import backends
from tests.fixtures import database

CONF = cfg.CONF
NOW = datetime.datetime(2031, 1, 1)


def _rows(conn):
    """A flavor, a host, a booking, a lease reservation and the
    booking's allocation adopted by it."""
    stamps = {'now': NOW, 'yes': True, 'no': False}
    conn.execute(sa.text(
        "INSERT INTO flavors (id, name, nova_flavor_id, slots, active, "
        "is_public, longest_booking, created_at, updated_at) VALUES "
        "('f1', 'f', 'n', 1, :yes, :yes, 0, :now, :now)"), stamps)
    conn.execute(sa.text(
        "INSERT INTO hosts (id, kind, name, vcpus, memory_mb, local_gb, "
        "reservable, created_at, updated_at) VALUES ('h1', 'nova', 'h', "
        "1, 1, 1, :yes, :now, :now)"), stamps)
    conn.execute(sa.text(
        "INSERT INTO bookings (id, project_id, user_id, flavor_id, "
        "instance_count, start_date, end_date, status, created_at, "
        "updated_at) VALUES ('b1', 'p', 'u', 'f1', 1, :now, :now, "
        "'COMPLETE', :now, :now)"), stamps)
    conn.execute(sa.text(
        "INSERT INTO leases (id, name, project_id, user_id, start_date, "
        "end_date, status, degraded, created_at, updated_at) VALUES "
        "('l1', 'reservation-b1', 'p', 'u', :now, :now, 'DELETING', :no, "
        ":now, :now)"), stamps)
    conn.execute(sa.text(
        "INSERT INTO lease_reservations (id, lease_id, resource_type, "
        "status, amount, vcpus, memory_mb, disk_gb, ephemeral_gb, swap_mb,"
        " extra_specs, created_at, updated_at) VALUES ('r1', 'l1', "
        "'flavor:instance', 'active', 1, 1, 1, 1, 0, 0, '{}', :now, :now)"),
        stamps)
    conn.execute(sa.text(
        "INSERT INTO allocations (id, reservation_id, booking_id, host_id,"
        " count, start_date, end_date, created_at, updated_at) VALUES "
        "('a1', 'r1', 'b1', 'h1', 1, :now, :now, :now, :now)"), stamps)


def _allocations(engine):
    with engine.connect() as conn:
        return [tuple(r) for r in conn.execute(sa.text(
            'SELECT id, reservation_id, booking_id FROM allocations'))]


@pytest.mark.parametrize('backend', backends.BACKENDS)
def test_a_booking_row_deleted_leaves_its_lease_allocations(backend,
                                                            tmp_path):
    with backends.throwaway_database(backend, tmp_path) as url:
        CONF.set_override('connection', url, group='database')
        database.reset_engine()
        try:
            engine = db_api.get_engine()
            with engine.begin() as conn:
                command.upgrade(migration._config(conn), '0009')
                _rows(conn)
            with engine.begin() as conn:
                command.upgrade(migration._config(conn), '0010')
            with engine.begin() as conn:
                conn.execute(sa.text("DELETE FROM bookings WHERE id = 'b1'"))
            assert _allocations(engine) == [('a1', 'r1', None)]
            # Downgraded, the cascade is back.
            with engine.begin() as conn:
                conn.execute(sa.text(
                    "INSERT INTO bookings (id, project_id, user_id, "
                    "flavor_id, instance_count, start_date, end_date, "
                    "status, created_at, updated_at) VALUES ('b2', 'p', "
                    "'u', 'f1', 1, :now, :now, 'COMPLETE', :now, :now)"),
                    {'now': NOW})
                conn.execute(sa.text(
                    "UPDATE allocations SET booking_id = 'b2'"))
            with engine.begin() as conn:
                command.downgrade(migration._config(conn), '0009')
            with engine.begin() as conn:
                conn.execute(sa.text("DELETE FROM bookings WHERE id = 'b2'"))
            assert _allocations(engine) == []
        finally:
            database.reset_engine()
            CONF.clear_override('connection', group='database')
