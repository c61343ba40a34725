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
        # Both hold every column the admission reads (migration 0006).
        sa.Index('ix_bookings_flavor_calendar', 'flavor_id', 'end_date',
                 'start_date', 'status', 'instance_count'),
        sa.Index('ix_bookings_project_usage', 'project_id', 'status',
                 'start_date', 'end_date', 'instance_count'),
        sa.Index('ix_bookings_status', 'status'),
        sa.Index('ix_bookings_lease', 'lease_id'),
    )

    id = orm.mapped_column(sa.String(36), primary_key=True, default=_uuid)
    project_id = orm.mapped_column(sa.String(64), nullable=False)
    user_id = orm.mapped_column(sa.String(64), nullable=False)
    # The catalogue flavor (flavors.id), not nova's flavor id.
    flavor_id = orm.mapped_column(
        sa.String(36), sa.ForeignKey('flavors.id', name='bookings_flavor_fk'),
        nullable=False)
    instance_count = orm.mapped_column(sa.Integer, nullable=False, default=1)
    start_date = orm.mapped_column(sa.DateTime, nullable=False)
    end_date = orm.mapped_column(sa.DateTime, nullable=False)
    status = orm.mapped_column(sa.String(32), nullable=False)
    status_reason = orm.mapped_column(sa.Text)
    lease_id = orm.mapped_column(sa.String(36))
    compute_flavor = orm.mapped_column(sa.String(255))


class Lease(Base):
    """The lease engine's unit: a window and the reservations in it.

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
    __table_args__ = (sa.UniqueConstraint('name', name='uniq_hosts0name'),
                      sa.UniqueConstraint('uri', name='uniq_hosts0uri'))

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
    # GPU hosts run without nova (kind 'libvirt'): the manager connects to
    # ``uri`` and records the topology generation it last discovered.
    uri = orm.mapped_column(sa.String(512))
    topology_generation = orm.mapped_column(sa.String(64))
    refreshed_at = orm.mapped_column(sa.DateTime)
    refresh_error = orm.mapped_column(sa.Text)
    # Nova hosts: the GPUs ({resource class: count}) placement reported
    # for the host's provider tree when it was enrolled or last selected;
    # None when never read. The calendar counts them (plugins.gpus).
    gpus = orm.mapped_column(sa.JSON)
    # Nova hosts, the capacity record (reserve.capacity.refresh): vcpus,
    # memory_mb and local_gb above are what placement lets be allocated
    # (allocation ratios and reserved amounts applied); foreign_usage is
    # what consumers other than reserve's reserved servers use of it
    # ({vcpus, memory_mb, disk_gb, gpus}), read at capacity_read_at.
    foreign_usage = orm.mapped_column(sa.JSON)
    capacity_read_at = orm.mapped_column(sa.DateTime)

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
    """A claim on one host: ``count`` instances of a given size held over
    [start_date, end_date) (plus the booking guard, see reserve.capacity).

    It is what the capacity model counts. A booking's claims are written
    when it is admitted (``booking_id``); the lease made for it adopts
    them (``reservation_id``), and its teardown deletes them, so every row
    holds its host until then.
    """
    __tablename__ = 'allocations'
    __table_args__ = (
        sa.UniqueConstraint('reservation_id', 'host_id',
                            name='uniq_allocations0reservation0host'),
        sa.UniqueConstraint('booking_id', 'host_id',
                            name='uniq_allocations0booking0host'),
        # Both hold every column a decision reads (migration 0006): the
        # claims of a window, of every host or of a few.
        sa.Index('ix_allocations_host_window', 'host_id', 'end_date',
                 'start_date', 'count', 'vcpus', 'memory_mb', 'disk_gb'),
        sa.Index('ix_allocations_window_sizes', 'end_date', 'start_date',
                 'host_id', 'count', 'vcpus', 'memory_mb', 'disk_gb'),
        sa.Index('ix_allocations_booking', 'booking_id'),
    )

    id = orm.mapped_column(sa.String(36), primary_key=True, default=_uuid)
    reservation_id = orm.mapped_column(
        sa.String(36),
        sa.ForeignKey('lease_reservations.id', ondelete='CASCADE'))
    booking_id = orm.mapped_column(
        sa.String(36), sa.ForeignKey('bookings.id', ondelete='CASCADE',
                                     name='allocations_booking_fk'))
    host_id = orm.mapped_column(
        sa.String(36), sa.ForeignKey('hosts.id'), nullable=False)
    count = orm.mapped_column(sa.Integer, nullable=False)
    start_date = orm.mapped_column(sa.DateTime, nullable=False)
    end_date = orm.mapped_column(sa.DateTime, nullable=False)
    # The size of one instance: disk_gb counts the ephemeral disk too;
    # gpus is {key: count} (reserve.plugins.gpus), None for none.
    vcpus = orm.mapped_column(sa.Integer, nullable=False, default=0,
                              server_default='0')
    memory_mb = orm.mapped_column(sa.Integer, nullable=False, default=0,
                                  server_default='0')
    disk_gb = orm.mapped_column(sa.Integer, nullable=False, default=0,
                                server_default='0')
    gpus = orm.mapped_column(sa.JSON)

    reservation = orm.relationship('LeaseReservation',
                                   back_populates='allocations')
    host = orm.relationship('Host', lazy='joined')


class HostMaintenanceWindow(Base):
    """A time during which a host holds nothing (/v1/hosts/{id}/
    maintenance-windows)."""
    __tablename__ = 'host_maintenance_windows'
    __table_args__ = (
        sa.Index('ix_host_maintenance_windows_window', 'end_date',
                 'start_date'),
    )

    id = orm.mapped_column(sa.String(36), primary_key=True, default=_uuid)
    host_id = orm.mapped_column(
        sa.String(36), sa.ForeignKey('hosts.id', ondelete='CASCADE'),
        nullable=False)
    start_date = orm.mapped_column(sa.DateTime, nullable=False)
    end_date = orm.mapped_column(sa.DateTime, nullable=False)
    note = orm.mapped_column(sa.Text)


class CapacityState(Base):
    """The single row (id 1) every capacity decision locks first.

    generation: a new (random) value whenever a host's capacity record
    changes, so a process may keep the hosts it read while it is
    unchanged.
    longest_claim: seconds, never less than the longest claim written;
    the claims overlapping a window end before its end plus this, which
    keeps the read bounded on both sides.
    """
    __tablename__ = 'capacity_state'

    id = orm.mapped_column(sa.Integer, primary_key=True)
    generation = orm.mapped_column(sa.Integer, nullable=False, default=0)
    longest_claim = orm.mapped_column(sa.Integer, nullable=False,
                                      default=0)


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


# The booking desk: catalogue, grants, maintenance ------------------------

class Flavor(Base):
    """A reservable flavor of the catalogue (/v1/flavors).

    It maps a nova flavor and says how many instances of it the cloud
    fences at once (slots), for how long and when it can be booked, and
    who may book it.
    """
    __tablename__ = 'flavors'
    __table_args__ = (
        sa.UniqueConstraint('name', name='uniq_flavors0name'),
    )

    id = orm.mapped_column(sa.String(36), primary_key=True, default=_uuid)
    name = orm.mapped_column(sa.String(255), nullable=False)
    nova_flavor_id = orm.mapped_column(sa.String(255), nullable=False)
    description = orm.mapped_column(sa.Text)
    slots = orm.mapped_column(sa.Integer, nullable=False, default=0)
    # None: no limit.
    max_length_hours = orm.mapped_column(sa.Integer)
    active = orm.mapped_column(sa.Boolean, nullable=False, default=True)
    is_public = orm.mapped_column(sa.Boolean, nullable=False, default=True)
    # When set, bookings must fit inside [start_date, end_date).
    start_date = orm.mapped_column(sa.DateTime)
    end_date = orm.mapped_column(sa.DateTime)
    category = orm.mapped_column(sa.String(255))
    availability_zone = orm.mapped_column(sa.String(255))
    # Seconds: never less than the longest booking ever written for this
    # flavor. The calendar reads only bookings whose end falls within this
    # of the asked window, so its cost follows the window, not the table.
    longest_booking = orm.mapped_column(sa.Integer, nullable=False,
                                        default=0)
    # The GPUs one instance of the nova flavor asks for ({key: count}, see
    # plugins.gpus), read when the entry is written; None when unknown
    # (nova did not answer). They cap the slots the calendar offers.
    gpus = orm.mapped_column(sa.JSON)
    # The nova flavor as read when the entry was written: {id, name,
    # vcpus, memory_mb, disk_gb, ephemeral_gb, swap_mb, extra_specs}.
    # Admission sizes instances from it, without asking nova.
    nova_flavor = orm.mapped_column(sa.JSON)

    projects = orm.relationship(
        'FlavorProject', back_populates='flavor', lazy='selectin',
        cascade='all, delete-orphan', order_by='FlavorProject.project_id')

    @property
    def project_ids(self):
        return [grant.project_id for grant in self.projects]


class FlavorProject(Base):
    """A project's grant on a private catalogue flavor."""
    __tablename__ = 'flavor_projects'
    __table_args__ = (
        sa.UniqueConstraint('flavor_id', 'project_id',
                            name='uniq_flavor_projects0flavor0project'),
        sa.Index('ix_flavor_projects_project', 'project_id'),
    )

    id = orm.mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    flavor_id = orm.mapped_column(
        sa.String(36), sa.ForeignKey('flavors.id', ondelete='CASCADE'),
        nullable=False)
    project_id = orm.mapped_column(sa.String(64), nullable=False)

    flavor = orm.relationship('Flavor', back_populates='projects')


class MaintenanceWindow(Base):
    """A time during which some flavors (or all) cannot be booked."""
    __tablename__ = 'maintenance_windows'
    __table_args__ = (
        sa.Index('ix_maintenance_windows_window', 'end_date', 'start_date'),
    )

    id = orm.mapped_column(sa.String(36), primary_key=True, default=_uuid)
    start_date = orm.mapped_column(sa.DateTime, nullable=False)
    end_date = orm.mapped_column(sa.DateTime, nullable=False)
    note = orm.mapped_column(sa.Text)
    all_flavors = orm.mapped_column(sa.Boolean, nullable=False,
                                    default=False)

    flavors = orm.relationship(
        'MaintenanceWindowFlavor', lazy='selectin',
        cascade='all, delete-orphan',
        order_by='MaintenanceWindowFlavor.flavor_id')

    @property
    def flavor_ids(self):
        return [link.flavor_id for link in self.flavors]


class MaintenanceWindowFlavor(Base):
    """One flavor closed by a maintenance window."""
    __tablename__ = 'maintenance_window_flavors'
    __table_args__ = (
        sa.Index('ix_maintenance_window_flavors_flavor', 'flavor_id'),
    )

    window_id = orm.mapped_column(
        sa.String(36),
        sa.ForeignKey('maintenance_windows.id', ondelete='CASCADE'),
        primary_key=True)
    flavor_id = orm.mapped_column(
        sa.String(36), sa.ForeignKey('flavors.id', ondelete='CASCADE'),
        primary_key=True)


# GPU devices of libvirt hosts and their reservations ---------------------

class Device(Base):
    """A GPU (a PCI function of display class) of a libvirt host, as the
    manager last discovered it (/v1/devices): a reservable unit."""
    __tablename__ = 'devices'
    __table_args__ = (
        sa.UniqueConstraint('host_id', 'pci_address',
                            name='uniq_devices0host0pci_address'),
    )

    id = orm.mapped_column(sa.String(36), primary_key=True, default=_uuid)
    host_id = orm.mapped_column(
        sa.String(36), sa.ForeignKey('hosts.id', ondelete='CASCADE'),
        nullable=False)
    # libvirt's node device name, 'pci_0000_17_00_0'
    name = orm.mapped_column(sa.String(255), nullable=False)
    pci_address = orm.mapped_column(sa.String(16), nullable=False)
    pci_class = orm.mapped_column(sa.String(8))
    vendor_id = orm.mapped_column(sa.String(6))
    product_id = orm.mapped_column(sa.String(6))
    vendor_name = orm.mapped_column(sa.String(255))
    product_name = orm.mapped_column(sa.String(255))
    numa_node = orm.mapped_column(sa.Integer)
    iommu_group = orm.mapped_column(sa.Integer)
    iommu_group_members = orm.mapped_column(sa.JSON, nullable=False,
                                            default=list)
    physical_function = orm.mapped_column(sa.String(16))
    virtual_functions = orm.mapped_column(sa.JSON, nullable=False,
                                          default=list)
    max_virtual_functions = orm.mapped_column(sa.Integer)
    # [{id, name, available_instances, device_api}]
    mdev_types = orm.mapped_column(sa.JSON, nullable=False, default=list)
    # The mediated devices on it: [{uuid, type_id}]
    mdevs = orm.mapped_column(sa.JSON, nullable=False, default=list)
    # What holds it outside reserve's attachments ('domain gpu-vm-1',
    # 'mdev <uuid>'): such a unit is in use and cannot be reserved.
    in_use_by = orm.mapped_column(sa.JSON, nullable=False, default=list)
    driver = orm.mapped_column(sa.String(64))
    # 'present', or 'missing' when the last discovery did not find it.
    state = orm.mapped_column(sa.String(16), nullable=False,
                              default='present')

    host = orm.relationship('Host', lazy='joined')


class DeviceReservation(Base):
    """GPU units of one libvirt host reserved for a set of projects
    (/v1/device-reservations). Its lease (named
    ``device-reservation-<id>``) holds one ``device:gpu`` reservation with
    this same id, whose events start and end it."""
    __tablename__ = 'device_reservations'
    __table_args__ = (
        sa.Index('ix_device_reservations_host_released', 'host_id',
                 'released_at'),
        sa.Index('ix_device_reservations_status', 'status'),
    )

    id = orm.mapped_column(sa.String(36), primary_key=True, default=_uuid)
    # No foreign key: a reservation outlives its host's enrollment.
    host_id = orm.mapped_column(sa.String(36), nullable=False)
    project_id = orm.mapped_column(sa.String(64), nullable=False)
    user_id = orm.mapped_column(sa.String(64), nullable=False)
    start_date = orm.mapped_column(sa.DateTime, nullable=False)
    # Open-ended reservations end far in the future (devices.states).
    end_date = orm.mapped_column(sa.DateTime, nullable=False)
    status = orm.mapped_column(sa.String(32), nullable=False)
    status_reason = orm.mapped_column(sa.Text)
    # None: whole PCI functions; else one mdev of this type per domain.
    mdev_type = orm.mapped_column(sa.String(64))
    # How the units were asked for: {unit_ids} or {count, model, ...}.
    request = orm.mapped_column(sa.JSON, nullable=False, default=dict)
    contract_ref = orm.mapped_column(sa.String(255))
    reason = orm.mapped_column(sa.Text)
    topology_generation = orm.mapped_column(sa.String(64), nullable=False)
    # Set once its end has run: from then on its units are free again.
    released_at = orm.mapped_column(sa.DateTime)

    projects = orm.relationship(
        'DeviceReservationProject', lazy='selectin',
        cascade='all, delete-orphan',
        order_by='DeviceReservationProject.project_id')
    units = orm.relationship(
        'DeviceReservationUnit', lazy='selectin',
        cascade='all, delete-orphan')
    attachments = orm.relationship(
        'DeviceAttachment', lazy='selectin', cascade='all, delete-orphan',
        order_by='(DeviceAttachment.domain, DeviceAttachment.device_id)')

    def project_ids(self, role):
        return [p.project_id for p in self.projects if p.role == role]


class DeviceReservationProject(Base):
    """A project of a device reservation's audience ('allowed') or one
    that manages it on the owner's behalf ('managing')."""
    __tablename__ = 'device_reservation_projects'
    __table_args__ = (
        sa.Index('ix_device_reservation_projects_project', 'project_id'),
    )

    reservation_id = orm.mapped_column(
        sa.String(36),
        sa.ForeignKey('device_reservations.id', ondelete='CASCADE'),
        primary_key=True)
    project_id = orm.mapped_column(sa.String(64), primary_key=True)
    role = orm.mapped_column(sa.String(16), primary_key=True)


class DeviceReservationUnit(Base):
    """One GPU unit of a device reservation."""
    __tablename__ = 'device_reservation_units'
    __table_args__ = (
        sa.Index('ix_device_reservation_units_device', 'device_id'),
    )

    reservation_id = orm.mapped_column(
        sa.String(36),
        sa.ForeignKey('device_reservations.id', ondelete='CASCADE'),
        primary_key=True)
    device_id = orm.mapped_column(
        sa.String(36), sa.ForeignKey('devices.id', ondelete='CASCADE'),
        primary_key=True)

    device = orm.relationship('Device', lazy='joined')


class DeviceAttachment(Base):
    """A unit of a reservation handed to a domain of its host, as a PCI
    hostdev or as a mediated device (``mdev_uuid``, named after the
    reservation, unit and domain). ``state``: 'planned' (for the start,
    or withheld while the reservation needs review), 'attached',
    'detached' (after the end)."""
    __tablename__ = 'device_attachments'
    __table_args__ = (
        sa.UniqueConstraint('reservation_id', 'device_id', 'domain',
                            name='uniq_device_attachments0rsv0dev0domain'),
    )

    id = orm.mapped_column(sa.String(36), primary_key=True, default=_uuid)
    reservation_id = orm.mapped_column(
        sa.String(36),
        sa.ForeignKey('device_reservations.id', ondelete='CASCADE'),
        nullable=False)
    device_id = orm.mapped_column(
        sa.String(36), sa.ForeignKey('devices.id', ondelete='CASCADE'),
        nullable=False)
    domain = orm.mapped_column(sa.String(255), nullable=False)
    kind = orm.mapped_column(sa.String(8), nullable=False)
    mdev_uuid = orm.mapped_column(sa.String(36))
    # The project that named the domain.
    project_id = orm.mapped_column(sa.String(64), nullable=False)
    state = orm.mapped_column(sa.String(16), nullable=False)
    live = orm.mapped_column(sa.Boolean)
    config = orm.mapped_column(sa.Boolean)

    device = orm.relationship('Device', lazy='joined')


class Service(Base):
    """A running daemon's heartbeat: one row per (binary, host), written
    every [DEFAULT]heartbeat_interval. Work a daemon claimed (events, for
    reserve-manager) is taken over once its heartbeat is older than
    [DEFAULT]service_down_time."""
    __tablename__ = 'services'
    __table_args__ = (
        sa.UniqueConstraint('binary', 'host',
                            name='uniq_services0binary0host'),
    )

    id = orm.mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    binary = orm.mapped_column(sa.String(64), nullable=False)
    host = orm.mapped_column(sa.String(255), nullable=False)
    heartbeat_at = orm.mapped_column(sa.DateTime, nullable=False)
