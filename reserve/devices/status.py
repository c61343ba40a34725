"""A device reservation's status after its creation: the manager's alone.

The desk writes a reservation ``PENDING`` and may cancel it
(reserve/booking/cancel.py: a fact of its own, ``closed_as``, that the
status shown takes over, see reserve/db/models/closing.py); every other
move is the manager's, made here: its lease refused, its start, its
end, a review and an affirmation. Each is a compare-and-swap on the
shown status, so a cancelled reservation never moves again.
"""
from reserve.db import device_reservations as device_reservations_db
from reserve.devices import states

S = states.DeviceReservation

# move: (statuses it moves from, status it moves to)
MOVES = {
    'refused': (S.LIVE, S.CANCELLED),
    'started': ((S.PENDING, S.ACTIVE), S.ACTIVE),
    'ended': (S.LIVE, S.EXPIRED),
    'to_review': ((S.PENDING, S.ACTIVE), S.NEEDS_REVIEW),
    'affirmed_started': ((S.NEEDS_REVIEW,), S.ACTIVE),
    'affirmed': ((S.NEEDS_REVIEW,), S.PENDING),
}


def move(context, reservation_id, name, **values):
    """Make move ``name`` of MOVES, with ``values``; whether it moved."""
    sources, target = MOVES[name]
    return device_reservations_db.device_reservation_move(
        context, reservation_id, target, sources, **values)
