"""Spot flavors in the catalogue: who may opt in, what they borrow now.

A spot flavor is a catalogue entry that is never booked (gauntlet's
check_not_spot): its private nova flavor, asking at least one GPU
(sizing.check_spot), boots on the GPUs the manager lends out of fenced
capacity nobody uses (reserve.spot), for the projects that opted in. The
manager gives those projects access to the nova flavor; here the
catalogue records who opted in, and tells how many instances the GPUs
lent now still hold.
"""
from reserve.booking import admission
from reserve.common import exception
from reserve.db import flavors as flavors_db
from reserve.db import hosts as hosts_db


def gpus_of(flavor):
    """GPUs one instance of spot flavor ``flavor`` borrows (at least 1:
    what the manager asks of its spot resource class)."""
    return max(1, sum(int(n) for n in (flavor.gpus or {}).values()))


def available(context, flavors):
    """{flavor id: instances the GPUs lent now still hold} of the spot
    flavors among ``flavors``: over the reservable nova hosts that have
    not failed, the spot inventory the manager last set on each
    (spot_lent) less what spot servers used of it (spot_used), in whole
    instances of the flavor's GPUs. An instance lands on one host, so
    what two hosts have left does not add up to one more."""
    spot = [f for f in flavors if f.spot]
    if not spot:
        return {}
    left = [max(0, host.spot_lent - host.spot_used)
            for host in hosts_db.host_list(context, reservable=True)
            if host.kind == 'nova' and not host.failure]
    return {f.id: sum(free // gpus_of(f) for free in left)
            for f in spot}


def check_opt_in(flavor, project_id):
    """Whether project ``project_id`` may opt in to ``flavor``, as a
    caller who sees it found it: a spot flavor (NotSpotFlavor, 409),
    active (SpotFlavorInactive, 409), that the project may see
    (FlavorNotGranted, 403: an administrator named a project without a
    grant on the private entry)."""
    check_spot(flavor)
    if not flavor.active:
        raise exception.SpotFlavorInactive(name=flavor.name)
    if not flavor.is_public and project_id not in flavor.project_ids:
        raise exception.FlavorNotGranted(name=flavor.name,
                                         project=project_id)


def check_spot(flavor):
    if not flavor.spot:
        raise exception.NotSpotFlavor(name=flavor.name)


def become_spot(context, flavor_id, values):
    """Write ``values``, which make catalogue flavor ``flavor_id`` a spot
    flavor; SpotFlavorBooked (409) while it holds live bookings. Under
    the capacity lock, which admission holds while it books: no booking
    of it is admitted in between."""
    with admission.capacity_transaction(context, [flavor_id]) as locked:
        if not locked.flavors:
            raise exception.FlavorNotFound(id=flavor_id)
        count = flavors_db.live_booking_count(context, flavor_id)
        if count:
            raise exception.SpotFlavorBooked(name=locked.flavors[0].name,
                                             count=count)
        return flavors_db.flavor_update(context, flavor_id, values)
