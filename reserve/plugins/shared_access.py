"""The access of the projects a booking is shared with
(reserve.booking.sharing) to its reserved flavor: given at the start as
the owner's is, kept by the repair, taken back at the end, and taken
from a project as soon as its share is.

A project whose share was taken back keeps its row (removed) until its
access is seen gone; then the row is forgotten. A project given the
flavor by hand, never shared, is the operator's business (diagnosis
reports it): its access is left alone.
"""
from reserve.common import states
from reserve.db import sharing as sharing_db


def shares(context, lease):
    """The Shares of the booking owning ``lease`` (none for another
    owner)."""
    if lease.owner_type != states.Owner.BOOKING or not lease.owner_id:
        return sharing_db.Shares([], [])
    return sharing_db.shares_of(context, lease.owner_id)


def ensure(context, nova_client, lease, rsv_id, found):
    """Each shared project granted the flavor ``rsv_id``, each project
    no longer shared refused it; ``found``: the Shares. Returns what it
    put right, one sentence each."""
    done = []
    granted = nova_client.flavor_projects(rsv_id)
    for project_id in found.shared:
        if project_id not in granted and nova_client.add_flavor_access(
                rsv_id, project_id):
            done.append('flavor access of shared project %s restored' %
                        project_id)
    for project_id in found.removed:
        if project_id in granted and project_id != lease.project_id:
            nova_client.remove_flavor_access(rsv_id, project_id)
            done.append('flavor access of project %s removed (no longer '
                        'shared)' % project_id)
    sharing_db.shares_forget(context, lease.owner_id, found.removed)
    return done


def take_back(nova_client, rsv_id, found):
    """At the end: no project it was shared with boots the flavor."""
    for project_id in found.shared + found.removed:
        nova_client.remove_flavor_access(rsv_id, project_id)
