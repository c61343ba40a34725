from oslo_policy import policy

from reserve.common.policies import base

PREFIX = 'reserve:maintenance:%s'
PATH = '/v1/maintenance-windows'


def _rule(action, method, path, description):
    return policy.DocumentedRuleDefault(
        name=PREFIX % action, check_str=base.ADMIN,
        description=description,
        operations=[{'path': path, 'method': method}],
        scope_types=['project'])


rules = [
    _rule('list', 'GET', PATH, 'List maintenance windows.'),
    _rule('get', 'GET', PATH + '/{id}', 'Show a maintenance window.'),
    _rule('create', 'POST', PATH,
          'Close flavors for maintenance over a window (refused while it '
          'overlaps live reservations, unless forced).'),
    _rule('update', 'PATCH', PATH + '/{id}',
          "Change a maintenance window's dates, note or flavors."),
    _rule('delete', 'DELETE', PATH + '/{id}',
          'Remove a maintenance window.'),
]


def list_rules():
    return rules
