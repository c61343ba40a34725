from oslo_policy import policy

from reserve.common.policies import base

PREFIX = 'reserve:maintenance:%s'
LIST = PREFIX % 'list'
GET = PREFIX % 'get'
CREATE = PREFIX % 'create'
UPDATE = PREFIX % 'update'
DELETE = PREFIX % 'delete'
PATH = '/v1/maintenance-windows'


def _rule(name, method, path, description):
    return policy.DocumentedRuleDefault(
        name=name, check_str=base.ADMIN,
        description=description,
        operations=[{'path': path, 'method': method}],
        scope_types=['project'])


rules = [
    _rule(LIST, 'GET', PATH, 'List maintenance windows.'),
    _rule(GET, 'GET', PATH + '/{id}', 'Show a maintenance window.'),
    _rule(CREATE, 'POST', PATH,
          'Close flavors for maintenance over a window (refused while it '
          'overlaps live reservations, unless forced).'),
    _rule(UPDATE, 'PATCH', PATH + '/{id}',
          "Change a maintenance window's dates, note or flavors."),
    _rule(DELETE, 'DELETE', PATH + '/{id}',
          'Remove a maintenance window.'),
]


def list_rules():
    return rules
