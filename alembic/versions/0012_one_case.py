"""A manager takes an event

The manager that runs an event is the one that took it: ``events``
columns ``claimed_by`` and ``claimed_at`` become ``taken_by`` and
``taken_at`` (no index or constraint names them).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-03
"""
from alembic import op
import sqlalchemy as sa


revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None

# (old column, new column, its type)
_COLUMNS = (('claimed_by', 'taken_by', sa.String(255)),
            ('claimed_at', 'taken_at', sa.DateTime()))


def _rename(to_new):
    with op.batch_alter_table('events') as batch:
        for old, new, type_ in _COLUMNS:
            before, after = (old, new) if to_new else (new, old)
            batch.alter_column(before, new_column_name=after,
                               existing_type=type_, existing_nullable=True)


def upgrade():
    _rename(True)


def downgrade():
    _rename(False)
