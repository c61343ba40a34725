"""The catalogue's capacity now, per flavor: what
``GET /v1/flavors/availability`` answers an administrator without a
window, through the very same functions (reserve.booking.catalogue
lists the entries, reserve.booking.admission counts them), so the two
never disagree."""
from prometheus_client import core

from reserve.booking import admission
from reserve.booking import catalogue

LABELS = ['flavor_id', 'flavor_name']


def families(context):
    """The three gauges, every catalogue entry (active or not, spot
    ones 0 as availability has them) a sample of each."""
    flavors = catalogue.counted(context)
    offered, free, held = admission.occupancy_now(context, flavors)
    total = core.GaugeMetricFamily(
        'reserve_flavor_offered_instances',
        'Instances of the catalogue flavor offered at once: its slots, '
        'capped by what the reservable hosts hold of its nova flavor '
        '(availability\'s "total").', labels=LABELS)
    available = core.GaugeMetricFamily(
        'reserve_flavor_available_instances',
        'Instances of the catalogue flavor a booking could take now '
        '(availability\'s "available").', labels=LABELS)
    reserved = core.GaugeMetricFamily(
        'reserve_flavor_reserved_instances',
        'Slots of the catalogue flavor its live bookings hold now (each '
        'until its end plus [booking] guard_seconds).', labels=LABELS)
    for flavor in flavors:
        labels = [flavor.id, flavor.name]
        total.add_metric(labels, offered[flavor.id])
        available.add_metric(labels, free[flavor.id])
        reserved.add_metric(labels, held[flavor.id])
    return [total, available, reserved]
