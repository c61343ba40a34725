from reserve.common.policies import base

PREFIX = 'reserve:device:%s'
LIST = PREFIX % 'list'
GET = PREFIX % 'get'
AVAILABILITY = PREFIX % 'availability'
LIST_ALL = PREFIX % 'list:all'
SPOT_ATTACH = PREFIX % 'spot_attach'
SPOT_DETACH = PREFIX % 'spot_detach'
SPOT_DETACH_ALL_PROJECTS = PREFIX % 'spot_detach:all_projects'


rules = [
    base.rule(LIST, base.PROJECT_READER_OR_ADMIN,
              'List the GPU devices of the libvirt hosts. A device held now '
              'by a device reservation is left out for projects outside its '
              'audience.',
              [('GET', '/v1/devices')]),
    base.rule(GET, base.PROJECT_READER_OR_ADMIN,
              'Show a GPU device (404 while a reservation the project is not '
              'in holds it).',
              [('GET', '/v1/devices/{id}')]),
    base.rule(AVAILABILITY, base.PROJECT_READER_OR_ADMIN,
              'Count the GPU devices free now or over a window, by host and '
              'model (a dry run: nothing is held).',
              [('GET', '/v1/devices/availability')]),
    base.rule(LIST_ALL, base.ADMIN,
              'See every GPU device whoever holds it, with what holds it (the '
              'reservation, the domains and mdevs reserve did not make).',
              [('GET', '/v1/devices'), ('GET', '/v1/devices/{id}'),
               ('GET', '/v1/devices/availability')]),
    base.rule(SPOT_ATTACH, base.PROJECT_MEMBER_OR_ADMIN,
              "Attach a device on the spot market to one of the project's "
              'own domains (a spot domain), until the reservation that lent '
              'it reclaims it (since microversion 1.4).',
              [('POST', '/v1/devices/{id}/attach')]),
    base.rule(SPOT_DETACH, base.PROJECT_MEMBER_OR_ADMIN,
              'Detach a spot device from the spot domain of the project '
              'that attached it, before any reclaim: the device is on the '
              'spot market again (since microversion 1.4).',
              [('POST', '/v1/devices/{id}/detach')]),
    base.rule(SPOT_DETACH_ALL_PROJECTS, base.ADMIN,
              "Detach a spot device from any project's spot domain. Seeing "
              'every device (list:all) never grants this.',
              [('POST', '/v1/devices/{id}/detach')]),
]


def list_rules():
    return rules
