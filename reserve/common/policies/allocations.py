from reserve.common.policies import base

PREFIX = 'reserve:allocation:%s'
LIST = PREFIX % 'list'
LIST_ALL_PROJECTS = PREFIX % 'list:all_projects'
GET = PREFIX % 'get'

rules = [
    base.rule(LIST, base.PROJECT_READER_OR_ADMIN,
              "List the host allocations of a project's leases.",
              [('GET', '/v1/allocations')]),
    base.rule(LIST_ALL_PROJECTS, base.ADMIN_OR_SERVICE,
              'See the allocations of every project (the default for those '
              'allowed) or of another project.',
              [('GET', '/v1/allocations?project_id={project_id}')]),
    base.rule(GET, base.PROJECT_READER_OR_ADMIN,
              'Show one allocation.',
              [('GET', '/v1/allocations/{id}')]),
]


def list_rules():
    return rules
