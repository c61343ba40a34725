"""The health of a host: what failed, and since when

A host nova or libvirt reports failed is unreservable while ``failure``
says why; ``reservable`` stays the operator's own choice, and holds
again once the failure clears.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-10
"""
from alembic import op
import sqlalchemy as sa


revision = '0017'
down_revision = '0016'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('hosts', sa.Column('failure', sa.Text(), nullable=True))
    op.add_column('hosts', sa.Column('failed_at', sa.DateTime(),
                                     nullable=True))


def downgrade():
    op.drop_column('hosts', 'failed_at')
    op.drop_column('hosts', 'failure')
