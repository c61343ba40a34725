"""Offers of the offer search (GET /v1/offers, microversion 1.7)

``offers``: a window of a catalogue flavor offered to a project, bookable
as is until expires_at, and the booking made from it. Purged once lapsed
(reserve.db.offers).

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-06
"""
from alembic import op
import sqlalchemy as sa


revision = '0024'
down_revision = '0023'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'offers',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('project_id', sa.String(64), nullable=False),
        sa.Column('user_id', sa.String(64), nullable=False),
        sa.Column('flavor_id', sa.String(36), nullable=False),
        sa.Column('start', sa.DateTime, nullable=False),
        sa.Column('end', sa.DateTime, nullable=False),
        sa.Column('instance_count', sa.Integer, nullable=False),
        sa.Column('expires_at', sa.DateTime, nullable=False),
        sa.Column('booking_id', sa.String(36)),
        sa.Column('created_at', sa.DateTime, nullable=False),
        sa.Column('updated_at', sa.DateTime, nullable=False),
    )
    op.create_index('ix_offers_expires_at', 'offers', ['expires_at'])


def downgrade():
    op.drop_index('ix_offers_expires_at', table_name='offers')
    op.drop_table('offers')
