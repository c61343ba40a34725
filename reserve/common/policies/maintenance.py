from reserve.common.policies import base

PREFIX = 'reserve:maintenance:%s'
LIST = PREFIX % 'list'
GET = PREFIX % 'get'
CREATE = PREFIX % 'create'
UPDATE = PREFIX % 'update'
DELETE = PREFIX % 'delete'
PATH = '/v1/maintenance-windows'


rules = [
    base.admin_rule(LIST, 'GET', PATH, 'List maintenance windows.'),
    base.admin_rule(GET, 'GET', PATH + '/{id}', 'Show a maintenance window.'),
    base.admin_rule(CREATE, 'POST', PATH,
                    'Close flavors for maintenance over a window (refused '
                    'while it overlaps live reservations, unless forced).'),
    base.admin_rule(UPDATE, 'PATCH', PATH + '/{id}',
                    "Change a maintenance window's dates, note or flavors."),
    base.admin_rule(DELETE, 'DELETE', PATH + '/{id}',
                    'Remove a maintenance window.'),
]


def list_rules():
    return rules
