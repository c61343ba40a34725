from reserve.common.policies import base

PREFIX = 'reserve:offer:%s'
SEARCH = PREFIX % 'search'

rules = [
    base.rule(SEARCH, base.PROJECT_READER_OR_ADMIN,
              'Search offers: windows of a flavor, over a range of starts, '
              'that a booking of the asked shape would be admitted in now, '
              'stored for the project to book as is for a few minutes '
              '([booking] offer_hold_seconds; they hold no capacity). '
              'Booking one is reserve:reservation:create.',
              [('GET', '/v1/offers')]),
]


def list_rules():
    return rules
