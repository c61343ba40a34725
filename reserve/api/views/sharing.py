"""The projects a reservation is shared with, in its view (since 1.9)."""
import pecan

from reserve.api import microversion
from reserve.db import sharing as sharing_db


def shown():
    return microversion.serves(microversion.SHARING)


def seen(booking):
    """What the caller sees of the projects ``booking`` is shared with:
    all of them for its project and administrators, its own project
    alone for a project it is shared with."""
    ctx = pecan.request.context
    shared = sharing_db.shared_project_ids(ctx, booking.id)
    if booking.project_id == ctx.project_id or ctx.all_projects:
        return shared
    return [p for p in shared if p == ctx.project_id]
