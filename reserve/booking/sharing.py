"""Sharing a booking: the projects, beside its owner, allowed to boot its
reserved flavor (issue 25: as a calendar-mode reservation of the public
clouds is shared with up to 100 projects).

The desk checks the list here; reserve.db.sharing keeps it; the
flavor:instance plugin gives each shared project the owner's access
while the lease runs (reserve.plugins.shared_access).
"""
import re

from reserve.common import exception

MAX_SHARED_PROJECTS = 100

# Keystone's project ids: 32 hex digits, or a UUID written with hyphens
# (some identity back ends).
_PROJECT_ID = re.compile(
    r'^([0-9a-fA-F]{32}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-'
    r'[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$')


def _key(project_id):
    # One project, however its id is written.
    return project_id.replace('-', '').lower()


def check(owner_project_id, project_ids):
    """The projects a booking of ``owner_project_id`` is to be shared
    with, as given; 400 for an id that is not a keystone id, a project
    named twice, the owner, or more than MAX_SHARED_PROJECTS."""
    project_ids = list(project_ids)
    if len(project_ids) > MAX_SHARED_PROJECTS:
        raise exception.Invalid(
            reason='a reservation is shared with at most %d projects, not '
                   '%d' % (MAX_SHARED_PROJECTS, len(project_ids)))
    seen = {}
    for project_id in project_ids:
        if not isinstance(project_id, str) or not _PROJECT_ID.match(
                project_id):
            raise exception.Invalid(
                reason='%r is not a project id (32 hexadecimal digits, or '
                       'a UUID)' % (project_id,))
        key = _key(project_id)
        if key == _key(owner_project_id):
            raise exception.Invalid(
                reason='project %s owns the reservation; it is shared with '
                       'other projects only' % project_id)
        if key in seen:
            raise exception.Invalid(
                reason='project %s is named twice (%s)' % (
                    project_id, ', '.join((seen[key], project_id))))
        seen[key] = project_id
    return project_ids


def add(owner_project_id, current, project_id):
    """The list ``current`` with ``project_id`` shared too (no change
    when it is already)."""
    if any(_key(p) == _key(project_id) for p in current):
        return current
    return check(owner_project_id, current + [project_id])
