"""A lease's owner, by key

A lease belonged to a booking or a device reservation by its name
('reservation-<booking id>', 'device-reservation-<id>'). It now says so
in two columns, owner_type ('booking', 'device-reservation') and
owner_id, unique together; existing leases are given theirs from their
names.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""
from alembic import op
import sqlalchemy as sa


revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None

# owner_type -> the name prefix leases of that owner were given
_PREFIXES = (('booking', 'reservation-'),
             ('device-reservation', 'device-reservation-'))


def upgrade():
    with op.batch_alter_table('leases') as batch:
        batch.add_column(sa.Column('owner_type', sa.String(32)))
        batch.add_column(sa.Column('owner_id', sa.String(36)))
        batch.create_unique_constraint('uniq_leases0owner_type0owner_id',
                                       ['owner_type', 'owner_id'])
    leases = sa.table('leases', sa.column('name', sa.String),
                      sa.column('owner_type', sa.String),
                      sa.column('owner_id', sa.String))
    for owner_type, prefix in _PREFIXES:
        op.execute(
            leases.update()
            .where(leases.c.name.like(prefix + '%'))
            .where(leases.c.owner_type.is_(None))
            .values(owner_type=owner_type,
                    owner_id=sa.func.substr(leases.c.name,
                                            len(prefix) + 1)))


def downgrade():
    with op.batch_alter_table('leases') as batch:
        batch.drop_constraint('uniq_leases0owner_type0owner_id',
                              type_='unique')
        batch.drop_column('owner_id')
        batch.drop_column('owner_type')
