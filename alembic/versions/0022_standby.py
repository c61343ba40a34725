"""The standby list: when a booking began to wait, and until when

``standby_since`` on a booking: when it was asked for and found no room
(it then waits as STANDBY, reserve.booking.standby); waiters are admitted
in that order, so it keeps microseconds. ``standby_until``: the deadline
its user gave, after which it lapses (at its start otherwise). Both stay
NULL on a booking that never waited.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-06
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql


revision = '0022'
down_revision = '0021'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('bookings', sa.Column(
        'standby_since',
        sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql',
                                   'mariadb')))
    op.add_column('bookings', sa.Column('standby_until', sa.DateTime()))


def downgrade():
    with op.batch_alter_table('bookings') as batch:
        batch.drop_column('standby_until')
        batch.drop_column('standby_since')
