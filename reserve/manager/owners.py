"""What the owner of a lease (a booking, a device reservation) becomes
when the manager makes, refuses, starts or ends the lease: the manager
writes it, in the transaction that moves the lease, through the one
module of transitions of each kind (booking_status.py,
reserve/devices/status.py). ``allocated`` and ``follow`` answer what
to announce once that transaction is committed (``announce``)."""
from reserve.common import states
from reserve.devices import holds as device_holds
from reserve.devices import status as device_status
from reserve.manager import booking_status


def allocated(context, lease):
    """The owner's lease is made (or was found made)."""
    if lease.owner_type == states.Owner.BOOKING:
        return booking_status.allocated(context, lease.owner_id, lease)
    return None


def refused(context, owner_type, owner_id, exc):
    """The owner's lease cannot be made: ``exc`` says why (its
    user_message is what the project reads)."""
    if owner_type == states.Owner.BOOKING:
        booking_status.refused(context, owner_id, exc.user_message)
    elif owner_type == states.Owner.DEVICE_RESERVATION:
        if device_status.move(
                context, owner_id, 'refused',
                status_reason='its lease could not be made: %s' %
                exc.user_message):
            device_holds.release(context, owner_id)


def follow(context, lease, lease_status):
    """The owner after its lease became ``lease_status`` (a device
    reservation's start and end are its plugin's: reserve.devices.runs)."""
    return booking_status.follow(context, lease, lease_status)


def announce(context, moved):
    """Tell of a move allocated or follow made (None: none was)."""
    if moved is not None:
        moved.announce(context)
