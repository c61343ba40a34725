"""Migration 0013: an allocation's amount and lease_reservation_id, the
longest allocation and a booking's reserved_flavor_id keep their data
under the new names, with the keys renamed, on every backend."""
import datetime

import pytest
import sqlalchemy as sa

from reserve import conf as reserve_conf  # noqa: F401 (registers options)
from tests.fixtures import backends
from tests.fixtures import database

NOW = datetime.datetime(2031, 1, 1)


def _rows(conn):
    """A flavor, a host, an allocated booking, its lease reservation and
    the allocation it adopted, under the names of 0012."""
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
        "INSERT INTO leases (id, name, project_id, user_id, start_date, "
        "end_date, status, degraded, created_at, updated_at) VALUES "
        "('l1', 'reservation-b1', 'p', 'u', :now, :now, 'PENDING', :no, "
        ":now, :now)"), stamps)
    conn.execute(sa.text(
        "INSERT INTO bookings (id, project_id, user_id, flavor_id, "
        "instance_count, start_date, end_date, status, lease_id, "
        "compute_flavor, created_at, updated_at) VALUES ('b1', 'p', 'u', "
        "'f1', 3, :now, :now, 'ALLOCATED', 'l1', 'r1', :now, :now)"),
        stamps)
    conn.execute(sa.text(
        "INSERT INTO lease_reservations (id, lease_id, resource_type, "
        "status, amount, vcpus, memory_mb, disk_gb, ephemeral_gb, swap_mb,"
        " extra_specs, created_at, updated_at) VALUES ('r1', 'l1', "
        "'flavor:instance', 'pending', 3, 1, 1, 1, 0, 0, '{}', :now, "
        ":now)"), stamps)
    conn.execute(sa.text(
        "INSERT INTO allocations (id, reservation_id, booking_id, host_id,"
        " count, start_date, end_date, created_at, updated_at) VALUES "
        "('a1', 'r1', 'b1', 'h1', 3, :now, :now, :now, :now)"), stamps)
    conn.execute(sa.text(
        'UPDATE capacity_state SET longest_claim = 7200 WHERE id = 1'))


def _read(engine, sql):
    with engine.connect() as conn:
        return [tuple(r) for r in conn.execute(sa.text(sql))]


def _constraints(engine):
    inspector = sa.inspect(engine)
    return ({u['name'] for u in inspector.get_unique_constraints(
                'allocations')},
            {(tuple(k['constrained_columns']), k['referred_table'])
             for k in inspector.get_foreign_keys('allocations')},
            {k['name'] for k in inspector.get_foreign_keys('allocations')})


@pytest.mark.parametrize('backend', backends.BACKENDS)
def test_the_new_names_keep_the_data(backend, tmp_path):
    with database.at_revision(backend, tmp_path, '0012') as engine:
        with engine.begin() as conn:
            _rows(conn)
        database.upgrade(engine, '0013')
        assert _read(engine, 'SELECT id, lease_reservation_id, '
                     'booking_id, amount FROM allocations') == [
            ('a1', 'r1', 'b1', 3)]
        assert _read(engine, 'SELECT reserved_flavor_id FROM '
                     'bookings') == [('r1',)]
        assert _read(engine, 'SELECT longest_allocation FROM '
                     'capacity_state') == [(7200,)]
        uniques, keys, key_names = _constraints(engine)
        assert 'uniq_allocations0lease_reservation0host' in uniques
        assert not any('reservation0host' in u and 'lease' not in u
                       for u in uniques)
        assert (('lease_reservation_id',), 'lease_reservations') in keys
        assert 'allocations_lease_reservation_fk' in key_names
        assert not any(n and 'reservation_id' in n for n in key_names)
        # The covering indexes hold the renamed column.
        indexes = {i['name']: i['column_names'] for i in
                   sa.inspect(engine).get_indexes('allocations')}
        assert 'amount' in indexes['ix_allocations_window_sizes']
        assert 'amount' in indexes['ix_allocations_host_window']
        # Down again, the old names hold the same rows.
        database.downgrade(engine, '0012')
        assert _read(engine, 'SELECT id, reservation_id, booking_id, '
                     'count FROM allocations') == [('a1', 'r1', 'b1', 3)]
        assert _read(engine, 'SELECT compute_flavor FROM '
                     'bookings') == [('r1',)]
        assert _read(engine, 'SELECT longest_claim FROM '
                     'capacity_state') == [(7200,)]
