"""The owners administrators record for domains of libvirt hosts not run
by nova (/v1/hosts/{id}/domain-owners; see reserve.devices.owners)."""
from reserve.common.policies import base

PREFIX = 'reserve:host:domain_owner:%s'
LIST = PREFIX % 'list'
GET = PREFIX % 'get'
CREATE = PREFIX % 'create'
UPDATE = PREFIX % 'update'
DELETE = PREFIX % 'delete'
PATH = '/v1/hosts/{id}/domain-owners'


rules = [
    base.admin_rule(LIST, 'GET', PATH,
                    "List the owners recorded for a libvirt host's domains."),
    base.admin_rule(GET, 'GET', PATH + '/{domain}',
                    "Show the owner recorded for a libvirt host's domain."),
    base.admin_rule(CREATE, 'POST', PATH,
                    'Record the project that owns a domain of a libvirt host '
                    'not run by nova: devices of its reservations may go into '
                    'it.'),
    base.admin_rule(UPDATE, 'PATCH', PATH + '/{domain}',
                    "Change a domain's recorded owner."),
    base.admin_rule(DELETE, 'DELETE', PATH + '/{domain}',
                    "Forget a domain's owner: only administrators' "
                    'reservations may then hand it devices.'),
]


def list_rules():
    return rules
