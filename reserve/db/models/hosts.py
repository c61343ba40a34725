"""Enrolled hosts, their capabilities and maintenance windows, and
the capacity state every capacity decision locks."""
import sqlalchemy as sa
from sqlalchemy import orm

from reserve.db.models.base import Base
from reserve.db.models.base import _uuid


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
    # The operator's choice; a failed host is unreservable all the same
    # while ``failure`` (what nova or libvirt reported, in a sentence)
    # is set, from ``failed_at`` (reserve.manager.health).
    reservable = orm.mapped_column(sa.Boolean, nullable=False, default=True)
    failure = orm.mapped_column(sa.Text)
    failed_at = orm.mapped_column(sa.DateTime)
    # GPU hosts run without nova (kind 'libvirt'): the manager connects to
    # ``uri`` and records the topology generation it last discovered.
    uri = orm.mapped_column(sa.String(512))
    topology_generation = orm.mapped_column(sa.String(64))
    refreshed_at = orm.mapped_column(sa.DateTime)
    refresh_error = orm.mapped_column(sa.Text)
    # Nova hosts: the GPUs ({resource class: count}) placement reported
    # for the host's provider tree when it was enrolled or last selected;
    # None when never read. The calendar counts them (capacity.gpus).
    gpus = orm.mapped_column(sa.JSON)
    # Nova hosts, the capacity record (reserve.capacity.refresh): vcpus,
    # memory_mb and local_gb above are what placement lets be allocated
    # (allocation ratios and reserved amounts applied); foreign_usage is
    # what consumers other than reserve's reserved servers use of it
    # ({vcpus, memory_mb, disk_gb, gpus}), read at capacity_read_at.
    foreign_usage = orm.mapped_column(sa.JSON)
    capacity_read_at = orm.mapped_column(sa.DateTime)
    # Nova hosts, spot lending (reserve.spot.lending): the spot inventory
    # last set on the host's child provider, and what spot servers used
    # of it then, in GPUs.
    spot_lent = orm.mapped_column(sa.Integer, nullable=False, default=0,
                                  server_default='0')
    spot_used = orm.mapped_column(sa.Integer, nullable=False, default=0,
                                  server_default='0')

    # Loaded by the reads of reserve.db.hosts only: the hosts joined to
    # devices, allocations and reservations (several per request) are
    # read without them, and a read that forgets them fails loudly.
    capabilities = orm.relationship(
        'HostCapability', back_populates='host', lazy='raise_on_sql',
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


class HostMaintenanceWindow(Base):
    """A time during which a host holds nothing (/v1/hosts/{id}/
    maintenance-windows)."""
    __tablename__ = 'host_maintenance_windows'
    __table_args__ = (
        sa.Index('ix_host_maintenance_windows_window', 'end',
                 'start'),
    )

    id = orm.mapped_column(sa.String(36), primary_key=True, default=_uuid)
    host_id = orm.mapped_column(
        sa.String(36), sa.ForeignKey('hosts.id', ondelete='CASCADE'),
        nullable=False)
    start = orm.mapped_column(sa.DateTime, nullable=False)
    end = orm.mapped_column(sa.DateTime, nullable=False)
    note = orm.mapped_column(sa.Text)


class CapacityState(Base):
    """The single row (id 1) every capacity decision locks first.

    generation: a new (random) value whenever a host's capacity record
    changes, so a process may keep the hosts it read while it is
    unchanged.
    longest_allocation: seconds, never less than the longest allocation
    written; the allocations overlapping a window end before its end plus
    this, which keeps the read bounded on both sides.
    """
    __tablename__ = 'capacity_state'

    id = orm.mapped_column(sa.Integer, primary_key=True)
    generation = orm.mapped_column(sa.Integer, nullable=False, default=0)
    longest_allocation = orm.mapped_column(sa.Integer, nullable=False,
                                           default=0)


class DomainOwner(Base):
    """The project that owns a domain of a libvirt host not run by nova,
    as an administrator recorded it (/v1/hosts/{id}/domain-owners). A
    host run by nova needs none: nova writes each domain's owner into
    its metadata (reserve.devices.owners)."""
    __tablename__ = 'domain_owners'

    host_id = orm.mapped_column(
        sa.String(36), sa.ForeignKey('hosts.id', ondelete='CASCADE'),
        primary_key=True)
    domain = orm.mapped_column(sa.String(255), primary_key=True)
    project_id = orm.mapped_column(sa.String(64), nullable=False)
