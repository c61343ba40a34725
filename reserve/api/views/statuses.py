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


def _in_words(codes):
    # The API's value of each is the one its messages use
    # (reserve.devices.states.in_words), so the two never differ.
    return Values({code: device_states.in_words(code) for code in codes})


_A = device_states.Attachment
DEVICE_RESERVATION = _in_words(device_states.DeviceReservation.ALL)
ATTACHMENT = _in_words((_A.PLANNED, _A.ATTACHING, _A.ATTACHED,
                        _A.DETACHED))
LEASE_RESERVATION = _in_words(states.LeaseReservation.ALL)
# Computed when a device is read (reserve.devices.holds.device_state).
DEVICE = _in_words(device_states.DeviceShown.ALL)
