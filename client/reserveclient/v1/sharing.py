"""The projects a reservation is shared with (microversion 1.9 of the
API): they may boot its reserved flavor beside its owner."""
from reserveclient.v1 import httpclient

VERSION = '1.9'
FIELD = 'shared_project_ids'
SUBRESOURCE = 'shared-projects'
WHAT = 'Sharing a reservation with other projects'


def _path(item_path, project_id=None):
    path = '%s/%s' % (item_path, SUBRESOURCE)
    if project_id is not None:
        path += '/' + httpclient.quote(project_id)
    return path


def add(http, item_path, project_id):
    """Share the reservation at ``item_path`` with one more project; the
    projects it is shared with then."""
    http.require_version(VERSION, WHAT)
    return http.put(_path(item_path, project_id))[FIELD]


def remove(http, item_path, project_id):
    """Stop sharing it with ``project_id``."""
    http.require_version(VERSION, WHAT)
    http.delete(_path(item_path, project_id))


def replace(http, item_path, project_ids):
    """Share it with exactly ``project_ids``; the list then."""
    http.require_version(VERSION, WHAT)
    return http.put(_path(item_path), {FIELD: list(project_ids)})[FIELD]
