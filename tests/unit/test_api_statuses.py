"""The API's table of the statuses it shows in its own case
(reserve/api/views/statuses.py) covers each set of the code, both ways."""
import pytest

from reserve.api.views import statuses
from reserve.common import states
from reserve.devices import states as device_states

A = device_states.Attachment
SETS = [
    (statuses.DEVICE_RESERVATION, device_states.DeviceReservation.ALL,
     ('pending', 'active', 'expired', 'cancelled', 'needs-review')),
    (statuses.ATTACHMENT, (A.PLANNED, A.ATTACHING, A.ATTACHED, A.DETACHED),
     ('planned', 'attaching', 'attached', 'detached')),
    (statuses.LEASE_RESERVATION, states.LeaseReservation.ALL,
     ('pending', 'active', 'deleted')),
    (statuses.DEVICE, device_states.DeviceShown.ALL,
     ('available', 'reserved', 'in-use', 'missing', 'spot')),
]


@pytest.mark.parametrize('values,code,shown', SETS)
def test_each_set_is_shown_as_the_api_always_showed_it(values, code,
                                                       shown):
    assert values.shown == shown
    assert tuple(values.show(c) for c in code) == shown
    assert tuple(values.code(s) for s in shown) == code
    assert values.code(None) is None


@pytest.mark.parametrize('values,code,shown', SETS)
def test_the_code_writes_upper_case(values, code, shown):
    assert all(c == c.upper() and '-' not in c for c in code)
