"""One capacity model: host claims, host capacity records, host maintenance

An allocation becomes the claim the capacity model counts: it holds its
host over its own window with the per-instance size of what it holds,
and it exists from the moment a booking is admitted (``booking_id``),
before the lease that adopts it (``reservation_id``). Existing rows take
their lease's window and their lease reservation's sizes.

A host records what the model counts on it: the usable capacity (placement
inventories, allocation ratios and reserved amounts applied, in the
existing vcpus/memory_mb/local_gb columns), what consumers other than
reserve's use of it (``foreign_usage``), and when it was last read.

A catalogue flavor records its nova flavor as read when the entry was
written (``nova_flavor``): the admission check sizes instances from it.

``capacity_state`` is a single row: the lock every capacity decision
takes, a generation bumped when any host's record changes (decisions
cache the hosts by it) and the longest claim ever written (a claim
overlapping a window ends before the window's end plus this).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""
from alembic import op
import sqlalchemy as sa


revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def _timestamps():
    return [sa.Column('created_at', sa.DateTime(), nullable=False),
            sa.Column('updated_at', sa.DateTime(), nullable=False)]


def upgrade():
    with op.batch_alter_table('allocations') as batch:
        batch.alter_column('reservation_id', existing_type=sa.String(36),
                           nullable=True)
        batch.add_column(sa.Column('booking_id', sa.String(36),
                                   nullable=True))
        batch.add_column(sa.Column('start_date', sa.DateTime(),
                                   nullable=True))
        batch.add_column(sa.Column('end_date', sa.DateTime(),
                                   nullable=True))
        for name in ('vcpus', 'memory_mb', 'disk_gb'):
            batch.add_column(sa.Column(name, sa.Integer(), nullable=False,
                                       server_default='0'))
        batch.add_column(sa.Column('gpus', sa.JSON(), nullable=True))
        batch.create_foreign_key('allocations_booking_fk', 'bookings',
                                 ['booking_id'], ['id'], ondelete='CASCADE')
        batch.create_unique_constraint('uniq_allocations0booking0host',
                                       ['booking_id', 'host_id'])

    # Existing allocations: their lease's window, their reservation's size.
    allocations = sa.table(
        'allocations', sa.column('reservation_id'),
        sa.column('start_date'), sa.column('end_date'),
        sa.column('vcpus'), sa.column('memory_mb'), sa.column('disk_gb'))
    rsv = sa.table('lease_reservations', sa.column('id'),
                   sa.column('lease_id'), sa.column('vcpus'),
                   sa.column('memory_mb'), sa.column('disk_gb'),
                   sa.column('ephemeral_gb'))
    leases = sa.table('leases', sa.column('id'), sa.column('start_date'),
                      sa.column('end_date'))

    def of_reservation(expr):
        return (sa.select(expr)
                .where(rsv.c.id == allocations.c.reservation_id)
                .scalar_subquery())

    def of_lease(column):
        return (sa.select(column)
                .where(leases.c.id == rsv.c.lease_id)
                .where(rsv.c.id == allocations.c.reservation_id)
                .scalar_subquery())

    op.execute(allocations.update().values(
        start_date=of_lease(leases.c.start_date),
        end_date=of_lease(leases.c.end_date),
        vcpus=of_reservation(rsv.c.vcpus),
        memory_mb=of_reservation(rsv.c.memory_mb),
        disk_gb=of_reservation(rsv.c.disk_gb + rsv.c.ephemeral_gb)))

    with op.batch_alter_table('allocations') as batch:
        batch.alter_column('start_date', existing_type=sa.DateTime(),
                           nullable=False)
        batch.alter_column('end_date', existing_type=sa.DateTime(),
                           nullable=False)
        batch.create_index('ix_allocations_window',
                           ['end_date', 'start_date'])
        batch.create_index('ix_allocations_booking', ['booking_id'])

    with op.batch_alter_table('hosts') as batch:
        batch.add_column(sa.Column('foreign_usage', sa.JSON(),
                                   nullable=True))
        batch.add_column(sa.Column('capacity_read_at', sa.DateTime(),
                                   nullable=True))
    with op.batch_alter_table('flavors') as batch:
        batch.add_column(sa.Column('nova_flavor', sa.JSON(), nullable=True))

    op.create_table(
        'host_maintenance_windows',
        sa.Column('id', sa.String(length=36), nullable=False),
        sa.Column('host_id', sa.String(length=36), nullable=False),
        sa.Column('start_date', sa.DateTime(), nullable=False),
        sa.Column('end_date', sa.DateTime(), nullable=False),
        sa.Column('note', sa.Text(), nullable=True),
        *_timestamps(),
        sa.ForeignKeyConstraint(['host_id'], ['hosts.id'],
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_host_maintenance_windows_window',
                    'host_maintenance_windows', ['end_date', 'start_date'])

    state = op.create_table(
        'capacity_state',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('generation', sa.Integer(), nullable=False),
        sa.Column('longest_claim', sa.Integer(), nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id'),
    )
    windows = sa.table('allocations', sa.column('start_date', sa.DateTime),
                       sa.column('end_date', sa.DateTime))
    seconds = max([int((end - start).total_seconds()) for start, end in
                   op.get_bind().execute(sa.select(windows.c.start_date,
                                                   windows.c.end_date))]
                  or [0])
    now = sa.func.now()
    op.execute(state.insert().values(id=1, generation=0,
                                     longest_claim=seconds,
                                     created_at=now, updated_at=now))
