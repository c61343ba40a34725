"""A desk's close is its own fact

A cancel (or a drain's eviction) wrote the status of a booking or a unit
reservation beside the manager's moves of it. It is now recorded in
``closed_as`` (the status it shows from then on, final), and the
``status`` column keeps what the row's lease made of it, written by the
manager alone. Rows already cancelled keep their status and need no
close.

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


def upgrade():
    for table in _TABLES:
        op.add_column(table, sa.Column('closed_as', sa.String(32)))


def downgrade():
    for table in _TABLES:
        with op.batch_alter_table(table) as batch:
            batch.drop_column('closed_as')
