"""States and fixed values of GPU devices and their reservations."""
import datetime

from reserve.common import states as common_states

# The db layer reads these two, so they are defined below it.
LIBVIRT = common_states.LIBVIRT
Device = common_states.Device

# The resource type of the lease engine's reservation of GPU devices.
RESOURCE_TYPE = common_states.DEVICE_GPU

# An open-ended reservation runs until cancelled: its lease ends here,
# and the API shows its end as null.
OPEN_END = datetime.datetime(9999, 1, 1)


def is_open_end(end_date):
    return end_date is not None and end_date >= OPEN_END


class DeviceShown:
    """A device's state as the API shows it (computed when read), beside
    the one recorded (``Device``: present or missing)."""
    AVAILABLE = 'available'
    RESERVED = 'reserved'      # held by a reservation now
    IN_USE = 'in-use'          # held by something reserve did not attach
    MISSING = 'missing'
    ALL = (AVAILABLE, RESERVED, IN_USE, MISSING)


class DeviceReservation:
    PENDING = 'pending'
    ACTIVE = 'active'
    EXPIRED = 'expired'
    CANCELLED = 'cancelled'
    NEEDS_REVIEW = 'needs-review'
    ALL = (PENDING, ACTIVE, EXPIRED, CANCELLED, NEEDS_REVIEW)
    # Reservations that still mean to hold their devices.
    LIVE = (PENDING, ACTIVE, NEEDS_REVIEW)


class Role:
    ALLOWED = 'allowed'      # the audience: may use the devices
    MANAGING = 'managing'    # may also act on the owner's behalf


class Attachment:
    PLANNED = 'planned'
    # Written (committed) before libvirt is asked to attach: a crash
    # before the answer is recorded leaves a row that release takes back.
    ATTACHING = 'attaching'
    ATTACHED = 'attached'
    DETACHED = 'detached'
    PCI = 'pci'
    MDEV = 'mdev'
    # What may be on the host: release takes these back, discovery
    # counts them as reserve's.
    MAY_BE_ATTACHED = (ATTACHING, ATTACHED)
