"""What the owner of a lease got of what it booked (its delivery)."""
import sqlalchemy as sa
from sqlalchemy import orm

from reserve.db.models.base import Base


class Delivery(Base):
    """One per owner of a lease (a booking, a device reservation), kept
    after the lease and the owner are gone, so that reports of a period
    outlive both.

    usable_at: when its lease became ACTIVE (its start, plus what the
    start took). hosts_replaced: hosts it lost (failed) that another took
    over. repairs: drift of its cloud objects reserve put right.
    missing: the instances (or devices) it lacks now, since
    missing_since; missing_seconds: those instances times the seconds
    they were missing, summed over what is over (instance-seconds).
    stuck_servers: the servers nova could not delete at its end, still
    being deleted (None when there are none).
    """
    __tablename__ = 'deliveries'
    __table_args__ = (
        sa.Index('ix_deliveries_window', 'start', 'end'),
        # Every column /metrics sums (reserve.db.metrics.delivery_totals).
        sa.Index('ix_deliveries_totals', 'owner_type', 'repairs',
                 'hosts_replaced'),
    )

    owner_type = orm.mapped_column(sa.String(32), primary_key=True)
    owner_id = orm.mapped_column(sa.String(36), primary_key=True)
    project_id = orm.mapped_column(sa.String(64), nullable=False)
    # The catalogue flavor of a booking; None for a device reservation.
    flavor_id = orm.mapped_column(sa.String(36))
    amount = orm.mapped_column(sa.Integer, nullable=False, default=0)
    start = orm.mapped_column(sa.DateTime, nullable=False)
    end = orm.mapped_column(sa.DateTime, nullable=False)
    usable_at = orm.mapped_column(sa.DateTime)
    hosts_replaced = orm.mapped_column(sa.Integer, nullable=False, default=0)
    repairs = orm.mapped_column(sa.Integer, nullable=False, default=0)
    missing = orm.mapped_column(sa.Integer, nullable=False, default=0)
    missing_since = orm.mapped_column(sa.DateTime)
    missing_seconds = orm.mapped_column(sa.Integer, nullable=False,
                                        default=0)
    stuck_servers = orm.mapped_column(sa.JSON(none_as_null=True))
