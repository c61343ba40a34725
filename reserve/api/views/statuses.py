"""The statuses the API shows and takes for the ones the code stores.

The code writes every status and state in upper case (reserve.common
.states, reserve.devices.states). Bookings, leases and events show them
as they are; the sets below keep the values the API has always shown and
taken (lower case, with a hyphen). Every view shows a status of these
sets through ``show``, every filter reads one through ``code``, and the
OpenAPI document lists ``shown``, so this table is the one place where
they meet.
"""
from reserve.common import states
from reserve.devices import states as device_states


class Values:
    """One set: {value of the code: value of the API}."""

    def __init__(self, shown):
        self._shown = dict(shown)
        self._code = {api: code for code, api in self._shown.items()}
        # The API's values, in the order of the code's.
        self.shown = tuple(self._shown.values())

    def show(self, value):
        """The API's value of the code's ``value``."""
        return self._shown[value]

    def code(self, value):
        """The code's value of the API's ``value`` (one of ``shown``;
        None, a filter not given, stays None)."""
        return None if value is None else self._code[value]


_DR = device_states.DeviceReservation
DEVICE_RESERVATION = Values({
    _DR.PENDING: 'pending', _DR.ACTIVE: 'active', _DR.EXPIRED: 'expired',
    _DR.CANCELLED: 'cancelled', _DR.NEEDS_REVIEW: 'needs-review'})

_A = device_states.Attachment
ATTACHMENT = Values({
    _A.PLANNED: 'planned', _A.ATTACHING: 'attaching',
    _A.ATTACHED: 'attached', _A.DETACHED: 'detached'})

_LR = states.LeaseReservation
LEASE_RESERVATION = Values({
    _LR.PENDING: 'pending', _LR.ACTIVE: 'active', _LR.DELETED: 'deleted'})

# Computed when a device is read (reserve.devices.holds.device_state).
_D = device_states.DeviceShown
DEVICE = Values({
    _D.AVAILABLE: 'available', _D.RESERVED: 'reserved',
    _D.IN_USE: 'in-use', _D.MISSING: 'missing'})
