from reserve.common.policies import base

PREFIX = 'reserve:limits:%s'
GET = PREFIX % 'get'
GET_ALL_PROJECTS = PREFIX % 'get:all_projects'

rules = [
    base.rule(GET, base.PROJECT_READER_OR_ADMIN,
              "Show a project's booking limits and what it uses.",
              [('GET', '/v1/limits')]),
    base.rule(GET_ALL_PROJECTS, base.ADMIN_OR_SERVICE,
              'Show the booking limits and usage of any project.',
              [('GET', '/v1/limits?project_id={project_id}')]),
]


def list_rules():
    return rules
