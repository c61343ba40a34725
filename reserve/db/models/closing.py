"""A status with two sources: what the row's lease made of it
(``recorded_status``, column ``status``, written by the manager alone)
and the desk's close (``closed_as``: the status a cancel or an eviction
gave it, set once and final). The status shown, compared and counted is
the close when there is one, else the recorded one; a compare-and-swap
on it therefore never moves a closed row.
"""
import sqlalchemy as sa
from sqlalchemy.ext import hybrid
from sqlalchemy import orm


class ShownStatus(hybrid.Comparator):
    """Compares the shown status in SQL the way the indexes on the
    ``status`` column can still serve (no COALESCE in the WHERE)."""

    def __init__(self, recorded, closed_as):
        super().__init__(sa.func.coalesce(closed_as, recorded))
        self.recorded = recorded
        self.closed_as = closed_as

    def in_(self, values):
        values = tuple(values)
        # Never NULL (a NOT of it must hold where it does not).
        return sa.or_(sa.and_(self.closed_as.is_(None),
                              self.recorded.in_(values)),
                      sa.and_(self.closed_as.is_not(None),
                              self.closed_as.in_(values)))

    def not_in(self, values):
        return sa.not_(self.in_(values))

    notin_ = not_in

    def __eq__(self, value):
        return self.in_((value,))

    def __ne__(self, value):
        return self.not_in((value,))


def shown_status():
    """A ``status`` hybrid for a model with ``recorded_status`` and
    ``closed_as``. Assigning it (a row being created) sets the recorded
    status; nothing else writes it (see reserve/db/bookings.py and
    reserve/db/device_reservations.py)."""
    @hybrid.hybrid_property
    def status(self):
        return self.closed_as or self.recorded_status

    @status.setter
    def status(self, value):
        self.recorded_status = value

    @status.comparator
    def status(cls):
        return ShownStatus(cls.recorded_status, cls.closed_as)

    return status


class Closable:
    """The status columns of a row the desk may close (a booking, a
    device reservation): the manager's ``recorded_status`` (stored as
    ``status``), the desk's ``closed_as``, the ``status`` shown and its
    reason."""
    recorded_status = orm.mapped_column('status', sa.String(32),
                                        nullable=False)
    closed_as = orm.mapped_column(sa.String(32))
    status = shown_status()
    status_reason = orm.mapped_column(sa.Text)
