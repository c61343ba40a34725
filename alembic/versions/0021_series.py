"""Recurring bookings: a series, and the series of each booking

``series`` holds what a recurring booking asked for (its rule, the policy
it was admitted under, the occurrences refused); each occurrence admitted
is a booking whose ``series_id`` names it.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-06
"""
from alembic import op
import sqlalchemy as sa


revision = '0021'
down_revision = '0020'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'series',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('project_id', sa.String(64), nullable=False),
        sa.Column('user_id', sa.String(64), nullable=False),
        sa.Column('flavor_id', sa.String(36), nullable=False),
        sa.Column('instance_count', sa.Integer(), nullable=False),
        sa.Column('start', sa.DateTime(), nullable=False),
        sa.Column('end', sa.DateTime(), nullable=False),
        sa.Column('rrule', sa.String(255), nullable=False),
        sa.Column('policy', sa.String(32), nullable=False),
        sa.Column('refused', sa.JSON(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=False),
    )
    op.create_index('ix_series_project', 'series', ['project_id'])
    with op.batch_alter_table('bookings') as batch:
        batch.add_column(sa.Column('series_id', sa.String(36), nullable=True))
        batch.create_foreign_key('bookings_series_fk', 'series',
                                 ['series_id'], ['id'])
        batch.create_index('ix_bookings_series', ['series_id'])


def downgrade():
    with op.batch_alter_table('bookings') as batch:
        batch.drop_index('ix_bookings_series')
        batch.drop_constraint('bookings_series_fk', type_='foreignkey')
        batch.drop_column('series_id')
    op.drop_index('ix_series_project', table_name='series')
    op.drop_table('series')
