import itertools

from reserve.api.policies import allocations
from reserve.api.policies import base
from reserve.api.policies import device_reservations
from reserve.api.policies import devices
from reserve.api.policies import flavors
from reserve.api.policies import hosts
from reserve.api.policies import leases
from reserve.api.policies import limits
from reserve.api.policies import maintenance
from reserve.api.policies import reservations


def list_rules():
    return list(itertools.chain(
        base.list_rules(),
        reservations.list_rules(),
        leases.list_rules(),
        hosts.list_rules(),
        allocations.list_rules(),
        flavors.list_rules(),
        maintenance.list_rules(),
        limits.list_rules(),
        # GPU devices
        devices.list_rules(),
        device_reservations.list_rules(),
    ))
