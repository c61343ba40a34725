"""Indexes that hold what a decision reads

An admission reads, for its window, the claims on the hosts (of every
host, or of the few a placement looks at), the bookings of its catalogue
flavor and the project's live bookings for its quota: up to hundreds of
rows each. Each of these indexes holds every column its query reads, so
SQLite and MariaDB answer from the index alone instead of visiting every
row of the table.

Each new index is made before the one it replaces is dropped: MariaDB
needs an index on a foreign key's columns at every moment.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""
from alembic import op


revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None

# (table, new index, its columns, the index it replaces, their columns)
CHANGES = (
    ('allocations', 'ix_allocations_window_sizes',
     ['end_date', 'start_date', 'host_id', 'count', 'vcpus', 'memory_mb',
      'disk_gb'],
     'ix_allocations_window', ['end_date', 'start_date']),
    ('allocations', 'ix_allocations_host_window',
     ['host_id', 'end_date', 'start_date', 'count', 'vcpus', 'memory_mb',
      'disk_gb'],
     'ix_allocations_host', ['host_id']),
    ('bookings', 'ix_bookings_flavor_calendar',
     ['flavor_id', 'end_date', 'start_date', 'status', 'instance_count'],
     'ix_bookings_flavor_window', ['flavor_id', 'end_date', 'start_date']),
    ('bookings', 'ix_bookings_project_usage',
     ['project_id', 'status', 'start_date', 'end_date', 'instance_count'],
     'ix_bookings_project', ['project_id']),
)


def upgrade():
    for table, new, columns, old, _ in CHANGES:
        op.create_index(new, table, columns)
        op.drop_index(old, table_name=table)


def downgrade():
    for table, new, _, old, old_columns in reversed(CHANGES):
        op.create_index(old, table, old_columns)
        op.drop_index(new, table_name=table)
