"""A desk's close is its own fact

A cancel (or a drain's eviction) wrote the status of a booking or a unit
reservation beside the manager's moves of it. It is now recorded in
``closed_as`` (the status it shows from then on, final), and the
``status`` column keeps what the row's lease made of it, written by the
manager alone. Rows already cancelled keep their status and need no
close. The admission's covering indexes on bookings (0006) hold
``closed_as`` too, since what they count is the status shown; each new
one is made before the old goes (MariaDB keeps an index under the
flavor's foreign key).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02
"""
from alembic import op
import sqlalchemy as sa


revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None

_TABLES = ('bookings', 'device_reservations')
# (old index, its columns, new index, its columns)
_INDEXES = (
    ('ix_bookings_flavor_calendar',
     ['flavor_id', 'end_date', 'start_date', 'status', 'instance_count'],
     'ix_bookings_flavor_live',
     ['flavor_id', 'end_date', 'start_date', 'status', 'closed_as',
      'instance_count']),
    ('ix_bookings_project_usage',
     ['project_id', 'status', 'start_date', 'end_date', 'instance_count'],
     'ix_bookings_project_live',
     ['project_id', 'status', 'closed_as', 'start_date', 'end_date',
      'instance_count']),
)


def upgrade():
    for table in _TABLES:
        op.add_column(table, sa.Column('closed_as', sa.String(32)))
    for old, _, new, columns in _INDEXES:
        op.create_index(new, 'bookings', columns)
        op.drop_index(old, table_name='bookings')


def downgrade():
    for old, old_columns, new, _ in _INDEXES:
        op.create_index(old, 'bookings', old_columns)
        op.drop_index(new, table_name='bookings')
    for table in _TABLES:
        with op.batch_alter_table(table) as batch:
            batch.drop_column('closed_as')
