from reserve.common.policies import base

PREFIX = 'reserve:report:%s'
DELIVERY = PREFIX % 'delivery'

rules = [
    base.rule(DELIVERY, base.ADMIN_OR_SERVICE,
              'Show what the reservations of a period got: time to usable, '
              'hosts replaced, repairs and missing capacity, per flavor.',
              [('GET', '/v1/reports/delivery')]),
]


def list_rules():
    return rules
