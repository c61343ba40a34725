"""Shared bookings: the projects a booking lets boot its reserved flavor

``booking_projects``: a project named by the booking's owner, given
flavor access to the reserved flavor (and a ``filter_tenant_id_<project>``
key on its aggregate) while the lease runs. ``removed_at``: the owner
took the share back, and the repair has yet to see the project's access
go.

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-06
"""
from alembic import op
import sqlalchemy as sa


revision = '0023'
down_revision = '0022'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'booking_projects',
        sa.Column('id', sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column('booking_id', sa.String(36),
                  sa.ForeignKey('bookings.id', ondelete='CASCADE'),
                  nullable=False),
        sa.Column('project_id', sa.String(64), nullable=False),
        sa.Column('removed_at', sa.DateTime()),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=False),
        sa.UniqueConstraint('booking_id', 'project_id',
                            name='uniq_booking_projects0booking0project'),
    )
    op.create_index('ix_booking_projects_project', 'booking_projects',
                    ['project_id'])


def downgrade():
    op.drop_index('ix_booking_projects_project',
                  table_name='booking_projects')
    op.drop_table('booking_projects')
