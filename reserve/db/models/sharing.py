"""The projects a booking shares its reserved flavor with."""
import sqlalchemy as sa
from sqlalchemy import orm

from reserve.db.models.base import Base


class BookingProject(Base):
    """A project allowed to boot a booking's reserved flavor, beside its
    owner. ``removed_at`` is set when the owner takes the share back:
    the row stays until the lease's objects no longer let the project in
    (the repair removes its flavor access and aggregate key, then the
    row), so that a lost cast cannot leave the access behind."""
    __tablename__ = 'booking_projects'
    __table_args__ = (
        sa.UniqueConstraint('booking_id', 'project_id',
                            name='uniq_booking_projects0booking0project'),
        # A shared project's reads find its bookings by project.
        sa.Index('ix_booking_projects_project', 'project_id'),
    )

    id = orm.mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    booking_id = orm.mapped_column(
        sa.String(36), sa.ForeignKey('bookings.id', ondelete='CASCADE'),
        nullable=False)
    project_id = orm.mapped_column(sa.String(64), nullable=False)
    removed_at = orm.mapped_column(sa.DateTime)
