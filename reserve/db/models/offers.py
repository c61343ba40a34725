"""Offers of the offer search (GET /v1/offers), bookable for a while."""
import sqlalchemy as sa
from sqlalchemy import orm

from reserve.db.models.base import Base
from reserve.db.models.base import _uuid


class Offer(Base):
    """A window of a catalogue flavor that admission would have taken
    when it was searched, bookable as is by its project until
    ``expires_at``. It holds no capacity: booking it runs the admission
    again. ``booking_id`` is the booking made from it (once only)."""
    __tablename__ = 'offers'
    __table_args__ = (
        # The purge of lapsed offers reads it.
        sa.Index('ix_offers_expires_at', 'expires_at'),
    )

    id = orm.mapped_column(sa.String(36), primary_key=True, default=_uuid)
    project_id = orm.mapped_column(sa.String(64), nullable=False)
    user_id = orm.mapped_column(sa.String(64), nullable=False)
    # The catalogue flavor (flavors.id); no foreign key: an offer lives
    # minutes and never keeps a flavor from being deleted.
    flavor_id = orm.mapped_column(sa.String(36), nullable=False)
    start = orm.mapped_column(sa.DateTime, nullable=False)
    end = orm.mapped_column(sa.DateTime, nullable=False)
    instance_count = orm.mapped_column(sa.Integer, nullable=False)
    expires_at = orm.mapped_column(sa.DateTime, nullable=False)
    booking_id = orm.mapped_column(sa.String(36))
