"""The lease engine: leases, their reservations and allocations."""
import sqlalchemy as sa
from sqlalchemy import orm

from reserve.db.models.base import Base
from reserve.db.models.base import _uuid


class Lease(Base):
    """The lease engine's piece of work: a window and the reservations in it.

    A lease made for a booking or a device reservation names it by key
    (``owner_type``, ``owner_id``: see states.Owner); a lease with no
    owner is an orphan, which the reconciler deletes.
    """
    __tablename__ = 'leases'
    __table_args__ = (
        sa.UniqueConstraint('name', name='uniq_leases0name'),
        sa.UniqueConstraint('owner_type', 'owner_id',
                            name='uniq_leases0owner_type0owner_id'),
        sa.Index('ix_leases_project', 'project_id'),
    )

    id = orm.mapped_column(sa.String(36), primary_key=True, default=_uuid)
    name = orm.mapped_column(sa.String(255), nullable=False)
    owner_type = orm.mapped_column(sa.String(32))
    owner_id = orm.mapped_column(sa.String(36))
    project_id = orm.mapped_column(sa.String(64), nullable=False)
    user_id = orm.mapped_column(sa.String(64), nullable=False)
    start = orm.mapped_column(sa.DateTime, nullable=False)
    end = orm.mapped_column(sa.DateTime, nullable=False)
    status = orm.mapped_column(sa.String(32), nullable=False)
    status_reason = orm.mapped_column(sa.Text)
    degraded = orm.mapped_column(sa.Boolean, nullable=False, default=False)

    reservations = orm.relationship(
        'LeaseReservation', back_populates='lease', lazy='selectin',
        cascade='all, delete-orphan', order_by='LeaseReservation.created_at')
    events = orm.relationship(
        'Event', back_populates='lease', lazy='selectin',
        cascade='all, delete-orphan', order_by='Event.time')


class LeaseReservation(Base):
    """One resource request inside a lease.

    Its id also names the cloud artefacts: the nova flavor id, the
    aggregate name and the CUSTOM_RESERVATION_<ID> resource class.
    """
    __tablename__ = 'lease_reservations'
    __table_args__ = (sa.Index('ix_lease_reservations_lease', 'lease_id'),)

    id = orm.mapped_column(sa.String(36), primary_key=True, default=_uuid)
    lease_id = orm.mapped_column(
        sa.String(36), sa.ForeignKey('leases.id', ondelete='CASCADE'),
        nullable=False)
    resource_type = orm.mapped_column(sa.String(64), nullable=False)
    status = orm.mapped_column(sa.String(32), nullable=False)
    amount = orm.mapped_column(sa.Integer, nullable=False)
    source_flavor_id = orm.mapped_column(sa.String(255))
    vcpus = orm.mapped_column(sa.Integer, nullable=False, default=0)
    memory_mb = orm.mapped_column(sa.Integer, nullable=False, default=0)
    disk_gb = orm.mapped_column(sa.Integer, nullable=False, default=0)
    ephemeral_gb = orm.mapped_column(sa.Integer, nullable=False, default=0)
    swap_mb = orm.mapped_column(sa.Integer, nullable=False, default=0)
    extra_specs = orm.mapped_column(sa.JSON, nullable=False, default=dict)
    resource_properties = orm.mapped_column(sa.JSON)
    affinity = orm.mapped_column(sa.Boolean)

    lease = orm.relationship('Lease', back_populates='reservations')
    allocations = orm.relationship(
        'Allocation', back_populates='lease_reservation', lazy='selectin',
        cascade='all, delete-orphan')


class Allocation(Base):
    """One host held for one owner: ``amount`` instances of a given size
    over [start, end) (plus the booking guard, see
    reserve.capacity).

    It is what the capacity model counts. A booking's allocations are
    written when it is admitted (``booking_id``); the lease made for it
    adopts them (``lease_reservation_id``), and its teardown deletes them,
    so every row holds its host until then. Deleting a booking row never
    takes its lease's allocations with it (``booking_id`` becomes NULL);
    its allocations no lease took are deleted with it (reserve.db.bookings).
    """
    __tablename__ = 'allocations'
    __table_args__ = (
        sa.UniqueConstraint('lease_reservation_id', 'host_id',
                            name='uniq_allocations0lease_reservation0host'),
        sa.UniqueConstraint('booking_id', 'host_id',
                            name='uniq_allocations0booking0host'),
        # Both hold every column a decision reads (migration 0006): the
        # allocations of a window, of every host or of a few.
        sa.Index('ix_allocations_host_window', 'host_id', 'end',
                 'start', 'amount', 'vcpus', 'memory_mb', 'disk_gb'),
        sa.Index('ix_allocations_window_sizes', 'end', 'start',
                 'host_id', 'amount', 'vcpus', 'memory_mb', 'disk_gb'),
        sa.Index('ix_allocations_booking', 'booking_id'),
    )

    id = orm.mapped_column(sa.String(36), primary_key=True, default=_uuid)
    lease_reservation_id = orm.mapped_column(
        sa.String(36),
        sa.ForeignKey('lease_reservations.id', ondelete='CASCADE',
                      name='allocations_lease_reservation_fk'))
    booking_id = orm.mapped_column(
        sa.String(36), sa.ForeignKey('bookings.id', ondelete='SET NULL',
                                     name='allocations_booking_fk'))
    host_id = orm.mapped_column(
        sa.String(36), sa.ForeignKey('hosts.id'), nullable=False)
    amount = orm.mapped_column(sa.Integer, nullable=False)
    start = orm.mapped_column(sa.DateTime, nullable=False)
    end = orm.mapped_column(sa.DateTime, nullable=False)
    # The size of one instance: disk_gb counts the ephemeral disk too;
    # gpus is {key: count} (reserve.capacity.gpus), None for none.
    vcpus = orm.mapped_column(sa.Integer, nullable=False, default=0,
                              server_default='0')
    memory_mb = orm.mapped_column(sa.Integer, nullable=False, default=0,
                                  server_default='0')
    disk_gb = orm.mapped_column(sa.Integer, nullable=False, default=0,
                                server_default='0')
    gpus = orm.mapped_column(sa.JSON)

    lease_reservation = orm.relationship('LeaseReservation',
                                         back_populates='allocations')
    host = orm.relationship('Host', lazy='joined')
