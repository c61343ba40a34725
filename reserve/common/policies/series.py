from reserve.common.policies import base

PREFIX = 'reserve:series:%s'
CREATE = PREFIX % 'create'
LIST = PREFIX % 'list'
LIST_ALL_PROJECTS = PREFIX % 'list:all_projects'
GET = PREFIX % 'get'
DELETE = PREFIX % 'delete'
DELETE_ALL_PROJECTS = PREFIX % 'delete:all_projects'

rules = [
    base.rule(CREATE, base.PROJECT_MEMBER_OR_ADMIN,
              'Book a flavor for a recurring window: a series of '
              'reservations, one per occurrence (since 1.7).',
              [('POST', '/v1/series')]),
    base.rule(LIST, base.PROJECT_READER_OR_ADMIN,
              "List a project's series.",
              [('GET', '/v1/series')]),
    base.rule(LIST_ALL_PROJECTS, base.ADMIN_OR_SERVICE,
              'List and show the series of every project.',
              [('GET', '/v1/series?all_projects=1'),
               ('GET', '/v1/series/{id}')]),
    base.rule(GET, base.PROJECT_READER_OR_ADMIN,
              'Show a series and the status of each occurrence.',
              [('GET', '/v1/series/{id}')]),
    base.rule(DELETE, base.PROJECT_MEMBER_OR_ADMIN,
              'Cancel the occurrences of a series not yet ended, all or '
              'from one on.',
              [('DELETE', '/v1/series/{id}')]),
    base.rule(DELETE_ALL_PROJECTS, base.ADMIN,
              "Cancel another project's series. Reading every project "
              '(list:all_projects) never grants this.',
              [('DELETE', '/v1/series/{id}')]),
]


def list_rules():
    return rules
