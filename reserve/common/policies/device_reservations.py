from reserve.common.policies import base

PREFIX = 'reserve:device_reservation:%s'
CREATE = PREFIX % 'create'
CREATE_OTHER_PROJECTS = PREFIX % 'create:other_projects'
LIST = PREFIX % 'list'
LIST_ALL_PROJECTS = PREFIX % 'list:all_projects'
GET = PREFIX % 'get'
UPDATE = PREFIX % 'update'
ATTACH = PREFIX % 'attach'
ATTACH_ALL_PROJECTS = PREFIX % 'attach:all_projects'
ATTACH_UNOWNED = PREFIX % 'attach:unowned'
DELETE = PREFIX % 'delete'
DELETE_ALL_PROJECTS = PREFIX % 'delete:all_projects'
AFFIRM = PREFIX % 'affirm'
DIAGNOSE = PREFIX % 'diagnose'
RELEASE = PREFIX % 'release'
RECLAIM = PREFIX % 'reclaim'
SPOT_ALL_PROJECTS = PREFIX % 'spot:all_projects'
PATH = '/v1/device-reservations'


rules = [
    base.rule(CREATE, base.PROJECT_MEMBER_OR_ADMIN,
              'Reserve GPU devices for the project (or check, with dry_run, '
              'whether they fit).',
              [('POST', PATH)]),
    base.rule(CREATE_OTHER_PROJECTS, base.ADMIN,
              'Reserve GPU devices for other projects: name any project in '
              'allowed_projects and managing_projects.',
              [('POST', PATH)]),
    base.rule(LIST, base.PROJECT_READER_OR_ADMIN,
              'List the device reservations the project made, is allowed on '
              'or manages.',
              [('GET', PATH)]),
    base.rule(LIST_ALL_PROJECTS, base.ADMIN_OR_SERVICE,
              'List and show the device reservations of every project.',
              [('GET', PATH + '?all_projects=1'), ('GET', PATH + '/{id}')]),
    base.rule(GET, base.PROJECT_READER_OR_ADMIN,
              'Show a device reservation with its devices and attachments '
              '(404 for a project outside it).',
              [('GET', PATH + '/{id}')]),
    base.rule(DIAGNOSE, base.PROJECT_READER_OR_ADMIN,
              'Diagnose a device reservation: its lease, its host and the '
              "hostdevs of its domains' XML, read live, and the first "
              'layer that disagrees (404 for a project outside it).',
              [('GET', PATH + '/{id}/diagnosis')]),
    base.rule(UPDATE, base.ADMIN,
              "Change a device reservation's end, projects, contract "
              'reference or reason.',
              [('PATCH', PATH + '/{id}')]),
    base.rule(ATTACH, base.PROJECT_MEMBER_OR_ADMIN,
              "Name the domains that get a reservation's devices (its "
              'audience and managers; an allowed project detaches only what '
              'it attached).',
              [('PATCH', PATH + '/{id}'), ('POST', PATH + '/{id}/attach'),
               ('POST', PATH + '/{id}/detach')]),
    base.rule(ATTACH_ALL_PROJECTS, base.ADMIN,
              "Name and take back the domains of any project's device "
              'reservation, as its maker would. Reading every project '
              '(list:all_projects) never grants this.',
              [('PATCH', PATH + '/{id}'), ('POST', PATH + '/{id}/attach'),
               ('POST', PATH + '/{id}/detach')]),
    base.rule(ATTACH_UNOWNED, base.ADMIN,
              'Hand devices to a domain that has no owner (neither nova '
              "metadata nor an administrator's record); a domain of another "
              'project is never taken.',
              [('POST', PATH), ('PATCH', PATH + '/{id}'),
               ('POST', PATH + '/{id}/attach')]),
    base.rule(DELETE, base.PROJECT_MEMBER_OR_ADMIN,
              'Cancel a device reservation (the project that made it, or one '
              'that manages it while it lives), or remove one that is over '
              '(the project that made it).',
              [('DELETE', PATH + '/{id}')]),
    base.rule(DELETE_ALL_PROJECTS, base.ADMIN,
              "Cancel or remove any project's device reservation. Reading "
              'every project (list:all_projects) never grants this.',
              [('DELETE', PATH + '/{id}')]),
    base.rule(AFFIRM, base.ADMIN,
              'Re-affirm a device reservation in needs-review against its '
              "host's GPU topology now.",
              [('POST', PATH + '/{id}/affirm')]),
    base.rule(RELEASE, base.PROJECT_MEMBER_OR_ADMIN,
              "Put devices of an active device reservation that none of its "
              'domains uses on the spot market, inside its window (the '
              'project that made it, or one that manages it; since '
              'microversion 1.4).',
              [('POST', PATH + '/{id}/release')]),
    base.rule(RECLAIM, base.PROJECT_MEMBER_OR_ADMIN,
              'Take the devices a device reservation lent out back from the '
              'spot domains, or (dry_run) say which it would terminate (the '
              'project that made it, or one that manages it; since 1.4).',
              [('POST', PATH + '/{id}/reclaim')]),
    base.rule(SPOT_ALL_PROJECTS, base.ADMIN,
              "Release and reclaim the devices of any project's device "
              'reservation, as its maker would. Reading every project '
              '(list:all_projects) never grants this.',
              [('POST', PATH + '/{id}/release'),
               ('POST', PATH + '/{id}/reclaim')]),
]


def list_rules():
    return rules
