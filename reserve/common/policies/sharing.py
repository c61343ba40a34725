"""Who changes and who sees the projects a reservation is shared with
(reserve.booking.sharing)."""
from reserve.common.policies import base

PREFIX = 'reserve:reservation:%s'
SHARE = PREFIX % 'share'
SHARE_ALL_PROJECTS = PREFIX % 'share:all_projects'
GET_SHARED = PREFIX % 'get:shared'
PATH = '/v1/reservations/{id}'

rules = [
    base.rule(SHARE, base.PROJECT_MEMBER_OR_ADMIN,
              'Change the projects a reservation is shared with, while it '
              'lives: they may boot its reserved flavor.',
              [('PUT', PATH + '/shared-projects'),
               ('PUT', PATH + '/shared-projects/{project_id}'),
               ('DELETE', PATH + '/shared-projects/{project_id}')]),
    base.rule(SHARE_ALL_PROJECTS, base.ADMIN,
              "Change the projects another project's reservation is shared "
              'with. Reading every project (list:all_projects) never grants '
              'this.',
              [('PUT', PATH + '/shared-projects'),
               ('PUT', PATH + '/shared-projects/{project_id}'),
               ('DELETE', PATH + '/shared-projects/{project_id}')]),
    base.rule(GET_SHARED, base.PROJECT_READER_OR_ADMIN,
              'Show a reservation shared with the project (its window, '
              'status and reserved flavor; of the projects it is shared '
              'with, the caller\'s own alone). Another project gets a 404.',
              [('GET', PATH)]),
]


def list_rules():
    return rules
