from oslo_policy import policy

from reserve.common.policies import base

PREFIX = 'reserve:reservation:%s'
CREATE = PREFIX % 'create'
LIST = PREFIX % 'list'
LIST_ALL_PROJECTS = PREFIX % 'list:all_projects'
GET = PREFIX % 'get'
UPDATE = PREFIX % 'update'
UPDATE_ALL_PROJECTS = PREFIX % 'update:all_projects'
DELETE = PREFIX % 'delete'
DELETE_ALL_PROJECTS = PREFIX % 'delete:all_projects'
BYPASS_MAINTENANCE = PREFIX % 'bypass_maintenance'

rules = [
    policy.DocumentedRuleDefault(
        name=CREATE,
        check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Book a flavor for a time window.',
        operations=[{'path': '/v1/reservations', 'method': 'POST'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=LIST,
        check_str=base.PROJECT_READER_OR_ADMIN,
        description="List a project's reservations.",
        operations=[{'path': '/v1/reservations', 'method': 'GET'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=LIST_ALL_PROJECTS,
        check_str=base.ADMIN_OR_SERVICE,
        description='List the reservations of every project.',
        operations=[{'path': '/v1/reservations?all_projects=1',
                     'method': 'GET'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=GET,
        check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show a reservation.',
        operations=[{'path': '/v1/reservations/{id}', 'method': 'GET'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=UPDATE,
        check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Extend the end of a reservation.',
        operations=[{'path': '/v1/reservations/{id}', 'method': 'PATCH'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=DELETE,
        check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Cancel a reservation and tear its lease down.',
        operations=[{'path': '/v1/reservations/{id}', 'method': 'DELETE'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=UPDATE_ALL_PROJECTS,
        check_str=base.ADMIN,
        description="Extend the end of another project's reservation. "
                    'Reading every project (list:all_projects) never '
                    'grants this.',
        operations=[{'path': '/v1/reservations/{id}', 'method': 'PATCH'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=DELETE_ALL_PROJECTS,
        check_str=base.ADMIN,
        description="Cancel or remove another project's reservation. "
                    'Reading every project (list:all_projects) never '
                    'grants this.',
        operations=[{'path': '/v1/reservations/{id}', 'method': 'DELETE'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=BYPASS_MAINTENANCE,
        check_str=base.ADMIN,
        description='Book or extend a reservation over a maintenance '
                    'window of its flavor (free slots are then computed '
                    'without maintenance too).',
        operations=[{'path': '/v1/reservations', 'method': 'POST'},
                    {'path': '/v1/reservations/{id}', 'method': 'PATCH'}],
        scope_types=['project']),
]


def list_rules():
    return rules
