from reserve.common.policies import base

PREFIX = 'reserve:host:%s'
CREATE = PREFIX % 'create'
LIST = PREFIX % 'list'
GET = PREFIX % 'get'
UPDATE = PREFIX % 'update'
DELETE = PREFIX % 'delete'
MAINTENANCE_LIST = PREFIX % 'maintenance:list'
MAINTENANCE_CREATE = PREFIX % 'maintenance:create'
MAINTENANCE_DELETE = PREFIX % 'maintenance:delete'
REFRESH = PREFIX % 'refresh'
DOMAIN_LIST = PREFIX % 'domain:list'
DOMAIN_GET = PREFIX % 'domain:get'


rules = [
    base.admin_rule(CREATE, 'POST', '/v1/hosts',
                    'Enroll a nova hypervisor, or a libvirt host by URI.'),
    base.admin_rule(LIST, 'GET', '/v1/hosts', 'List enrolled hosts.'),
    base.admin_rule(GET, 'GET', '/v1/hosts/{id}', 'Show an enrolled host.'),
    base.admin_rule(UPDATE, 'PATCH', '/v1/hosts/{id}',
                    "Change a host's capabilities or reservability (making "
                    'it non-reservable moves the reservations it holds, '
                    'with force).'),
    base.admin_rule(DELETE, 'DELETE', '/v1/hosts/{id}',
                    'Remove a host that holds no allocation.'),
    base.admin_rule(MAINTENANCE_LIST, 'GET',
                    '/v1/hosts/{id}/maintenance-windows',
                    "List a host's maintenance windows."),
    base.admin_rule(MAINTENANCE_CREATE, 'POST',
                    '/v1/hosts/{id}/maintenance-windows',
                    'Take a host out of service for a window (force moves the '
                    'reservations it holds then).'),
    base.admin_rule(MAINTENANCE_DELETE, 'DELETE',
                    '/v1/hosts/{id}/maintenance-windows/{window_id}',
                    "Delete a host's maintenance window."),
    base.admin_rule(REFRESH, 'POST', '/v1/hosts/{id}/refresh',
                    'Read the capacity of a nova host from placement, or '
                    'rediscover the GPUs of a libvirt host, now.'),
    # libvirt hosts
    base.admin_rule(DOMAIN_LIST, 'GET', '/v1/hosts/{id}/domains',
                    'List the domains of a libvirt host with their hostdevs.'),
    base.admin_rule(DOMAIN_GET, 'GET', '/v1/hosts/{id}/domains/{name}',
                    "Show a libvirt host's domain with its XML."),
]


def list_rules():
    return rules
