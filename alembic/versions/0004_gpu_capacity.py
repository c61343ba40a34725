"""GPU capacity of flavor bookings

A catalogue flavor records the GPUs one instance of its nova flavor asks
for (``gpus``), and a nova host the GPUs placement last reported for its
provider tree (``gpus``), so that the calendar caps a flavor's slots by
the enrolled GPUs without asking nova or placement on every request.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-29
"""
from alembic import op
import sqlalchemy as sa


revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('flavors') as batch:
        batch.add_column(sa.Column('gpus', sa.JSON(), nullable=True))
    with op.batch_alter_table('hosts') as batch:
        batch.add_column(sa.Column('gpus', sa.JSON(), nullable=True))
