"""Domains have owners

A GPU unit goes only into a domain of one of its reservation's
projects. On libvirt hosts not run by nova an administrator records
each domain's owner (domain_owners); an attachment remembers the owner
its domain had when it was named (device_attachments.domain_owner), so
that an end never touches a domain that changed hands since.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02
"""
from alembic import op
import sqlalchemy as sa


revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'domain_owners',
        sa.Column('host_id', sa.String(36),
                  sa.ForeignKey('hosts.id', ondelete='CASCADE'),
                  primary_key=True),
        sa.Column('domain', sa.String(255), primary_key=True),
        sa.Column('project_id', sa.String(64), nullable=False),
        sa.Column('created_at', sa.DateTime, nullable=False),
        sa.Column('updated_at', sa.DateTime, nullable=False),
    )
    with op.batch_alter_table('device_attachments') as batch:
        batch.add_column(sa.Column('domain_owner', sa.String(64)))


def downgrade():
    with op.batch_alter_table('device_attachments') as batch:
        batch.drop_column('domain_owner')
    op.drop_table('domain_owners')
