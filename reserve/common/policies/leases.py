from reserve.common.policies import base

PREFIX = 'reserve:lease:%s'
LIST = PREFIX % 'list'
LIST_ALL_PROJECTS = PREFIX % 'list:all_projects'
GET = PREFIX % 'get'

rules = [
    base.rule(LIST, base.PROJECT_READER_OR_ADMIN,
              "List a project's leases.",
              [('GET', '/v1/leases')]),
    base.rule(LIST_ALL_PROJECTS, base.ADMIN_OR_SERVICE,
              'List the leases of every project.',
              [('GET', '/v1/leases?all_projects=1')]),
    base.rule(GET, base.PROJECT_READER_OR_ADMIN,
              'Show a lease with its reservations, allocations and events.',
              [('GET', '/v1/leases/{id}')]),
]


def list_rules():
    return rules
