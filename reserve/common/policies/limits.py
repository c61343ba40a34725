from oslo_policy import policy

from reserve.common.policies import base

PREFIX = 'reserve:limits:%s'
GET = PREFIX % 'get'
GET_ALL_PROJECTS = PREFIX % 'get:all_projects'

rules = [
    policy.DocumentedRuleDefault(
        name=GET,
        check_str=base.PROJECT_READER_OR_ADMIN,
        description="Show a project's booking limits and what it uses.",
        operations=[{'path': '/v1/limits', 'method': 'GET'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=GET_ALL_PROJECTS,
        check_str=base.ADMIN_OR_SERVICE,
        description='Show the booking limits and usage of any project.',
        operations=[{'path': '/v1/limits?project_id={project_id}',
                     'method': 'GET'}],
        scope_types=['project']),
]


def list_rules():
    return rules
