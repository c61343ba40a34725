from oslo_policy import policy

from reserve.common.policies import base

PREFIX = 'reserve:lease:%s'

rules = [
    policy.DocumentedRuleDefault(
        name=PREFIX % 'list',
        check_str=base.PROJECT_READER_OR_ADMIN,
        description="List a project's leases.",
        operations=[{'path': '/v1/leases', 'method': 'GET'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=PREFIX % 'list:all_projects',
        check_str=base.ADMIN_OR_SERVICE,
        description='List the leases of every project.',
        operations=[{'path': '/v1/leases?all_projects=1', 'method': 'GET'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=PREFIX % 'get',
        check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show a lease with its reservations, allocations and '
                    'events.',
        operations=[{'path': '/v1/leases/{id}', 'method': 'GET'}],
        scope_types=['project']),
]


def list_rules():
    return rules
