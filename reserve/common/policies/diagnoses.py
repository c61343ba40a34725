from reserve.common.policies import base

LIST = 'reserve:diagnosis:list'

rules = [
    base.admin_rule(LIST, 'GET', '/v1/diagnoses',
                    'Diagnose every live reservation and device reservation '
                    '(the doctor) and list those with a mismatch.'),
]


def list_rules():
    return rules
