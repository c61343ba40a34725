"""A series of bookings: one recurrence rule, a booking per occurrence."""
import sqlalchemy as sa
from sqlalchemy import orm

from reserve.db.models.base import Base
from reserve.db.models.base import _uuid


class Series(Base):
    """What a recurring booking asked for (/v1/series). Each occurrence
    admitted is a booking of its own (bookings.series_id); the series
    keeps the rule, the policy it was admitted under and the occurrences
    that did not fit, with why (a list of {start, end, code, detail})."""
    __tablename__ = 'series'
    __table_args__ = (
        sa.Index('ix_series_project', 'project_id'),
    )

    id = orm.mapped_column(sa.String(36), primary_key=True, default=_uuid)
    project_id = orm.mapped_column(sa.String(64), nullable=False)
    user_id = orm.mapped_column(sa.String(64), nullable=False)
    # The catalogue flavor (flavors.id), not nova's flavor id; no foreign
    # key: the record of a series outlives its occurrences (removed once
    # over, or purged) and the flavor, deleted once no booking holds it.
    flavor_id = orm.mapped_column(sa.String(36), nullable=False)
    instance_count = orm.mapped_column(sa.Integer, nullable=False)
    # The first occurrence's window (the rule's DTSTART and its length).
    start = orm.mapped_column(sa.DateTime, nullable=False)
    end = orm.mapped_column(sa.DateTime, nullable=False)
    rrule = orm.mapped_column(sa.String(255), nullable=False)
    policy = orm.mapped_column(sa.String(32), nullable=False)
    refused = orm.mapped_column(sa.JSON, nullable=False, default=list)
