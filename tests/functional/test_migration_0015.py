"""The migration of the windows (0015_one_window): their columns are
renamed start and end on every backend, with every row of every table
kept (the rows that point at a renamed table too: SQLite must not copy
and drop it). It is found by its name, wherever it stands in the chain.
"""
import datetime

from alembic import script
import pytest
import sqlalchemy as sa

from reserve import conf as reserve_conf  # noqa: F401 (registers options)
from reserve.db import migration
from tests.fixtures import backends
from tests.fixtures import database

NOW = datetime.datetime(2031, 1, 1)
START = datetime.datetime(2031, 3, 1, 8)
END = datetime.datetime(2031, 3, 2, 10)
WINDOWS = ('leases', 'allocations', 'bookings', 'device_reservations',
           'flavors', 'maintenance_windows', 'host_maintenance_windows')
RENAMED = {'start_date': 'start', 'end_date': 'end'}


def _revisions():
    """The migration renaming the windows, and the one before it."""
    [found] = [r for r in script.ScriptDirectory.from_config(
        migration._config()).walk_revisions()
        if r.path.endswith('_one_window.py')]
    return found.revision, found.down_revision


def _filler(column, dialect):
    """A value any NOT NULL column of its type takes."""
    kind = column.type
    if isinstance(kind, sa.JSON):
        return {}
    if isinstance(kind, sa.Boolean):
        return True
    if isinstance(kind, sa.Integer):
        return 1
    if isinstance(kind, sa.DateTime):
        return NOW
    if dialect == 'mysql' and 'TEXT' in str(kind).upper():
        return '{}'  # MariaDB keeps JSON as LONGTEXT, checked as JSON
    return 'x'


def _fill(conn):
    """One row in every table, each foreign key pointing at its parent's
    row, each window [START, END); the rows as written, by table."""
    meta = sa.MetaData()
    meta.reflect(conn)
    dialect = conn.dialect.name
    written, ids = {}, {}
    for table in meta.sorted_tables:
        if table.name == 'alembic_version' or conn.execute(
                sa.select(sa.func.count()).select_from(table)).scalar():
            continue
        row = {}
        for column in table.columns:
            parents = [fk.column for fk in column.foreign_keys]
            if parents:
                row[column.name] = ids[parents[0].table.name][
                    parents[0].name]
            elif column.name in ('start_date', 'end_date'):
                row[column.name] = START if column.name == 'start_date' \
                    else END
            elif column.primary_key and isinstance(column.type, sa.String):
                row[column.name] = table.name[:column.type.length or 36]
            elif column.primary_key and column.autoincrement is not False:
                row[column.name] = 7
            elif not column.nullable and column.server_default is None:
                row[column.name] = _filler(column, dialect)
        conn.execute(table.insert(), row)
        ids[table.name] = row
        written[table.name] = _rows(conn, table.name)
    return written


def _rows(conn, name):
    table = sa.Table(name, sa.MetaData(), autoload_with=conn)
    return [dict(r) for r in conn.execute(sa.select(table)).mappings()]


def _renamed(rows):
    return [{RENAMED.get(k, k): v for k, v in row.items()} for row in rows]


@pytest.mark.parametrize('backend', backends.BACKENDS)
def test_windows_are_renamed_and_every_row_kept(backend, tmp_path):
    renaming, before_it = _revisions()
    with database.at_revision(backend, tmp_path, before_it) as engine:
        with engine.begin() as conn:
            before = _fill(conn)
        assert set(WINDOWS) <= set(before)
        database.upgrade(engine, renaming)
        with engine.connect() as conn:
            after = {name: _rows(conn, name) for name in before}
        for name in WINDOWS:
            [row] = after[name]
            assert (row['start'], row['end']) == (START, END), name
            assert 'start_date' not in row and 'end_date' not in row
        assert after == {name: _renamed(rows)
                         for name, rows in before.items()}
        # The quoting of "end" holds in a query on each backend.
        with engine.connect() as conn:
            leases = sa.Table('leases', sa.MetaData(),
                              autoload_with=conn)
            assert conn.execute(
                sa.select(leases.c.id).where(leases.c.end > START)
                .order_by(leases.c.end)).scalars().all() == ['leases']
        # Downgraded, the old names are back with the same rows.
        database.downgrade(engine, before_it)
        with engine.connect() as conn:
            assert {name: _rows(conn, name) for name in before} == before
