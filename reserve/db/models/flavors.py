"""The booking desk's catalogue and its grants."""
import sqlalchemy as sa
from sqlalchemy import orm

from reserve.db.models.base import Base
from reserve.db.models.base import _uuid


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
    # When set, bookings must fit inside [start, end).
    start = orm.mapped_column(sa.DateTime)
    end = orm.mapped_column(sa.DateTime)
    category = orm.mapped_column(sa.String(255))
    availability_zone = orm.mapped_column(sa.String(255))
    # Seconds: never less than the longest booking ever written for this
    # flavor. The calendar reads only bookings whose end falls within this
    # of the asked window, so its cost follows the window, not the table.
    longest_booking = orm.mapped_column(sa.Integer, nullable=False,
                                        default=0)
    # The GPUs one instance of the nova flavor asks for ({key: count}, see
    # capacity.gpus), read when the entry is written; None when unknown
    # (nova did not answer). They cap the slots the calendar offers.
    gpus = orm.mapped_column(sa.JSON)
    # The nova flavor as read when the entry was written: {id, name,
    # vcpus, memory_mb, disk_gb, ephemeral_gb, swap_mb, extra_specs}.
    # Admission sizes instances from it, without asking nova.
    nova_flavor = orm.mapped_column(sa.JSON)
    # A spot flavor (reserve.spot): never booked; its nova flavor boots on
    # idle fenced capacity, for the projects that opted in, until the
    # capacity is reclaimed.
    spot = orm.mapped_column(sa.Boolean, nullable=False, default=False,
                             server_default=sa.false())

    projects = orm.relationship(
        'FlavorProject', back_populates='flavor', lazy='selectin',
        cascade='all, delete-orphan', order_by='FlavorProject.project_id')

    spot_projects = orm.relationship(
        'FlavorSpotProject', back_populates='flavor', lazy='selectin',
        cascade='all, delete-orphan',
        order_by='FlavorSpotProject.project_id')

    @property
    def project_ids(self):
        return [grant.project_id for grant in self.projects]

    @property
    def spot_project_ids(self):
        return [opt.project_id for opt in self.spot_projects]


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


class FlavorSpotProject(Base):
    """A project that opted in to a spot flavor: it may boot its nova
    flavor."""
    __tablename__ = 'flavor_spot_projects'
    __table_args__ = (
        sa.UniqueConstraint('flavor_id', 'project_id',
                            name='uniq_flavor_spot_projects0flavor0project'),
    )

    id = orm.mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    flavor_id = orm.mapped_column(
        sa.String(36), sa.ForeignKey('flavors.id', ondelete='CASCADE'),
        nullable=False)
    project_id = orm.mapped_column(sa.String(64), nullable=False)

    flavor = orm.relationship('Flavor', back_populates='spot_projects')
