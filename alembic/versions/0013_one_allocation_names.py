"""The glossary's names for an allocation and a reserved flavor

An allocation holds ``amount`` instances (the share of its lease
reservation's ``amount`` on one host), not a ``count``, and names its
lease reservation ``lease_reservation_id``, not ``reservation_id``; its
unique constraint and its foreign key to the lease reservation carry the
new name (the key had none of its own: PostgreSQL called it
``allocations_reservation_id_fkey``, MariaDB ``allocations_ibfk_<n>``).
The longest allocation ever written is ``longest_allocation`` in
``capacity_state``, and a booking's reserved flavor is
``reserved_flavor_id``, the name its model already used. Columns are
renamed in place: their data stays, and so do the covering indexes of
0006, which hold ``amount`` under the same names.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03
"""
from alembic import op
import sqlalchemy as sa


revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None

# (table, old column, new column, its type, nullable)
_COLUMNS = (
    ('allocations', 'count', 'amount', sa.Integer(), False),
    ('capacity_state', 'longest_claim', 'longest_allocation', sa.Integer(),
     False),
    ('bookings', 'compute_flavor', 'reserved_flavor_id', sa.String(255),
     True),
)
# The foreign key of allocations.reservation_id had no name: SQLite's
# batch copy is given PostgreSQL's so that it can be dropped by name.
_UNNAMED_KEY = {'fk': '%(table_name)s_%(column_0_name)s_fkey'}


def _key_name(column):
    """The name of allocations' foreign key on ``column`` (None: none)."""
    for key in sa.inspect(op.get_bind()).get_foreign_keys('allocations'):
        if key['constrained_columns'] == [column]:
            return key['name'] or 'allocations_%s_fkey' % column
    return None


def _lease_reservation_key(old, new, old_unique, new_unique, old_fk,
                           new_fk):
    """Rename allocations' column ``old`` to ``new`` with its unique
    constraint and its foreign key (both dropped before the rename and
    made again after it: MariaDB never has a key without an index)."""
    key = _key_name(old) or old_fk
    with op.batch_alter_table('allocations',
                              naming_convention=_UNNAMED_KEY) as batch:
        batch.drop_constraint(key, type_='foreignkey')
        batch.drop_constraint(old_unique, type_='unique')
    _rename('allocations', old, new, sa.String(36), True)
    with op.batch_alter_table('allocations') as batch:
        batch.create_unique_constraint(new_unique, [new, 'host_id'])
        batch.create_foreign_key(new_fk, 'lease_reservations', [new],
                                 ['id'], ondelete='CASCADE')


def _rename(table, old, new, type_, nullable):
    # In place, also on SQLite (RENAME COLUMN): a batch copy of bookings
    # would drop the table its allocations refer to, which sets their
    # booking_id to NULL.
    op.alter_column(table, old, new_column_name=new, existing_type=type_,
                    existing_nullable=nullable)


def _columns(pairs):
    for table, old, new, type_, nullable in pairs:
        _rename(table, old, new, type_, nullable)


def upgrade():
    _lease_reservation_key('reservation_id', 'lease_reservation_id',
                           'uniq_allocations0reservation0host',
                           'uniq_allocations0lease_reservation0host',
                           'allocations_reservation_id_fkey',
                           'allocations_lease_reservation_fk')
    _columns(_COLUMNS)


def downgrade():
    _columns((table, new, old, type_, nullable)
             for table, old, new, type_, nullable in _COLUMNS)
    _lease_reservation_key('lease_reservation_id', 'reservation_id',
                           'uniq_allocations0lease_reservation0host',
                           'uniq_allocations0reservation0host',
                           'allocations_lease_reservation_fk',
                           'allocations_reservation_fk')
