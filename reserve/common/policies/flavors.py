from oslo_policy import policy

from reserve.common.policies import base

PREFIX = 'reserve:flavor:%s'


def _rule(action, check_str, description, operations):
    return policy.DocumentedRuleDefault(
        name=PREFIX % action, check_str=check_str, description=description,
        operations=[{'path': path, 'method': method}
                    for method, path in operations],
        scope_types=['project'])


rules = [
    _rule('list', base.PROJECT_READER_OR_ADMIN,
          'List the catalogue flavors the project may book: the active '
          'ones that are public or granted to it.',
          [('GET', '/v1/flavors')]),
    _rule('get', base.PROJECT_READER_OR_ADMIN,
          'Show a catalogue flavor the project may book.',
          [('GET', '/v1/flavors/{id}')]),
    _rule('list:hidden', base.ADMIN,
          'See every catalogue flavor, inactive or private, whatever its '
          'grants: in lists, shows, free slots and availability, and when '
          'booking (a missing grant is then named as such).',
          [('GET', '/v1/flavors'), ('GET', '/v1/flavors/{id}')]),
    _rule('free_slots', base.PROJECT_READER_OR_ADMIN,
          'List the windows where a booking of a flavor fits.',
          [('GET', '/v1/flavors/{id}/free-slots')]),
    _rule('availability', base.PROJECT_READER_OR_ADMIN,
          'Show how many instances of each flavor are free, now or at '
          'worst over a window.',
          [('GET', '/v1/flavors/availability')]),
    _rule('create', base.ADMIN, 'Add a flavor to the catalogue.',
          [('POST', '/v1/flavors')]),
    _rule('update', base.ADMIN,
          'Change a catalogue flavor (slots, limits, window, visibility).',
          [('PATCH', '/v1/flavors/{id}')]),
    _rule('delete', base.ADMIN,
          'Remove a catalogue flavor no reservation references.',
          [('DELETE', '/v1/flavors/{id}')]),
    _rule('project:list', base.ADMIN,
          'List the projects granted a private flavor.',
          [('GET', '/v1/flavors/{id}/projects')]),
    _rule('project:create', base.ADMIN,
          'Grant a project a private flavor.',
          [('POST', '/v1/flavors/{id}/projects')]),
    _rule('project:delete', base.ADMIN,
          "Revoke a project's grant on a private flavor.",
          [('DELETE', '/v1/flavors/{id}/projects/{project_id}')]),
]


def list_rules():
    return rules
