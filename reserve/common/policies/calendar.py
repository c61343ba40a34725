from reserve.common.policies import base

PREFIX = 'reserve:calendar:%s'
FLAVOR = PREFIX % 'flavor'
HOST = PREFIX % 'host'
# Sees every booking as it is (status, id, project), not as "busy".
ALL_PROJECTS = PREFIX % 'all_projects'

rules = [
    base.rule(FLAVOR, base.PROJECT_READER_OR_ADMIN,
              "Show a catalogue flavor's calendar: its bookings (other "
              "projects' as busy), maintenance windows and free slots.",
              [('GET', '/v1/calendar?flavor_id={id}')]),
    base.rule(HOST, base.PROJECT_READER_OR_ADMIN,
              "Show a host's calendar: what holds its instances or GPU "
              "devices over time (other projects' as busy).",
              [('GET', '/v1/calendar?host_id={id}')]),
    base.rule(ALL_PROJECTS, base.ADMIN,
              "See every project's bookings in a calendar with their "
              "status, id and project.",
              [('GET', '/v1/calendar')]),
]


def list_rules():
    return rules
