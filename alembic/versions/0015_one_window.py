"""A window is [start, end) in the tables too

The API has always said ``start`` and ``end``; the tables said
``start_date`` and ``end_date``. Every table with a window now names its
columns as the API does. The indexes over them follow their columns
(none carries the old names in its own); the rows stay as they are.

SQLite renames in place (``ALTER TABLE ... RENAME COLUMN``, SQLite 3.25
and later) rather than copying each table: a copy drops the old table,
and with foreign keys on, dropping ``leases``, ``bookings`` or
``device_reservations`` would delete or unlink the rows that point at
them. ``end`` is a reserved word in PostgreSQL; the DDL and every query
quote it.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-03
"""
from alembic import op
import sqlalchemy as sa


revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None

# (table, whether its window may be left open)
_TABLES = (
    ('leases', False),
    ('allocations', False),
    ('bookings', False),
    ('device_reservations', False),
    ('flavors', True),
    ('maintenance_windows', False),
    ('host_maintenance_windows', False),
)
_NAMES = (('start_date', 'start'), ('end_date', 'end'))


def _rename(renames):
    for table, nullable in _TABLES:
        with op.batch_alter_table(table, recreate='never') as batch:
            for old, new in renames:
                batch.alter_column(old, new_column_name=new,
                                   existing_type=sa.DateTime(),
                                   existing_nullable=nullable)


def upgrade():
    _rename(_NAMES)


def downgrade():
    _rename([(new, old) for old, new in _NAMES])
