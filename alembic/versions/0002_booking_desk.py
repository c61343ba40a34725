"""booking desk: flavor catalogue, grants, maintenance windows

Bookings now reference a catalogue flavor instead of naming a nova flavor.
Each nova flavor that existing bookings named becomes a catalogue entry of
the same name, private, inactive and with no slots, for an operator to
review; the bookings point at it.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""
import datetime
import uuid

from alembic import op
import sqlalchemy as sa


revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None

MIGRATED_NOTE = ('Created by migration 0002 for the reservations that named '
                 'nova flavor %s: set its slots, then activate it.')


def _create_tables():
    op.create_table('flavors',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('nova_flavor_id', sa.String(length=255), nullable=False),
    sa.Column('description', sa.Text(), nullable=True),
    sa.Column('slots', sa.Integer(), nullable=False),
    sa.Column('max_length_hours', sa.Integer(), nullable=True),
    sa.Column('active', sa.Boolean(), nullable=False),
    sa.Column('is_public', sa.Boolean(), nullable=False),
    sa.Column('start_date', sa.DateTime(), nullable=True),
    sa.Column('end_date', sa.DateTime(), nullable=True),
    sa.Column('category', sa.String(length=255), nullable=True),
    sa.Column('availability_zone', sa.String(length=255), nullable=True),
    sa.Column('longest_booking', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('name', name='uniq_flavors0name')
    )
    op.create_table('flavor_projects',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('flavor_id', sa.String(length=36), nullable=False),
    sa.Column('project_id', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['flavor_id'], ['flavors.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('flavor_id', 'project_id', name='uniq_flavor_projects0flavor0project')
    )
    op.create_index('ix_flavor_projects_project', 'flavor_projects', ['project_id'], unique=False)

    op.create_table('maintenance_windows',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('start_date', sa.DateTime(), nullable=False),
    sa.Column('end_date', sa.DateTime(), nullable=False),
    sa.Column('note', sa.Text(), nullable=True),
    sa.Column('all_flavors', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_maintenance_windows_window', 'maintenance_windows', ['end_date', 'start_date'], unique=False)

    op.create_table('maintenance_window_flavors',
    sa.Column('window_id', sa.String(length=36), nullable=False),
    sa.Column('flavor_id', sa.String(length=36), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['flavor_id'], ['flavors.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['window_id'], ['maintenance_windows.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('window_id', 'flavor_id')
    )
    op.create_index('ix_maintenance_window_flavors_flavor', 'maintenance_window_flavors', ['flavor_id'], unique=False)


def _catalogue_existing_flavors():
    """One private, inactive catalogue entry per nova flavor the existing
    bookings named; the bookings then point at it."""
    conn = op.get_bind()
    bookings = sa.table('bookings', sa.column('flavor_id', sa.String),
                        sa.column('start_date', sa.DateTime),
                        sa.column('end_date', sa.DateTime))
    flavors = sa.table(
        'flavors', sa.column('id', sa.String),
        sa.column('name', sa.String), sa.column('nova_flavor_id', sa.String),
        sa.column('description', sa.Text), sa.column('slots', sa.Integer),
        sa.column('active', sa.Boolean), sa.column('is_public', sa.Boolean),
        sa.column('longest_booking', sa.Integer),
        sa.column('created_at', sa.DateTime),
        sa.column('updated_at', sa.DateTime))
    now = datetime.datetime.now(datetime.timezone.utc).replace(
        tzinfo=None, microsecond=0)
    refs = sorted(row[0] for row in conn.execute(
        sa.select(bookings.c.flavor_id).distinct()))
    for ref in refs:
        windows = conn.execute(
            sa.select(bookings.c.start_date, bookings.c.end_date)
            .where(bookings.c.flavor_id == ref)).all()
        longest = max(int((end - start).total_seconds())
                      for start, end in windows)
        flavor_id = str(uuid.uuid4())
        conn.execute(flavors.insert().values(
            id=flavor_id, name=ref, nova_flavor_id=ref,
            description=MIGRATED_NOTE % ref, slots=0, active=False,
            is_public=False, longest_booking=max(longest, 0),
            created_at=now, updated_at=now))
        conn.execute(bookings.update().where(bookings.c.flavor_id == ref)
                     .values(flavor_id=flavor_id))


def upgrade():
    _create_tables()
    _catalogue_existing_flavors()
    with op.batch_alter_table('bookings') as batch:
        batch.alter_column('flavor_id', existing_type=sa.String(length=255),
                           type_=sa.String(length=36),
                           existing_nullable=False)
        batch.create_foreign_key('bookings_flavor_fk', 'flavors',
                                 ['flavor_id'], ['id'])
