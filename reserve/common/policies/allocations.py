from oslo_policy import policy

from reserve.common.policies import base

PREFIX = 'reserve:allocation:%s'
LIST = PREFIX % 'list'
LIST_ALL_PROJECTS = PREFIX % 'list:all_projects'
GET = PREFIX % 'get'

rules = [
    policy.DocumentedRuleDefault(
        name=LIST,
        check_str=base.PROJECT_READER_OR_ADMIN,
        description="List the host allocations of a project's leases.",
        operations=[{'path': '/v1/allocations', 'method': 'GET'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=LIST_ALL_PROJECTS,
        check_str=base.ADMIN_OR_SERVICE,
        description='See the allocations of every project (the default '
                    'for those allowed) or of another project.',
        operations=[{'path': '/v1/allocations?project_id={project_id}',
                     'method': 'GET'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=GET,
        check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show one allocation.',
        operations=[{'path': '/v1/allocations/{id}', 'method': 'GET'}],
        scope_types=['project']),
]


def list_rules():
    return rules
