"""A catalogue flavor's slots held per day: the bound a decision reads
instead of summing every booking around its window (reserve.db.slot_days
keeps it)."""
import sqlalchemy as sa

from reserve.db.models.base import Base

# A table, not a model: written only by increments (no created_at or
# updated_at to keep, no object to load).
flavor_slot_days = sa.Table(
    'flavor_slot_days', Base.metadata,
    # The catalogue flavor (flavors.id); its rows go with it
    # (reserve.db.flavors.flavor_destroy).
    sa.Column('flavor_id', sa.String(36), primary_key=True),
    sa.Column('day', sa.Date, primary_key=True),
    # The instances of the flavor's live bookings that hold a slot at some
    # instant of the day (reserve.db.slot_days).
    sa.Column('instances', sa.Integer, nullable=False),
)
