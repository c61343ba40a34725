"""Migration 0014: the devices a device reservation holds, and the
device tables' key to it, take their glossary names (and keep their
rows), on every backend; downgraded, the old names are back."""
import datetime
import json

import pytest
import sqlalchemy as sa

from reserve import conf as reserve_conf  # noqa: F401 (registers options)
from tests.fixtures import backends
from tests.fixtures import database

NOW = datetime.datetime(2031, 1, 1)
BEFORE, AFTER = '0013', '0014'


def _rows(conn):
    """A libvirt host with a GPU, two device reservations (one of that
    GPU, one of a count) and the first's project and attachment."""
    values = {'now': NOW, 'yes': True, 'empty': '[]',
              'by_ids': json.dumps({'unit_ids': ['d1']}),
              'by_count': json.dumps({'count': 2, 'model': 'A100',
                                      'numa_local': False})}
    conn.execute(sa.text(
        "INSERT INTO hosts (id, kind, name, vcpus, memory_mb, local_gb, "
        "reservable, uri, created_at, updated_at) VALUES ('h1', "
        "'libvirt', 'h', 0, 0, 0, :yes, 'test:///default', :now, :now)"),
        values)
    conn.execute(sa.text(
        "INSERT INTO devices (id, host_id, name, pci_address, "
        "iommu_group_members, virtual_functions, mdev_types, mdevs, "
        "in_use_by, state, created_at, updated_at) VALUES ('d1', 'h1', "
        "'pci_0000_17_00_0', '0000:17:00.0', :empty, :empty, :empty, "
        ":empty, :empty, 'present', :now, :now)"), values)
    for rsv, request in (('r1', 'by_ids'), ('r2', 'by_count')):
        conn.execute(sa.text(
            "INSERT INTO device_reservations (id, host_id, project_id, "
            "user_id, start_date, end_date, status, request, "
            "topology_generation, created_at, updated_at) VALUES "
            "(:id, 'h1', 'p', 'u', :now, :now, 'active', :request, 'g', "
            ":now, :now)"), dict(values, id=rsv, request=values[request]))
    conn.execute(sa.text(
        "INSERT INTO device_reservation_projects (reservation_id, "
        "project_id, role, created_at, updated_at) VALUES ('r1', 'p', "
        "'allowed', :now, :now)"), values)
    conn.execute(sa.text(
        "INSERT INTO device_reservation_units (reservation_id, device_id, "
        "created_at, updated_at) VALUES ('r1', 'd1', :now, :now)"),
        values)
    conn.execute(sa.text(
        "INSERT INTO device_attachments (id, reservation_id, device_id, "
        "domain, kind, project_id, state, created_at, updated_at) VALUES "
        "('a1', 'r1', 'd1', 'vm-1', 'pci', 'p', 'attached', :now, :now)"),
        values)


def _read(engine, table, column):
    with engine.connect() as conn:
        return [tuple(r) for r in conn.execute(sa.text(
            'SELECT %s FROM %s ORDER BY %s' % (column, table, column)))]


def _requests(engine):
    with engine.connect() as conn:
        table = sa.table('device_reservations', sa.column('id'),
                         sa.column('request', sa.JSON))
        return {row.id: row.request for row in conn.execute(
            sa.select(table.c.id, table.c.request))}


def _names(engine, table):
    """The names of the indexes, unique constraints and (where the
    backend names them) keys of ``table``."""
    inspector = sa.inspect(engine)
    names = {i['name'] for i in inspector.get_indexes(table)}
    names |= {u['name'] for u in inspector.get_unique_constraints(table)}
    names |= {f['name'] for f in inspector.get_foreign_keys(table)}
    names.add(inspector.get_pk_constraint(table)['name'])
    return {name for name in names if name}


def _old_names(engine, tables):
    """The names of ``tables``' indexes, constraints and keys that still
    say units, rsv or a bare reservation_id."""
    return sorted(
        name for table in tables for name in _names(engine, table)
        if 'units' in name or 'rsv' in name or
        'reservation_id' in name.replace('device_reservation_id', ''))


@pytest.mark.parametrize('backend', backends.BACKENDS)
def test_the_device_tables_take_their_glossary_names(backend, tmp_path):
    with database.at_revision(backend, tmp_path, BEFORE) as engine:
        with engine.begin() as conn:
            _rows(conn)
        database.upgrade(engine, AFTER)

        tables = sa.inspect(engine).get_table_names()
        assert 'device_reservation_devices' in tables
        assert 'device_reservation_units' not in tables
        assert _read(engine, 'device_reservation_devices',
                     'device_reservation_id, device_id') == [
            ('r1', 'd1')]
        assert _read(engine, 'device_reservation_projects',
                     'device_reservation_id') == [('r1',)]
        assert _read(engine, 'device_attachments',
                     'device_reservation_id') == [('r1',)]
        assert _requests(engine) == {
            'r1': {'device_ids': ['d1']},
            'r2': {'device_count': 2, 'model': 'A100',
                   'numa_local': False}}
        assert 'ix_device_reservation_devices_device' in _names(
            engine, 'device_reservation_devices')
        assert ('uniq_device_attachments0device_reservation0device0'
                'domain') in _names(engine, 'device_attachments')
        new = ('device_reservation_projects',
               'device_reservation_devices', 'device_attachments')
        # No index, constraint or key keeps an old name.
        assert _old_names(engine, new) == []
        # The foreign keys still hold: a reservation deleted takes
        # its rows with it.
        with engine.begin() as conn:
            if backend == 'sqlite':
                conn.execute(sa.text('PRAGMA foreign_keys = ON'))
            conn.execute(sa.text(
                "DELETE FROM device_reservations WHERE id = 'r1'"))
        for table in new:
            assert _read(engine, table, 'device_reservation_id') == []

        # Downgraded, every old name is back, with the rows.
        with engine.begin() as conn:
            _rows_after(conn)
        database.downgrade(engine, BEFORE)
        tables = sa.inspect(engine).get_table_names()
        assert 'device_reservation_units' in tables
        assert 'device_reservation_devices' not in tables
        assert _read(engine, 'device_reservation_units',
                     'reservation_id, device_id') == [('r3', 'd1')]
        assert _read(engine, 'device_attachments',
                     'reservation_id') == [('r3',)]
        assert _requests(engine)['r3'] == {'unit_ids': ['d1']}
        assert 'ix_device_reservation_units_device' in _names(
            engine, 'device_reservation_units')
        assert 'uniq_device_attachments0rsv0dev0domain' in _names(
            engine, 'device_attachments')
        old = ('device_reservation_projects', 'device_reservation_units',
               'device_attachments')
        assert not [name for table in old
                    for name in _names(engine, table)
                    if 'device_reservation_devices' in name or
                    'device_reservation_id' in name or
                    'device_reservation0' in name]


def _rows_after(conn):
    """A reservation written under the new names."""
    values = {'now': NOW, 'request': json.dumps({'device_ids': ['d1']})}
    conn.execute(sa.text(
        "INSERT INTO device_reservations (id, host_id, project_id, "
        "user_id, start_date, end_date, status, request, "
        "topology_generation, created_at, updated_at) VALUES "
        "('r3', 'h1', 'p', 'u', :now, :now, 'active', :request, 'g', "
        ":now, :now)"), values)
    conn.execute(sa.text(
        "INSERT INTO device_reservation_devices (device_reservation_id, "
        "device_id, created_at, updated_at) VALUES ('r3', 'd1', :now, "
        ":now)"), values)
    conn.execute(sa.text(
        "INSERT INTO device_attachments (id, device_reservation_id, "
        "device_id, domain, kind, project_id, state, created_at, "
        "updated_at) VALUES ('a3', 'r3', 'd1', 'vm-1', 'pci', 'p', "
        "'planned', :now, :now)"), values)
