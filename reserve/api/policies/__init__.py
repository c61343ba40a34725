import itertools

from reserve.api.policies import base
from reserve.api.policies import hosts
from reserve.api.policies import leases
from reserve.api.policies import reservations


def list_rules():
    return list(itertools.chain(
        base.list_rules(),
        reservations.list_rules(),
        leases.list_rules(),
        hosts.list_rules(),
    ))
