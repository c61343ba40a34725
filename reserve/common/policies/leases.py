from oslo_policy import policy

from reserve.common.policies import base

PREFIX = 'reserve:lease:%s'
LIST = PREFIX % 'list'
LIST_ALL_PROJECTS = PREFIX % 'list:all_projects'
GET = PREFIX % 'get'

rules = [
    policy.DocumentedRuleDefault(
        name=LIST,
        check_str=base.PROJECT_READER_OR_ADMIN,
        description="List a project's leases.",
        operations=[{'path': '/v1/leases', 'method': 'GET'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=LIST_ALL_PROJECTS,
        check_str=base.ADMIN_OR_SERVICE,
        description='List the leases of every project.',
        operations=[{'path': '/v1/leases?all_projects=1', 'method': 'GET'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=GET,
        check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show a lease with its reservations, allocations and '
                    'events.',
        operations=[{'path': '/v1/leases/{id}', 'method': 'GET'}],
        scope_types=['project']),
]


def list_rules():
    return rules
