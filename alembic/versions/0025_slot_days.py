"""The slots a catalogue flavor's live bookings hold, day by day

``flavor_slot_days``: per flavor and day, the instances of its live
bookings that hold a slot at some instant of the day (reserve.db.slot_days),
worked out here from the bookings already on record.

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-07
"""
import collections
import datetime

from alembic import op
import sqlalchemy as sa


revision = '0025'
down_revision = '0024'
branch_labels = None
depends_on = None

LIVE = ('PENDING_CREATE', 'ALLOCATED', 'ACTIVE')
ONE_DAY = datetime.timedelta(days=1)


def upgrade():
    days = op.create_table(
        'flavor_slot_days',
        sa.Column('flavor_id', sa.String(36), primary_key=True),
        sa.Column('day', sa.Date, primary_key=True),
        sa.Column('instances', sa.Integer, nullable=False),
    )
    bookings = sa.table('bookings', sa.column('flavor_id'),
                        sa.column('start', sa.DateTime),
                        sa.column('end', sa.DateTime),
                        sa.column('instance_count'), sa.column('status'),
                        sa.column('closed_as'))
    shown = sa.func.coalesce(bookings.c.closed_as, bookings.c.status)
    counts = collections.defaultdict(collections.Counter)
    for flavor_id, start, end, instances in op.get_bind().execute(
            sa.select(bookings.c.flavor_id, bookings.c.start,
                      bookings.c.end, bookings.c.instance_count)
            .where(shown.in_(LIVE))):
        # From its start's day to the day after its end's (the guard).
        day = start.date()
        while day <= end.date() + ONE_DAY:
            counts[flavor_id][day] += instances
            day += ONE_DAY
    rows = [{'flavor_id': flavor_id, 'day': day, 'instances': n}
            for flavor_id, found in counts.items()
            for day, n in found.items()]
    if rows:
        op.bulk_insert(days, rows)


def downgrade():
    op.drop_table('flavor_slot_days')
