"""The states of bookings, leases, reservations and events, and what
the db layer reads of GPU hosts and devices (the rest of their states:
reserve.devices.states)."""

# Hosts enrolled with a libvirt URI.
LIBVIRT = 'libvirt'

# The resource types of the lease engine (its plugins: setup.cfg,
# reserve.resource.plugins).
FLAVOR_INSTANCE = 'flavor:instance'
DEVICE_GPU = 'device:gpu'


class Booking:
    PENDING_CREATE = 'PENDING_CREATE'
    ALLOCATED = 'ALLOCATED'
    ACTIVE = 'ACTIVE'
    COMPLETE = 'COMPLETE'
    ERROR = 'ERROR'
    # Waiting for room (reserve.booking.standby): holds nothing, moves to
    # PENDING_CREATE when admitted, or is closed LAPSED at its start or
    # at its deadline (standby_until) if never admitted.
    STANDBY = 'STANDBY'
    LAPSED = 'LAPSED'
    # Only these consume quota and block the calendar.
    LIVE = (PENDING_CREATE, ALLOCATED, ACTIVE)
    # What the desk may close (a cancel, an eviction, a lapse).
    CLOSABLE = LIVE + (STANDBY,)
    ALL = (PENDING_CREATE, ALLOCATED, ACTIVE, COMPLETE, ERROR, STANDBY,
           LAPSED)
    # A booking's lease is named this followed by the booking's id (a
    # name for people; the lease names its booking by key, see Owner).
    LEASE_PREFIX = 'reservation-'


class Owner:
    """Who a lease is for (leases.owner_type, with owner_id its id)."""
    BOOKING = 'booking'
    DEVICE_RESERVATION = 'device-reservation'
    # The names leases of each owner are given (for people).
    NAME_PREFIXES = {DEVICE_RESERVATION: 'device-reservation-',
                     BOOKING: Booking.LEASE_PREFIX}


def lease_name(owner_type, owner_id):
    """The name a lease is given after its owner (for people: the lease
    names its owner by key)."""
    return Owner.NAME_PREFIXES[owner_type] + owner_id


class Lease:
    CREATING = 'CREATING'
    PENDING = 'PENDING'
    STARTING = 'STARTING'
    ACTIVE = 'ACTIVE'
    TERMINATING = 'TERMINATING'
    TERMINATED = 'TERMINATED'
    DELETING = 'DELETING'
    ERROR = 'ERROR'
    ALL = (CREATING, PENDING, STARTING, ACTIVE, TERMINATING, TERMINATED,
           DELETING, ERROR)
    # A lease whose end may still move: neither cancelled nor ending.
    CHANGEABLE = (CREATING, PENDING, STARTING, ACTIVE)


class LeaseReservation:
    PENDING = 'PENDING'
    ACTIVE = 'ACTIVE'
    DELETED = 'DELETED'
    ALL = (PENDING, ACTIVE, DELETED)


class Event:
    UNDONE = 'UNDONE'
    IN_PROGRESS = 'IN_PROGRESS'
    DONE = 'DONE'
    ERROR = 'ERROR'

    START = 'start_lease'
    BEFORE_END = 'before_end_lease'
    END = 'end_lease'
    # Order in which due events run within one tick: teardown first so
    # that back-to-back leases on the same hosts hand over cleanly.
    PRIORITY = {BEFORE_END: 0, END: 1, START: 2}


class Device:
    """What the last discovery found (stored)."""
    PRESENT = 'PRESENT'
    MISSING = 'MISSING'
