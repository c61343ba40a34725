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


def is_open_end(end):
    return end is not None and end >= OPEN_END


class DeviceShown:
    """A device's state as the API shows it, computed when read (never
    stored), beside the one recorded (``Device``: present or missing)."""
    AVAILABLE = 'AVAILABLE'
    RESERVED = 'RESERVED'      # held by a reservation now
    IN_USE = 'IN_USE'          # held by something reserve did not attach
    MISSING = 'MISSING'
    # Lent out by an active reservation, no spot domain holding it (from
    # microversion 1.4; in use while one does): reserve.devices.spot.
    SPOT = 'SPOT'
    ALL = (AVAILABLE, RESERVED, IN_USE, MISSING, SPOT)


class DeviceReservation:
    PENDING = 'PENDING'
    ACTIVE = 'ACTIVE'
    EXPIRED = 'EXPIRED'
    CANCELLED = 'CANCELLED'
    NEEDS_REVIEW = 'NEEDS_REVIEW'
    ALL = (PENDING, ACTIVE, EXPIRED, CANCELLED, NEEDS_REVIEW)
    # Reservations that still mean to hold their devices.
    LIVE = (PENDING, ACTIVE, NEEDS_REVIEW)


def in_words(status):
    """A status as a message people read says it, in lower case with a
    hyphen: NEEDS_REVIEW is 'needs-review', as the API shows it too
    (reserve/api/views/statuses.py)."""
    return status.lower().replace('_', '-')


class Role:
    ALLOWED = 'allowed'      # the audience: may use the devices
    MANAGING = 'managing'    # may also act on the owner's behalf


class Attachment:
    PLANNED = 'PLANNED'
    # Written (committed) before libvirt is asked to attach: a crash
    # before the answer is recorded leaves a row that release takes back.
    ATTACHING = 'ATTACHING'
    ATTACHED = 'ATTACHED'
    DETACHED = 'DETACHED'
    PCI = 'pci'
    MDEV = 'mdev'
    # What may be on the host: release takes these back, discovery
    # counts them as reserve's.
    MAY_BE_ATTACHED = (ATTACHING, ATTACHED)
