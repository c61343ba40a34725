"""A lease's allocations outlive its booking's row

``allocations.booking_id`` deleted a booking's allocations with the
booking row (ON DELETE CASCADE), the adopted ones of a live lease too:
the capacity model then no longer counted hosts the lease still held,
and the lease's end found nothing to tear down. The key now becomes NULL
instead; the claims no lease took are deleted with the booking by the
code that deletes it (reserve.db.bookings).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02
"""
from alembic import op


revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def _booking_key(ondelete):
    with op.batch_alter_table('allocations') as batch:
        batch.drop_constraint('allocations_booking_fk', type_='foreignkey')
        batch.create_foreign_key('allocations_booking_fk', 'bookings',
                                 ['booking_id'], ['id'], ondelete=ondelete)


def upgrade():
    _booking_key('SET NULL')


def downgrade():
    _booking_key('CASCADE')
