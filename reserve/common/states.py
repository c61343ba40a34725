"""The states of bookings, leases, reservations and events."""


class Booking:
    PENDING_CREATE = 'PENDING_CREATE'
    ALLOCATED = 'ALLOCATED'
    ACTIVE = 'ACTIVE'
    COMPLETE = 'COMPLETE'
    ERROR = 'ERROR'
    # Only these consume quota and block the calendar.
    LIVE = (PENDING_CREATE, ALLOCATED, ACTIVE)
    ALL = (PENDING_CREATE, ALLOCATED, ACTIVE, COMPLETE, ERROR)
    # A booking's lease is named this followed by the booking's id: the
    # worker finds it again by name after a crash, and the reconciler
    # tells orphan leases by it.
    LEASE_PREFIX = 'reservation-'


class Lease:
    CREATING = 'CREATING'
    PENDING = 'PENDING'
    STARTING = 'STARTING'
    ACTIVE = 'ACTIVE'
    UPDATING = 'UPDATING'
    TERMINATING = 'TERMINATING'
    TERMINATED = 'TERMINATED'
    DELETING = 'DELETING'
    ERROR = 'ERROR'
    ALL = (CREATING, PENDING, STARTING, ACTIVE, UPDATING, TERMINATING,
           TERMINATED, DELETING, ERROR)


class Reservation:
    PENDING = 'pending'
    ACTIVE = 'active'
    DELETED = 'deleted'
    ERROR = 'error'


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
