"""GPU devices: libvirt hosts, their GPUs and reservations of GPU units

Hosts gain a libvirt URI and the topology generation last discovered;
``devices`` holds each host's GPUs; a device reservation names its units,
its projects (audience and managers) and its attachments to domains.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""
from alembic import op
import sqlalchemy as sa


revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def _timestamps():
    return [sa.Column('created_at', sa.DateTime(), nullable=False),
            sa.Column('updated_at', sa.DateTime(), nullable=False)]


def upgrade():
    with op.batch_alter_table('hosts') as batch:
        batch.add_column(sa.Column('uri', sa.String(length=512),
                                   nullable=True))
        batch.add_column(sa.Column('topology_generation',
                                   sa.String(length=64), nullable=True))
        batch.add_column(sa.Column('refreshed_at', sa.DateTime(),
                                   nullable=True))
        batch.add_column(sa.Column('refresh_error', sa.Text(),
                                   nullable=True))
        batch.create_unique_constraint('uniq_hosts0uri', ['uri'])

    op.create_table(
        'devices',
        sa.Column('id', sa.String(length=36), nullable=False),
        sa.Column('host_id', sa.String(length=36), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('pci_address', sa.String(length=16), nullable=False),
        sa.Column('pci_class', sa.String(length=8), nullable=True),
        sa.Column('vendor_id', sa.String(length=6), nullable=True),
        sa.Column('product_id', sa.String(length=6), nullable=True),
        sa.Column('vendor_name', sa.String(length=255), nullable=True),
        sa.Column('product_name', sa.String(length=255), nullable=True),
        sa.Column('numa_node', sa.Integer(), nullable=True),
        sa.Column('iommu_group', sa.Integer(), nullable=True),
        sa.Column('iommu_group_members', sa.JSON(), nullable=False),
        sa.Column('physical_function', sa.String(length=16), nullable=True),
        sa.Column('virtual_functions', sa.JSON(), nullable=False),
        sa.Column('max_virtual_functions', sa.Integer(), nullable=True),
        sa.Column('mdev_types', sa.JSON(), nullable=False),
        sa.Column('mdevs', sa.JSON(), nullable=False),
        sa.Column('in_use_by', sa.JSON(), nullable=False),
        sa.Column('driver', sa.String(length=64), nullable=True),
        sa.Column('state', sa.String(length=16), nullable=False),
        *_timestamps(),
        sa.ForeignKeyConstraint(['host_id'], ['hosts.id'],
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('host_id', 'pci_address',
                            name='uniq_devices0host0pci_address'),
    )

    op.create_table(
        'device_reservations',
        sa.Column('id', sa.String(length=36), nullable=False),
        sa.Column('host_id', sa.String(length=36), nullable=False),
        sa.Column('project_id', sa.String(length=64), nullable=False),
        sa.Column('user_id', sa.String(length=64), nullable=False),
        sa.Column('start_date', sa.DateTime(), nullable=False),
        sa.Column('end_date', sa.DateTime(), nullable=False),
        sa.Column('status', sa.String(length=32), nullable=False),
        sa.Column('status_reason', sa.Text(), nullable=True),
        sa.Column('mdev_type', sa.String(length=64), nullable=True),
        sa.Column('request', sa.JSON(), nullable=False),
        sa.Column('contract_ref', sa.String(length=255), nullable=True),
        sa.Column('reason', sa.Text(), nullable=True),
        sa.Column('topology_generation', sa.String(length=64),
                  nullable=False),
        sa.Column('released_at', sa.DateTime(), nullable=True),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_device_reservations_host_released',
                    'device_reservations', ['host_id', 'released_at'],
                    unique=False)
    op.create_index('ix_device_reservations_status', 'device_reservations',
                    ['status'], unique=False)

    op.create_table(
        'device_reservation_projects',
        sa.Column('reservation_id', sa.String(length=36), nullable=False),
        sa.Column('project_id', sa.String(length=64), nullable=False),
        sa.Column('role', sa.String(length=16), nullable=False),
        *_timestamps(),
        sa.ForeignKeyConstraint(['reservation_id'],
                                ['device_reservations.id'],
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('reservation_id', 'project_id', 'role'),
    )
    op.create_index('ix_device_reservation_projects_project',
                    'device_reservation_projects', ['project_id'],
                    unique=False)

    op.create_table(
        'device_reservation_units',
        sa.Column('reservation_id', sa.String(length=36), nullable=False),
        sa.Column('device_id', sa.String(length=36), nullable=False),
        *_timestamps(),
        sa.ForeignKeyConstraint(['device_id'], ['devices.id'],
                                ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['reservation_id'],
                                ['device_reservations.id'],
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('reservation_id', 'device_id'),
    )
    op.create_index('ix_device_reservation_units_device',
                    'device_reservation_units', ['device_id'], unique=False)

    op.create_table(
        'device_attachments',
        sa.Column('id', sa.String(length=36), nullable=False),
        sa.Column('reservation_id', sa.String(length=36), nullable=False),
        sa.Column('device_id', sa.String(length=36), nullable=False),
        sa.Column('domain', sa.String(length=255), nullable=False),
        sa.Column('kind', sa.String(length=8), nullable=False),
        sa.Column('mdev_uuid', sa.String(length=36), nullable=True),
        sa.Column('project_id', sa.String(length=64), nullable=False),
        sa.Column('state', sa.String(length=16), nullable=False),
        sa.Column('live', sa.Boolean(), nullable=True),
        sa.Column('config', sa.Boolean(), nullable=True),
        *_timestamps(),
        sa.ForeignKeyConstraint(['device_id'], ['devices.id'],
                                ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['reservation_id'],
                                ['device_reservations.id'],
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('reservation_id', 'device_id', 'domain',
                            name='uniq_device_attachments0rsv0dev0domain'),
    )
