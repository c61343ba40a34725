"""The daemons' heartbeats."""
import sqlalchemy as sa
from sqlalchemy import orm

from reserve.db.models.base import Base


class Service(Base):
    """A running daemon's heartbeat: one row per (binary, host), written
    every [DEFAULT]heartbeat_interval. Work a daemon took (events, for
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
