from oslo_policy import policy

from reserve.common.policies import base

PREFIX = 'reserve:host:%s'


def _rule(action, method, path, description):
    return policy.DocumentedRuleDefault(
        name=PREFIX % action, check_str=base.ADMIN,
        description=description,
        operations=[{'path': path, 'method': method}],
        scope_types=['project'])


rules = [
    _rule('create', 'POST', '/v1/hosts',
          'Enroll a nova hypervisor, or a libvirt host by URI.'),
    _rule('list', 'GET', '/v1/hosts', 'List enrolled hosts.'),
    _rule('get', 'GET', '/v1/hosts/{id}', 'Show an enrolled host.'),
    _rule('update', 'PATCH', '/v1/hosts/{id}',
          "Change a host's capabilities or reservability (making it "
          "non-reservable moves the reservations it holds, with force)."),
    _rule('delete', 'DELETE', '/v1/hosts/{id}',
          'Remove a host that holds no allocation.'),
    _rule('maintenance:list', 'GET', '/v1/hosts/{id}/maintenance-windows',
          "List a host's maintenance windows."),
    _rule('maintenance:create', 'POST',
          '/v1/hosts/{id}/maintenance-windows',
          'Take a host out of service for a window (force moves the '
          'reservations it holds then).'),
    _rule('maintenance:delete', 'DELETE',
          '/v1/hosts/{id}/maintenance-windows/{window_id}',
          "Delete a host's maintenance window."),
    _rule('refresh', 'POST', '/v1/hosts/{id}/refresh',
          'Read the capacity of a nova host from placement, or '
          'rediscover the GPUs of a libvirt host, now.'),
    # libvirt hosts
    _rule('domain:list', 'GET', '/v1/hosts/{id}/domains',
          'List the domains of a libvirt host with their hostdevs.'),
    _rule('domain:get', 'GET', '/v1/hosts/{id}/domains/{name}',
          "Show a libvirt host's domain with its XML."),
]


def list_rules():
    return rules
