from reserve.common.policies import base

PREFIX = 'reserve:flavor:%s'
LIST = PREFIX % 'list'
GET = PREFIX % 'get'
LIST_HIDDEN = PREFIX % 'list:hidden'
FREE_SLOTS = PREFIX % 'free_slots'
AVAILABILITY = PREFIX % 'availability'
CREATE = PREFIX % 'create'
UPDATE = PREFIX % 'update'
DELETE = PREFIX % 'delete'
PROJECT_LIST = PREFIX % 'project:list'
PROJECT_CREATE = PREFIX % 'project:create'
PROJECT_DELETE = PREFIX % 'project:delete'
SPOT_OPT_IN = PREFIX % 'spot_opt_in'


rules = [
    base.rule(LIST, base.PROJECT_READER_OR_ADMIN,
              'List the catalogue flavors the project may book: the active '
              'ones that are public or granted to it.',
              [('GET', '/v1/flavors')]),
    base.rule(GET, base.PROJECT_READER_OR_ADMIN,
              'Show a catalogue flavor the project may book.',
              [('GET', '/v1/flavors/{id}')]),
    base.rule(LIST_HIDDEN, base.ADMIN,
              'See every catalogue flavor, inactive or private, whatever its '
              'grants: in lists, shows, free slots and availability, and when '
              'booking (a missing grant is then named as such).',
              [('GET', '/v1/flavors'), ('GET', '/v1/flavors/{id}')]),
    base.rule(FREE_SLOTS, base.PROJECT_READER_OR_ADMIN,
              'List the windows where a booking of a flavor fits.',
              [('GET', '/v1/flavors/{id}/free-slots')]),
    base.rule(AVAILABILITY, base.PROJECT_READER_OR_ADMIN,
              'Show how many instances of each flavor are free, now or at '
              'worst over a window.',
              [('GET', '/v1/flavors/availability')]),
    base.rule(CREATE, base.ADMIN, 'Add a flavor to the catalogue.',
              [('POST', '/v1/flavors')]),
    base.rule(UPDATE, base.ADMIN,
              'Change a catalogue flavor (slots, limits, window, visibility).',
              [('PATCH', '/v1/flavors/{id}')]),
    base.rule(DELETE, base.ADMIN,
              'Remove a catalogue flavor no reservation references.',
              [('DELETE', '/v1/flavors/{id}')]),
    base.rule(PROJECT_LIST, base.ADMIN,
              'List the projects granted a private flavor.',
              [('GET', '/v1/flavors/{id}/projects')]),
    base.rule(PROJECT_CREATE, base.ADMIN,
              'Grant a project a private flavor.',
              [('POST', '/v1/flavors/{id}/projects')]),
    base.rule(PROJECT_DELETE, base.ADMIN,
              "Revoke a project's grant on a private flavor.",
              [('DELETE', '/v1/flavors/{id}/projects/{project_id}')]),
    base.rule(SPOT_OPT_IN, base.PROJECT_MEMBER_OR_ADMIN,
              'Opt the project in to a spot flavor it may see, or out of '
              'it: the projects that opted in may boot its nova flavor. '
              'Naming another project (?project_id=) needs the rule on '
              'that project.',
              [('POST', '/v1/flavors/{id}/opt-in'),
               ('DELETE', '/v1/flavors/{id}/opt-in')]),
]


def list_rules():
    return rules
