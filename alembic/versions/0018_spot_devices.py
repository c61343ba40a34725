"""Spot devices: what an active device reservation lends out

``spot_since`` on a reservation's device row: its owner put the device
on the spot market then (null: not lent); ``reclaiming_since``: a
reclaim began taking it back then (written before any spot domain is
touched, so that a restart finishes it). ``spot`` on an attachment: a
spot domain's, of a project outside the reservation, which a reclaim
takes away.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-03
"""
from alembic import op
import sqlalchemy as sa


revision = '0018'
down_revision = '0017'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('device_reservation_devices',
                  sa.Column('spot_since', sa.DateTime(), nullable=True))
    op.add_column('device_reservation_devices',
                  sa.Column('reclaiming_since', sa.DateTime(),
                            nullable=True))
    op.add_column('device_attachments',
                  sa.Column('spot', sa.Boolean(), nullable=False,
                            server_default=sa.false()))


def downgrade():
    with op.batch_alter_table('device_attachments') as batch:
        batch.drop_column('spot')
    with op.batch_alter_table('device_reservation_devices') as batch:
        batch.drop_column('reclaiming_since')
        batch.drop_column('spot_since')
