"""The defaults of the API's policy rules (oslopolicy-sample-generator
reads them through list_rules). They live under common, beside the
enforcer that registers them, since common imports nothing from the
API."""
import itertools

from reserve.common.policies import allocations
from reserve.common.policies import base
from reserve.common.policies import calendar
from reserve.common.policies import device_reservations
from reserve.common.policies import devices
from reserve.common.policies import diagnoses
from reserve.common.policies import domain_owners
from reserve.common.policies import flavors
from reserve.common.policies import hosts
from reserve.common.policies import leases
from reserve.common.policies import limits
from reserve.common.policies import maintenance
from reserve.common.policies import metrics
from reserve.common.policies import offers
from reserve.common.policies import reports
from reserve.common.policies import reservations
from reserve.common.policies import series
from reserve.common.policies import sharing


def list_rules():
    return list(itertools.chain(
        base.list_rules(),
        reservations.list_rules(),
        series.list_rules(),
        sharing.list_rules(),
        leases.list_rules(),
        hosts.list_rules(),
        allocations.list_rules(),
        flavors.list_rules(),
        maintenance.list_rules(),
        limits.list_rules(),
        reports.list_rules(),
        # GPU devices
        devices.list_rules(),
        device_reservations.list_rules(),
        domain_owners.list_rules(),
        diagnoses.list_rules(),
        calendar.list_rules(),
        offers.list_rules(),
        metrics.list_rules(),
    ))
