"""A lease's events."""
import sqlalchemy as sa
from sqlalchemy import orm

from reserve.db.models.base import Base
from reserve.db.models.base import _uuid


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
    taken_by = orm.mapped_column(sa.String(255))
    taken_at = orm.mapped_column(sa.DateTime)
    last_error = orm.mapped_column(sa.Text)

    lease = orm.relationship('Lease', back_populates='events')
