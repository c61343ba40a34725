"""A project's booking of a catalogue flavor."""
import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy import orm

from reserve.db.models.base import Base
from reserve.db.models.base import _uuid
from reserve.db.models import closing


class Booking(closing.Closable, Base):
    """A project's booking of a flavor for a window (/v1/reservations)."""
    __tablename__ = 'bookings'
    __table_args__ = (
        # Both hold every column the admission reads (migrations 0006,
        # 0011).
        sa.Index('ix_bookings_flavor_live', 'flavor_id', 'end',
                 'start', 'status', 'closed_as', 'instance_count'),
        sa.Index('ix_bookings_project_live', 'project_id', 'status',
                 'closed_as', 'start', 'end', 'instance_count'),
        sa.Index('ix_bookings_status', 'status'),
        sa.Index('ix_bookings_lease', 'lease_id'),
        sa.Index('ix_bookings_series', 'series_id'),
    )

    id = orm.mapped_column(sa.String(36), primary_key=True, default=_uuid)
    project_id = orm.mapped_column(sa.String(64), nullable=False)
    user_id = orm.mapped_column(sa.String(64), nullable=False)
    # The catalogue flavor (flavors.id), not nova's flavor id.
    flavor_id = orm.mapped_column(
        sa.String(36), sa.ForeignKey('flavors.id', name='bookings_flavor_fk'),
        nullable=False)
    instance_count = orm.mapped_column(sa.Integer, nullable=False, default=1)
    start = orm.mapped_column(sa.DateTime, nullable=False)
    end = orm.mapped_column(sa.DateTime, nullable=False)
    # status (closing.Closable): what its lease made of it, which the
    # manager alone moves (reserve/manager/booking_status.py), unless the
    # desk closed it (reserve/booking/cancel.py: COMPLETE when its project
    # cancelled it, ERROR when a drain evicted it; final).
    lease_id = orm.mapped_column(sa.String(36))
    # The id of the reserved flavor built for it (its lease reservation's
    # id), once ALLOCATED.
    reserved_flavor_id = orm.mapped_column(sa.String(255))
    # The series it is an occurrence of (/v1/series), if any.
    series_id = orm.mapped_column(
        sa.String(36), sa.ForeignKey('series.id', name='bookings_series_fk'))
    # A booking that waited for room (reserve.booking.standby): when it
    # began to wait (waiters are admitted in that order, hence the
    # microseconds), and the deadline its user gave (None: its start).
    standby_since = orm.mapped_column(
        sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql',
                                   'mariadb'))
    standby_until = orm.mapped_column(sa.DateTime)
