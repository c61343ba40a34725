"""The sharing routes of the API double (since microversion 1.9): PUT
``/v1/reservations/{id}/shared-projects`` (the whole list), PUT and
DELETE ``.../shared-projects/{project_id}``, and ``shared_project_ids``
of a booking's body and view. Below 1.9 the routes are 404, as the API
answers unknown routes, and the field of a body is refused."""
import re

from reserveclient.tests.unit import fake_rest

SHARING = (1, 9)
FIELD = 'shared_project_ids'
LIVE = ('PENDING_CREATE', 'ALLOCATED', 'ACTIVE')
_PROJECT_ID = re.compile(r'^[0-9a-f]{32}$|^[0-9a-f-]{36}$', re.I)


def is_sharing(parts):
    return (len(parts) in (4, 5) and parts[1] == 'reservations' and
            parts[3] == 'shared-projects')


def check(api, owner, projects):
    """The API's checks of a list, as 400s."""
    if len(projects) > 100:
        raise fake_rest.ApiError(400, 'Invalid input: a reservation is '
                                 'shared with at most 100 projects')
    for project in projects:
        if not _PROJECT_ID.match(project):
            raise fake_rest.ApiError(400, 'Invalid input: %r is not a '
                                     'project id' % project)
        if project == owner:
            raise fake_rest.ApiError(400, 'Invalid input: project %s owns '
                                     'the reservation' % project)
    if len(set(projects)) != len(projects):
        raise fake_rest.ApiError(400, 'Invalid input: a project is named '
                                 'twice')
    return sorted(projects)


def on_create(api, body):
    """The shared_project_ids of a new booking's body, checked."""
    if FIELD not in body:
        return
    if api.version() < SHARING:
        raise fake_rest.ApiError(400, "Invalid input: field '%s' needs "
                                 'microversion 1.9 or later' % FIELD)
    body[FIELD] = check(api, 'project-a', body[FIELD])


def answer(api, method, path, parts):
    if api.version() < SHARING:
        raise fake_rest.ApiError(404, 'The resource %s could not be found.'
                                 % path)
    item = api.reservations.lookup(parts[2])
    project = parts[4] if len(parts) == 5 else None
    current = list(item.get(FIELD) or [])
    if method == 'PUT' and project is None:
        wanted = api.requests[-1].body[FIELD]
    elif method == 'PUT':
        wanted = current if project in current else current + [project]
    elif method == 'DELETE' and project is not None:
        if project not in current:
            raise fake_rest.ApiError(404, 'The reservation is not shared '
                                     'with project %s.' % project)
        wanted = [p for p in current if p != project]
    else:
        raise fake_rest.ApiError(405, 'Method %s is not allowed.' % method,
                                 'reserve.method_not_allowed')
    if item['status'] not in LIVE:
        raise fake_rest.ApiError(409, 'Conflict: Reservation %s is %s: the '
                                 'projects it is shared with change only '
                                 'while it lives' % (item['id'],
                                                     item['status']))
    item[FIELD] = check(api, item['project_id'], wanted)
    if method == 'DELETE':
        return fake_rest.FakeResponse(204)
    return fake_rest.FakeResponse(200, {FIELD: item[FIELD]})
