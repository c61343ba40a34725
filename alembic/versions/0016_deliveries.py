"""What each reservation got: its delivery

One row per owner of a lease (a booking, a device reservation), kept
after both are gone: when it became usable, the hosts replaced under it,
the repairs made to its cloud objects, the capacity it lacked and for
how long, and the servers nova could not delete at its end.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-03
"""
from alembic import op
import sqlalchemy as sa


revision = '0016'
down_revision = '0015'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'deliveries',
        sa.Column('owner_type', sa.String(32), primary_key=True),
        sa.Column('owner_id', sa.String(36), primary_key=True),
        sa.Column('project_id', sa.String(64), nullable=False),
        sa.Column('flavor_id', sa.String(36)),
        sa.Column('amount', sa.Integer(), nullable=False),
        sa.Column('start', sa.DateTime(), nullable=False),
        sa.Column('end', sa.DateTime(), nullable=False),
        sa.Column('usable_at', sa.DateTime()),
        sa.Column('hosts_replaced', sa.Integer(), nullable=False),
        sa.Column('repairs', sa.Integer(), nullable=False),
        sa.Column('missing', sa.Integer(), nullable=False),
        sa.Column('missing_since', sa.DateTime()),
        sa.Column('missing_seconds', sa.Integer(), nullable=False),
        sa.Column('stuck_servers', sa.JSON()),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=False))
    op.create_index('ix_deliveries_window', 'deliveries', ['start', 'end'])


def downgrade():
    op.drop_table('deliveries')
