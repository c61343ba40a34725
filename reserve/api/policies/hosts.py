from oslo_policy import policy

from reserve.api.policies import base

PREFIX = 'reserve:host:%s'


def _rule(action, method, path, description):
    return policy.DocumentedRuleDefault(
        name=PREFIX % action, check_str=base.ADMIN,
        description=description,
        operations=[{'path': path, 'method': method}],
        scope_types=['project'])


rules = [
    _rule('create', 'POST', '/v1/hosts', 'Enroll a hypervisor.'),
    _rule('list', 'GET', '/v1/hosts', 'List enrolled hosts.'),
    _rule('get', 'GET', '/v1/hosts/{id}', 'Show an enrolled host.'),
    _rule('update', 'PATCH', '/v1/hosts/{id}',
          "Change a host's capabilities or reservability."),
    _rule('delete', 'DELETE', '/v1/hosts/{id}',
          'Remove a host that holds no allocation.'),
]


def list_rules():
    return rules
