"""Maintenance windows closing catalogue flavors."""
import sqlalchemy as sa
from sqlalchemy import orm

from reserve.db.models.base import Base
from reserve.db.models.base import _uuid


class MaintenanceWindow(Base):
    """A time during which some flavors (or all) cannot be booked."""
    __tablename__ = 'maintenance_windows'
    __table_args__ = (
        sa.Index('ix_maintenance_windows_window', 'end', 'start'),
    )

    id = orm.mapped_column(sa.String(36), primary_key=True, default=_uuid)
    start = orm.mapped_column(sa.DateTime, nullable=False)
    end = orm.mapped_column(sa.DateTime, nullable=False)
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
