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
DIAGNOSE = PREFIX % 'diagnose'

rules = [
    base.rule(CREATE, base.PROJECT_MEMBER_OR_ADMIN,
              'Book a flavor for a time window.',
              [('POST', '/v1/reservations')]),
    base.rule(LIST, base.PROJECT_READER_OR_ADMIN,
              "List a project's reservations.",
              [('GET', '/v1/reservations')]),
    base.rule(LIST_ALL_PROJECTS, base.ADMIN_OR_SERVICE,
              'List the reservations of every project.',
              [('GET', '/v1/reservations?all_projects=1')]),
    base.rule(GET, base.PROJECT_READER_OR_ADMIN,
              'Show a reservation.',
              [('GET', '/v1/reservations/{id}')]),
    base.rule(DIAGNOSE, base.PROJECT_READER_OR_ADMIN,
              'Diagnose a reservation: each layer of its lease and of the '
              'cloud objects it holds, read live, and the first that '
              'disagrees (404 where a GET is).',
              [('GET', '/v1/reservations/{id}/diagnosis')]),
    base.rule(UPDATE, base.PROJECT_MEMBER_OR_ADMIN,
              'Extend the end of a reservation.',
              [('PATCH', '/v1/reservations/{id}')]),
    base.rule(DELETE, base.PROJECT_MEMBER_OR_ADMIN,
              'Cancel a reservation and tear its lease down.',
              [('DELETE', '/v1/reservations/{id}')]),
    base.rule(UPDATE_ALL_PROJECTS, base.ADMIN,
              "Extend the end of another project's reservation. Reading "
              'every project (list:all_projects) never grants this.',
              [('PATCH', '/v1/reservations/{id}')]),
    base.rule(DELETE_ALL_PROJECTS, base.ADMIN,
              "Cancel or remove another project's reservation. Reading every "
              'project (list:all_projects) never grants this.',
              [('DELETE', '/v1/reservations/{id}')]),
    base.rule(BYPASS_MAINTENANCE, base.ADMIN,
              'Book or extend a reservation over a maintenance window of its '
              'flavor (free slots are then computed without maintenance too).',
              [('POST', '/v1/reservations'),
               ('PATCH', '/v1/reservations/{id}')]),
]


def list_rules():
    return rules
