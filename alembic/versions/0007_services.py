"""Daemons' heartbeats

One row per running daemon (binary, host), its heartbeat written every
[DEFAULT]heartbeat_interval: events a manager claimed are taken over by
another once its heartbeat is older than [DEFAULT]service_down_time.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""
from alembic import op
import sqlalchemy as sa


revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'services',
        sa.Column('id', sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column('binary', sa.String(64), nullable=False),
        sa.Column('host', sa.String(255), nullable=False),
        sa.Column('heartbeat_at', sa.DateTime(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=False),
        sa.UniqueConstraint('binary', 'host',
                            name='uniq_services0binary0host'))


def downgrade():
    op.drop_table('services')
