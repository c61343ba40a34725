"""One case for statuses; a manager takes an event

The statuses of device reservations (``status``, ``closed_as``), the
states of their attachments, the statuses of lease reservations and the
states of devices are stored in upper case with an underscore, as those
of bookings, leases and events already are (``needs-review`` becomes
``NEEDS_REVIEW``); the API still shows the values it always showed.
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

_DEVICE_RESERVATION = (('pending', 'PENDING'), ('active', 'ACTIVE'),
                       ('expired', 'EXPIRED'), ('cancelled', 'CANCELLED'),
                       ('needs-review', 'NEEDS_REVIEW'))
# (table, column, (old value, new value)...)
_VALUES = (
    ('device_reservations', 'status', _DEVICE_RESERVATION),
    ('device_reservations', 'closed_as', _DEVICE_RESERVATION),
    ('device_attachments', 'state',
     (('planned', 'PLANNED'), ('attaching', 'ATTACHING'),
      ('attached', 'ATTACHED'), ('detached', 'DETACHED'))),
    ('lease_reservations', 'status',
     (('pending', 'PENDING'), ('active', 'ACTIVE'), ('deleted', 'DELETED'))),
    ('devices', 'state', (('present', 'PRESENT'), ('missing', 'MISSING'))),
)
# (old column, new column, its type)
_COLUMNS = (('claimed_by', 'taken_by', sa.String(255)),
            ('claimed_at', 'taken_at', sa.DateTime()))


def _convert(to_new):
    for table, column, pairs in _VALUES:
        rows = sa.table(table, sa.column(column, sa.String))
        for old, new in pairs:
            before, after = (old, new) if to_new else (new, old)
            op.execute(rows.update()
                       .where(rows.c[column] == before)
                       .values({column: after}))


def _rename(to_new):
    with op.batch_alter_table('events') as batch:
        for old, new, type_ in _COLUMNS:
            before, after = (old, new) if to_new else (new, old)
            batch.alter_column(before, new_column_name=after,
                               existing_type=type_, existing_nullable=True)


def upgrade():
    _convert(True)
    _rename(True)


def downgrade():
    _rename(False)
    _convert(False)
