"""GPU devices of libvirt hosts and their reservations."""
import sqlalchemy as sa
from sqlalchemy import orm

from reserve.common import states
from reserve.db.models.base import Base
from reserve.db.models.base import _uuid
from reserve.db.models import closing


class Device(Base):
    """A GPU (a PCI function of display class) of a libvirt host, as the
    manager last discovered it (/v1/devices): a reservable device."""
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
    # 'mdev <uuid>'): such a device is in use and cannot be reserved.
    in_use_by = orm.mapped_column(sa.JSON, nullable=False, default=list)
    driver = orm.mapped_column(sa.String(64))
    # PRESENT, or MISSING when the last discovery did not find it.
    state = orm.mapped_column(sa.String(16), nullable=False,
                              default=states.Device.PRESENT)

    host = orm.relationship('Host', lazy='joined')


class DeviceReservation(closing.Closable, Base):
    """GPU devices of one libvirt host reserved for a set of projects
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
    start = orm.mapped_column(sa.DateTime, nullable=False)
    # Open-ended reservations end far in the future (devices.states).
    end = orm.mapped_column(sa.DateTime, nullable=False)
    # status (closing.Closable): what its lease made of it, which the
    # manager alone moves (reserve/devices/status.py), unless the desk
    # cancelled it (reserve/booking/cancel.py: CANCELLED; final).
    # None: whole PCI functions; else one mdev of this type per domain.
    mdev_type = orm.mapped_column(sa.String(64))
    # How the devices were asked for: {device_ids} or {device_count,
    # model, numa_local}.
    request = orm.mapped_column(sa.JSON, nullable=False, default=dict)
    contract_ref = orm.mapped_column(sa.String(255))
    reason = orm.mapped_column(sa.Text)
    topology_generation = orm.mapped_column(sa.String(64), nullable=False)
    # Set once its end has run: from then on its devices are free again.
    released_at = orm.mapped_column(sa.DateTime)
    # Not columns: read with the row where asked for (reserve.db.devices
    # device_reservation_get), None otherwise. The name of its host (None once
    # the host is unenrolled) and the id of the lease it owns (None once
    # that is gone).
    host_name = orm.query_expression()
    lease_id = orm.query_expression()

    projects = orm.relationship(
        'DeviceReservationProject', lazy='selectin',
        cascade='all, delete-orphan',
        order_by='DeviceReservationProject.project_id')
    devices = orm.relationship(
        'DeviceReservationDevice', lazy='selectin',
        cascade='all, delete-orphan')
    attachments = orm.relationship(
        'DeviceAttachment', lazy='selectin', cascade='all, delete-orphan',
        order_by='(DeviceAttachment.domain, DeviceAttachment.device_id)')

    def project_ids(self, role):
        return [p.project_id for p in self.projects if p.role == role]

    def lent_device_ids(self):
        """The ids of the devices it lends out (on the spot market)."""
        return sorted(u.device_id for u in self.devices
                      if u.spot_since is not None)


class DeviceReservationProject(Base):
    """A project of a device reservation's audience ('allowed') or one
    that manages it on the owner's behalf ('managing')."""
    __tablename__ = 'device_reservation_projects'
    __table_args__ = (
        sa.Index('ix_device_reservation_projects_project', 'project_id'),
    )

    device_reservation_id = orm.mapped_column(
        sa.String(36),
        sa.ForeignKey('device_reservations.id', ondelete='CASCADE'),
        primary_key=True)
    project_id = orm.mapped_column(sa.String(64), primary_key=True)
    role = orm.mapped_column(sa.String(16), primary_key=True)


class DeviceReservationDevice(Base):
    """One GPU device of a device reservation."""
    __tablename__ = 'device_reservation_devices'
    __table_args__ = (
        sa.Index('ix_device_reservation_devices_device', 'device_id'),
    )

    device_reservation_id = orm.mapped_column(
        sa.String(36),
        sa.ForeignKey('device_reservations.id', ondelete='CASCADE'),
        primary_key=True)
    device_id = orm.mapped_column(
        sa.String(36), sa.ForeignKey('devices.id', ondelete='CASCADE'),
        primary_key=True)
    # Lent out: its owner put it on the spot market then (while the
    # reservation is active, reserve.devices.spot); None when not.
    spot_since = orm.mapped_column(sa.DateTime)
    # A reclaim began taking it back then (committed before any spot
    # domain is touched: a restart finishes what a crash left).
    reclaiming_since = orm.mapped_column(sa.DateTime)

    device = orm.relationship('Device', lazy='joined')


class DeviceAttachment(Base):
    """A device of a reservation handed to a domain of its host, as a PCI
    hostdev or as a mediated device (``mdev_uuid``, named after the
    reservation, device and domain). ``state``: PLANNED (for the start,
    or withheld while the reservation needs review), ATTACHING (written
    before libvirt is asked), ATTACHED, DETACHED (after the end)."""
    __tablename__ = 'device_attachments'
    __table_args__ = (
        sa.UniqueConstraint(
            'device_reservation_id', 'device_id', 'domain',
            name='uniq_device_attachments0device_reservation0device0domain'),
    )

    id = orm.mapped_column(sa.String(36), primary_key=True, default=_uuid)
    device_reservation_id = orm.mapped_column(
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
    # The domain's owner when it was named (None: it had none, and an
    # administrator named it). An end or a review touches the domain only
    # while its owner is still this one (reserve.devices.owners).
    domain_owner = orm.mapped_column(sa.String(64))
    state = orm.mapped_column(sa.String(16), nullable=False)
    # A spot domain's: a project outside the reservation uses a device
    # its owner lent out, until a reclaim takes it away.
    spot = orm.mapped_column(sa.Boolean, nullable=False, default=False,
                             server_default=sa.false())
    live = orm.mapped_column(sa.Boolean)
    config = orm.mapped_column(sa.Boolean)

    device = orm.relationship('Device', lazy='joined')
