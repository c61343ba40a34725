from reserve.common.policies import base

PREFIX = 'reserve:metrics:%s'
GET = PREFIX % 'get'

rules = [
    base.rule(GET, base.ADMIN_OR_SERVICE,
              'Scrape /metrics with a token. A scrape from [metrics] '
              'allowed_source_ranges needs no token and skips this rule.',
              [('GET', '/metrics')]),
]


def list_rules():
    return rules
