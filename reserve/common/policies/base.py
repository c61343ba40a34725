"""Personas of the secure-RBAC model, as reusable check strings."""
from oslo_policy import policy

ADMIN = 'role:admin'
SERVICE = 'role:service'
PROJECT_READER = 'role:reader and project_id:%(project_id)s'
PROJECT_MEMBER = 'role:member and project_id:%(project_id)s'

ADMIN_OR_SERVICE = 'rule:admin_api or rule:service_api'
PROJECT_READER_OR_ADMIN = 'rule:admin_api or rule:project_reader_api'
PROJECT_MEMBER_OR_ADMIN = 'rule:admin_api or rule:project_member_api'

rules = [
    policy.RuleDefault('admin_api', ADMIN,
                       description='A cloud administrator.'),
    policy.RuleDefault('service_api', SERVICE,
                       description='Another OpenStack service.'),
    policy.RuleDefault('project_reader_api', PROJECT_READER,
                       description='A reader of the owning project.'),
    policy.RuleDefault('project_member_api', PROJECT_MEMBER,
                       description='A member of the owning project.'),
]


def rule(name, check_str, description, operations):
    """A documented rule of project scope; ``operations`` are the
    (method, path) pairs it guards."""
    return policy.DocumentedRuleDefault(
        name=name, check_str=check_str, description=description,
        operations=[{'path': path, 'method': method}
                    for method, path in operations],
        scope_types=['project'])


def admin_rule(name, method, path, description):
    """A rule of one operation that only administrators may call."""
    return rule(name, ADMIN, description, [(method, path)])


def list_rules():
    return rules
