"""The representation of a catalogue flavor (/v1/flavors), its free slots
and its availability.

Since 1.4 (``microversion.SPOT``) a flavor shows ``spot``; a spot flavor
also ``opted_in`` (the caller's project) and, to those who see hidden
flavors, ``spot_project_ids``; and a row of the availability ``spot``,
with ``spot_available`` for a spot flavor.
"""
from reserve.api import microversion
from reserve.booking import sizing
from reserve.common import timeutils


def flavor_view(flavor, with_projects=False, project_id=None):
    """The API representation of a catalogue flavor; ``project_id``: the
    caller's project (whether it opted in to a spot flavor)."""
    view = {
        'id': flavor.id,
        'name': flavor.name,
        'nova_flavor_id': flavor.nova_flavor_id,
        'description': flavor.description,
        'slots': flavor.slots,
        # GPUs one instance asks for, read from nova (None: unknown).
        'gpus': flavor.gpus,
        'max_length_hours': flavor.max_length_hours,
        'active': bool(flavor.active),
        'is_public': bool(flavor.is_public),
        'start': timeutils.isoformat(flavor.start),
        'end': timeutils.isoformat(flavor.end),
        'category': flavor.category,
        'availability_zone': flavor.availability_zone,
        'created_at': timeutils.isoformat(flavor.created_at),
        'updated_at': timeutils.isoformat(flavor.updated_at),
    }
    if with_projects:
        view['projects'] = flavor.project_ids
    if microversion.serves(microversion.SPOT):
        view['spot'] = bool(flavor.spot)
        if flavor.spot:
            view['opted_in'] = project_id in flavor.spot_project_ids
            if with_projects:
                view['spot_project_ids'] = flavor.spot_project_ids
    return view


def detail(ctx, flavor, with_projects):
    """flavor_view of one flavor, with how many of its instances the
    enrolled hosts' GPUs hold at once (gpu_slots; null without GPUs)."""
    view = flavor_view(flavor, with_projects, ctx.project_id)
    view['gpu_slots'] = sizing.gpu_slots(ctx, flavor)
    return view


def free_slots_view(flavor, count, start, end, gaps):
    """Where a booking of ``count`` instances fits in [start, end)."""
    return {'flavor_id': flavor.id, 'instance_count': count,
            'start': timeutils.isoformat(start),
            'end': timeutils.isoformat(end),
            'max_length_hours': flavor.max_length_hours,
            'free_slots': [{'start': timeutils.isoformat(gap[0]),
                            'end': timeutils.isoformat(gap[1])}
                           for gap in gaps]}


def availability_view(flavors, start, end, offered, free, spot=None):
    """Per flavor, the slots offered and the fewest free over the window
    (or now, without one); ``spot``: {flavor id: spot_available} of the
    spot flavors."""
    rows = []
    for f in flavors:
        row = {
            'flavor_id': f.id, 'name': f.name,
            'nova_flavor_id': f.nova_flavor_id, 'category': f.category,
            'availability_zone': f.availability_zone,
            'active': bool(f.active),
            'slots': f.slots, 'gpus': f.gpus,
            'total': offered[f.id], 'available': free[f.id],
        }
        if microversion.serves(microversion.SPOT):
            row['spot'] = bool(f.spot)
            if f.spot:
                row['spot_available'] = (spot or {}).get(f.id, 0)
        rows.append(row)
    return {
        'start': timeutils.isoformat(start),
        'end': timeutils.isoformat(end),
        'availability': rows,
    }
