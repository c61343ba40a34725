"""Spot flavors: catalogue entries that borrow idle fenced capacity

``spot`` on a catalogue flavor: its nova flavor is a spot flavor, booted
at will on reserved seats nobody uses and on fenced hosts nobody has
booked yet, and reclaimed when the capacity is needed. A project that
opts in to it (``flavor_spot_projects``) is given access to the nova
flavor. ``spot_lent`` and ``spot_used`` on a host: the spot inventory
the manager last set on its child provider, and what spot servers used
of it then, in GPUs.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-03
"""
from alembic import op
import sqlalchemy as sa


revision = '0019'
down_revision = '0018'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('flavors', sa.Column('spot', sa.Boolean(), nullable=False,
                                       server_default=sa.false()))
    op.create_table(
        'flavor_spot_projects',
        sa.Column('id', sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column('flavor_id', sa.String(36),
                  sa.ForeignKey('flavors.id', ondelete='CASCADE'),
                  nullable=False),
        sa.Column('project_id', sa.String(64), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=False),
        sa.UniqueConstraint('flavor_id', 'project_id',
                            name='uniq_flavor_spot_projects0flavor0project'),
    )
    op.add_column('hosts', sa.Column('spot_lent', sa.Integer(),
                                     nullable=False, server_default='0'))
    op.add_column('hosts', sa.Column('spot_used', sa.Integer(),
                                     nullable=False, server_default='0'))


def downgrade():
    op.drop_column('hosts', 'spot_used')
    op.drop_column('hosts', 'spot_lent')
    op.drop_table('flavor_spot_projects')
    with op.batch_alter_table('flavors') as batch:
        batch.drop_column('spot')
