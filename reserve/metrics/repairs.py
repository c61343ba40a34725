"""What the manager's repair task and health checks put right, from the
deliveries table (one row per owner of a lease, kept after it: its
repairs and hosts replaced only ever grow, so they are counters). The
manager counts each repair there as it logs it (reserve.manager.delivery);
an owner whose lease predates its delivery row is not counted."""
from prometheus_client import core

from reserve.common import states
from reserve.db import metrics as metrics_db

OWNER_TYPES = (states.Owner.BOOKING, states.Owner.DEVICE_RESERVATION)


def families(context):
    found = metrics_db.delivery_totals(context)
    repairs = core.CounterMetricFamily(
        'reserve_repairs',
        'Drift of reservations\' cloud objects the manager\'s repair task '
        'put right (flavor access, extra specs, aggregates, inventories, '
        'hostdevs), by owner type.', labels=['owner_type'])
    replaced = core.CounterMetricFamily(
        'reserve_hosts_replaced',
        'Failed hosts of reservations another host took over, by owner '
        'type.', labels=['owner_type'])
    for owner_type in OWNER_TYPES:
        count, hosts = found.get(owner_type, (0, 0))
        repairs.add_metric([owner_type], count)
        replaced.add_metric([owner_type], hosts)
    return [repairs, replaced]
