"""The declarative base of every model. Dates are naive UTC; ids are UUID
strings."""
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
