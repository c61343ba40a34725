"""SQLAlchemy models. Dates are naive UTC; ids are UUID strings."""
import datetime

from oslo_utils import uuidutils
import sqlalchemy as sa
from sqlalchemy import orm


def _uuid():
    return uuidutils.generate_uuid()


def _now():
    return datetime.datetime.now(datetime.timezone.utc).replace(
        tzinfo=None, microsecond=0)


class Base(orm.DeclarativeBase):
    """Common columns and a to_dict for every table."""

    created_at = orm.mapped_column(sa.DateTime, default=_now, nullable=False)
    updated_at = orm.mapped_column(sa.DateTime, default=_now, onupdate=_now,
                                   nullable=False)

    def to_dict(self):
        return {c.key: getattr(self, c.key)
                for c in sa.inspect(self).mapper.column_attrs}


class Booking(Base):
    """A project's booking of a flavor for a window (/v1/reservations)."""
    __tablename__ = 'bookings'
    __table_args__ = (
        sa.Index('ix_bookings_flavor_window', 'flavor_id', 'end_date',
                 'start_date'),
        sa.Index('ix_bookings_project', 'project_id'),
        sa.Index('ix_bookings_status', 'status'),
        sa.Index('ix_bookings_lease', 'lease_id'),
    )

    id = orm.mapped_column(sa.String(36), primary_key=True, default=_uuid)
    project_id = orm.mapped_column(sa.String(64), nullable=False)
    user_id = orm.mapped_column(sa.String(64), nullable=False)
    flavor_id = orm.mapped_column(sa.String(255), nullable=False)
    instance_count = orm.mapped_column(sa.Integer, nullable=False, default=1)
    start_date = orm.mapped_column(sa.DateTime, nullable=False)
    end_date = orm.mapped_column(sa.DateTime, nullable=False)
    status = orm.mapped_column(sa.String(32), nullable=False)
    status_reason = orm.mapped_column(sa.Text)
    lease_id = orm.mapped_column(sa.String(36))
    compute_flavor = orm.mapped_column(sa.String(255))


class Lease(Base):
    """The lease engine's unit: a window and the reservations in it."""
    __tablename__ = 'leases'
    __table_args__ = (
        sa.UniqueConstraint('name', name='uniq_leases0name'),
        sa.Index('ix_leases_project', 'project_id'),
    )

    id = orm.mapped_column(sa.String(36), primary_key=True, default=_uuid)
    name = orm.mapped_column(sa.String(255), nullable=False)
    project_id = orm.mapped_column(sa.String(64), nullable=False)
    user_id = orm.mapped_column(sa.String(64), nullable=False)
    start_date = orm.mapped_column(sa.DateTime, nullable=False)
    end_date = orm.mapped_column(sa.DateTime, nullable=False)
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
        'Allocation', back_populates='reservation', lazy='selectin',
        cascade='all, delete-orphan')


class Host(Base):
    """A hypervisor enrolled for reservations."""
    __tablename__ = 'hosts'
    __table_args__ = (sa.UniqueConstraint('name', name='uniq_hosts0name'),)

    id = orm.mapped_column(sa.String(36), primary_key=True, default=_uuid)
    kind = orm.mapped_column(sa.String(32), nullable=False, default='nova')
    # nova's hypervisor_hostname (the compute node's provider name)
    name = orm.mapped_column(sa.String(255), nullable=False)
    # nova's service host: what aggregates take
    service_name = orm.mapped_column(sa.String(255))
    provider_uuid = orm.mapped_column(sa.String(36))
    vcpus = orm.mapped_column(sa.Integer, nullable=False, default=0)
    memory_mb = orm.mapped_column(sa.Integer, nullable=False, default=0)
    local_gb = orm.mapped_column(sa.Integer, nullable=False, default=0)
    reservable = orm.mapped_column(sa.Boolean, nullable=False, default=True)

    capabilities = orm.relationship(
        'HostCapability', back_populates='host', lazy='selectin',
        cascade='all, delete-orphan')


class HostCapability(Base):
    """A free-form key/value that reservations can filter hosts on."""
    __tablename__ = 'host_capabilities'
    __table_args__ = (
        sa.UniqueConstraint('host_id', 'key',
                            name='uniq_host_capabilities0host_id0key'),)

    id = orm.mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    host_id = orm.mapped_column(
        sa.String(36), sa.ForeignKey('hosts.id', ondelete='CASCADE'),
        nullable=False)
    key = orm.mapped_column(sa.String(255), nullable=False)
    value = orm.mapped_column(sa.Text, nullable=False)

    host = orm.relationship('Host', back_populates='capabilities')


class Allocation(Base):
    """Instance slots of a reservation pinned to one host."""
    __tablename__ = 'allocations'
    __table_args__ = (
        sa.UniqueConstraint('reservation_id', 'host_id',
                            name='uniq_allocations0reservation0host'),
        sa.Index('ix_allocations_host', 'host_id'),
    )

    id = orm.mapped_column(sa.String(36), primary_key=True, default=_uuid)
    reservation_id = orm.mapped_column(
        sa.String(36),
        sa.ForeignKey('lease_reservations.id', ondelete='CASCADE'),
        nullable=False)
    host_id = orm.mapped_column(
        sa.String(36), sa.ForeignKey('hosts.id'), nullable=False)
    count = orm.mapped_column(sa.Integer, nullable=False)

    reservation = orm.relationship('LeaseReservation',
                                   back_populates='allocations')
    host = orm.relationship('Host', lazy='joined')


class Event(Base):
    """A lease's alarm clock: start_lease, before_end_lease, end_lease."""
    __tablename__ = 'events'
    __table_args__ = (
        sa.Index('ix_events_status_time', 'status', 'time'),
        sa.Index('ix_events_lease', 'lease_id'),
    )

    id = orm.mapped_column(sa.String(36), primary_key=True, default=_uuid)
    lease_id = orm.mapped_column(
        sa.String(36), sa.ForeignKey('leases.id', ondelete='CASCADE'),
        nullable=False)
    event_type = orm.mapped_column(sa.String(32), nullable=False)
    time = orm.mapped_column(sa.DateTime, nullable=False)
    status = orm.mapped_column(sa.String(32), nullable=False)
    attempts = orm.mapped_column(sa.Integer, nullable=False, default=0)
    claimed_by = orm.mapped_column(sa.String(255))
    claimed_at = orm.mapped_column(sa.DateTime)
    last_error = orm.mapped_column(sa.Text)

    lease = orm.relationship('Lease', back_populates='events')
