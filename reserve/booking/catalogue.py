"""Finding catalogue flavors the way a caller may see them.

A project sees the active flavors that are public or granted to it;
callers allowed to see hidden flavors (administrators) see them all. A
flavor the caller may not see does not exist for it: 404, never 403.
"""
from reserve.common import exception
from reserve.db import flavors as flavors_db


def visible(context, ref, sees_hidden):
    """The flavor with id or name ``ref`` as the caller sees it, or
    FlavorNotFound (404)."""
    if sees_hidden:
        return flavors_db.flavor_get(context, ref)
    return flavors_db.flavor_get(context, ref, project_id=context.project_id,
                                 active_only=True)


def visible_list(context, sees_hidden, filters=None, limit=None,
                 marker=None, grants=True):
    """The flavors the caller sees (``grants`` False: without their
    grants, see flavors_db.flavor_list)."""
    if sees_hidden:
        return flavors_db.flavor_list(context, filters=filters, limit=limit,
                                      marker=marker, grants=grants)
    return flavors_db.flavor_list(context, project_id=context.project_id,
                                  active_only=True, filters=filters,
                                  limit=limit, marker=marker, grants=grants)


def bookable(context, ref, sees_hidden):
    """The flavor a booking names, before the gauntlet runs.

    Inactive flavors are found (the gauntlet says they are inactive); a
    private flavor the project has no grant on is found only by callers
    who see hidden flavors (the gauntlet then names the missing grant).
    For everybody else it answers like an unknown flavor, so that a
    project never learns what another project was granted.
    """
    try:
        if sees_hidden:
            return flavors_db.flavor_get(context, ref)
        return flavors_db.flavor_get(context, ref,
                                     project_id=context.project_id)
    except exception.FlavorNotFound:
        raise exception.FlavorNotAvailable(ref=ref,
                                           project=context.project_id)


def counted(context):
    """Every entry (what an administrator lists), as the rows the counts
    of admission.offered and availability read: no grants."""
    return flavors_db.flavor_rows(context)
