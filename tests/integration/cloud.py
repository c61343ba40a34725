"""Access to the loopback OpenStack (placement + nova) of tools/cloud/.

Its addresses and fixed names, and clients for it; bringing it up and
down is tests/integration/cloud_lifecycle.py.

Admin calls without a client library (``nova_request``,
``placement_request``) back the hygiene helpers: ``unfence()`` undoes
reserve's fence of the computes, ``remove_reservation_artefacts()`` what a
lease reservation made, and ``leftovers()`` lists what reserve or a test
left in the cloud (tools/cloud/check_clean.py).

There is no keystone in this cloud:

* nova-api (``NOVA_URL``) runs without authtoken: the caller's identity is
  taken from the ``X-User-Id``, ``X-Project-Id`` and ``X-Roles`` request
  headers, and any X-Auth-Token is ignored. ``nova_client()`` sends those
  headers through a keystoneauth1 session with the ``NoAuth`` plugin.
* placement (``PLACEMENT_URL``) runs with ``auth_strategy = noauth2``: a
  request needs an ``X-Auth-Token`` header; the token ``admin`` acts as user
  ``admin`` in project ``admin`` with the admin role (what nova itself uses).
  With keystoneauth1 that is
  ``keystoneauth1.token_endpoint.Token(PLACEMENT_URL, 'admin')``, in an
  oslo.config ``[placement]`` section ``auth_type = admin_token``,
  ``endpoint = http://127.0.0.1:8778``, ``token = admin``.

Nothing here imports pytest, so other tools can use it too.
"""
import contextlib
import json
import os
import time

PLACEMENT_URL = 'http://127.0.0.1:8778'
NOVA_URL = 'http://127.0.0.1:8774/v2.1'
GLANCE_URL = 'http://127.0.0.1:9292'        # stub (tools/cloud/stubs.py)
NEUTRON_URL = 'http://127.0.0.1:9696'       # stub
KEYSTONE_URL = 'http://127.0.0.1:5001/v3'   # stub: every project exists
RABBIT_URL = 'rabbit://guest:guest@127.0.0.1:5673/'

# Highest compute microversion python-novaclient 18.13 speaks (nova 34 goes
# up to 2.104); placement 16 goes up to 1.39.
NOVA_MICROVERSION = '2.96'
PLACEMENT_MICROVERSION = '1.39'
PLACEMENT_ADMIN_TOKEN = 'admin'

# The one image of the glance stub: boot with image=IMAGE_ID, nics='none'.
IMAGE_ID = 'f0afb3c3-e277-4cdb-a2ac-ca97344a3b8b'
# Fake computes: nova service host == hypervisor_hostname == placement
# resource provider name (the provider uuid is the hypervisor id).
COMPUTE_HOSTS = ('host1', 'host2')

# Keystone would expand a role to the roles it implies; nova's policies expect
# the flattened list.
_IMPLIED_ROLES = {'admin': ('admin', 'member', 'reader'),
                  'member': ('member', 'reader'),
                  'reader': ('reader',)}


def _bypass_proxies():
    """Never send loopback calls (ours, keystoneauth's) to an HTTP proxy."""
    for var in ('no_proxy', 'NO_PROXY'):
        hosts = [h for h in os.environ.get(var, '').split(',') if h]
        for host in ('127.0.0.1', 'localhost'):
            if host not in hosts:
                hosts.append(host)
        os.environ[var] = ','.join(hosts)


_bypass_proxies()


class CloudError(RuntimeError):
    """The loopback cloud could not be brought up (or down)."""


def _roles(roles):
    if isinstance(roles, str):
        roles = [r.strip() for r in roles.split(',') if r.strip()]
    out = []
    for role in roles:
        for r in _IMPLIED_ROLES.get(role, (role,)):
            if r not in out:
                out.append(r)
    return ','.join(out)


def identity_headers(project_id, user_id, roles):
    """The headers nova-api takes the caller's identity from."""
    return {'X-User-Id': user_id, 'X-Project-Id': project_id,
            'X-Roles': _roles(roles)}


def nova_session(project_id, user_id='u', roles='member'):
    """keystoneauth1 Session for nova-api: ``user_id`` in ``project_id``.

    ``roles``: 'admin', 'member' or 'reader' (or a comma-separated string /
    list); implied roles are added as keystone would (admin -> admin,member,
    reader).
    """
    from keystoneauth1 import noauth
    from keystoneauth1 import session
    return session.Session(
        auth=noauth.NoAuth(endpoint=NOVA_URL),
        additional_headers=identity_headers(project_id, user_id, roles))


def nova_client(project_id, user_id='u', roles='member',
                microversion=NOVA_MICROVERSION):
    """python-novaclient Client for ``project_id`` (see ``nova_session``)."""
    from novaclient import client
    return client.Client(microversion,
                         session=nova_session(project_id, user_id, roles))


def placement_session(token=PLACEMENT_ADMIN_TOKEN):
    """keystoneauth1 Session for placement (noauth2: the token is the user)."""
    from keystoneauth1 import session
    from keystoneauth1 import token_endpoint
    return session.Session(auth=token_endpoint.Token(PLACEMENT_URL, token))


def placement_request(method, path, body=None,
                      microversion=PLACEMENT_MICROVERSION,
                      token=PLACEMENT_ADMIN_TOKEN):
    """One placement call; returns the ``requests.Response`` (no raising)."""
    import requests
    headers = {'X-Auth-Token': token, 'Accept': 'application/json',
               'OpenStack-API-Version': 'placement %s' % microversion}
    return requests.request(method, PLACEMENT_URL + path, json=body,
                            headers=headers, timeout=30)


def placement_get(path, microversion=PLACEMENT_MICROVERSION):
    """GET ``path`` from placement as admin; returns the decoded JSON body."""
    resp = placement_request('GET', path, microversion=microversion)
    if resp.status_code != 200:
        raise CloudError('placement GET %s: %d %s' % (
            path, resp.status_code, resp.text))
    return resp.json()


def provider_uuid(name):
    """UUID of the placement resource provider named ``name`` (host2)."""
    rps = placement_get('/resource_providers?name=%s' % name)
    if not rps['resource_providers']:
        raise CloudError('no resource provider named %s' % name)
    return rps['resource_providers'][0]['uuid']


def kept_child_provider(host, suffix):
    """The child provider ``<host>_<suffix>`` of a compute node: found by
    its name, or made. Tests keep such children between runs and empty
    only their inventory (clear_inventory): a nova-compute that cached a
    child of its node fails every build on that node while the child is
    missing from placement, until its cache is refreshed minutes later."""
    name = '%s_%s' % (host, suffix)
    found = placement_get(
        '/resource_providers?name=%s' % name)['resource_providers']
    if found:
        return found[0]
    resp = placement_request('POST', '/resource_providers', {
        'name': name, 'parent_provider_uuid': provider_uuid(host)})
    if resp.status_code != 200:
        raise CloudError('placement POST provider %s: %d %s' % (
            name, resp.status_code, resp.text))
    return resp.json()


@contextlib.contextmanager
def gpu_providers(resource_class, total, suffix):
    """``total`` devices of ``resource_class`` (a custom class of the
    test's own) on a kept child provider ``<host>_<suffix>`` of each
    compute node, as nova reports PCI devices; yields {host: child uuid}.
    The inventory and the class are removed at the end, whatever
    happened."""
    resp = placement_request('PUT', '/resource_classes/%s' % resource_class)
    if resp.status_code not in (201, 204):
        raise CloudError('placement PUT resource class %s: %d %s' % (
            resource_class, resp.status_code, resp.text))
    children = {}
    try:
        for host in COMPUTE_HOSTS:
            child = kept_child_provider(host, suffix)
            children[host] = child['uuid']
            resp = placement_request(
                'PUT', '/resource_providers/%s/inventories' % child['uuid'],
                {'resource_provider_generation': child['generation'],
                 'inventories': {resource_class: {'total': total,
                                                  'max_unit': 1}}})
            if resp.status_code != 200:
                raise CloudError('placement PUT inventory of %s: %d %s' % (
                    child['name'], resp.status_code, resp.text))
        yield children
    finally:
        for uuid in children.values():
            clear_inventory(uuid)
        placement_request('DELETE', '/resource_classes/%s' % resource_class)


def clear_inventory(rp_uuid, timeout=20):
    """Empty a provider's inventory once the servers' allocations on it
    are gone (placement refuses with 409 until then)."""
    deadline = time.monotonic() + timeout
    while True:
        resp = placement_request(
            'DELETE', '/resource_providers/%s/inventories' % rp_uuid)
        if resp.status_code in (204, 404):
            return
        if time.monotonic() > deadline:
            raise CloudError('inventory of %s not emptied: %s' % (
                rp_uuid, resp.text))
        time.sleep(0.2)


def wait_for_server(client, server_id, statuses=('ACTIVE', 'ERROR'),
                    timeout=60):
    """Poll until the server's status is one of ``statuses``; return it."""
    deadline = time.monotonic() + timeout
    while True:
        server = client.servers.get(server_id)
        if server.status in statuses:
            return server
        if time.monotonic() > deadline:
            raise CloudError('server %s still %s after %d s' % (
                server_id, server.status, timeout))
        time.sleep(0.2)


def wait_for_deleted(client, server_ids, timeout=60):
    """Poll until none of ``server_ids`` is found any more."""
    from novaclient import exceptions
    pending = set(server_ids)
    deadline = time.monotonic() + timeout
    while pending:
        for sid in list(pending):
            try:
                client.servers.get(sid)
            except exceptions.NotFound:
                pending.discard(sid)
        if pending and time.monotonic() > deadline:
            raise CloudError('servers not deleted after %d s: %s' % (
                timeout, sorted(pending)))
        if pending:
            time.sleep(0.2)


# Direct admin calls to nova, and what reserve leaves in the cloud --------

# reserve's fence of the reservable hosts ([fence] aggregate and trait,
# their defaults; reserve/fence/fence.py).
FENCE_AGGREGATE = 'reserve-fenced-hosts'
FENCE_TRAIT = 'CUSTOM_RESERVE_FENCED'
# What reserve names after a lease reservation RSV
# (reserve/plugins/flavor_instance.py): flavor reservation:RSV (flavorid
# RSV), aggregate RSV, resource class CUSTOM_RESERVATION_<RSV> with
# inventory on the child providers reserve_<host>.
RESERVATION_FLAVOR_PREFIX = 'reservation:'
RESERVATION_CLASS_PREFIX = 'CUSTOM_RESERVATION_'
RESERVATION_CHILD_PREFIX = 'reserve_'


def nova_request(method, path, body=None, project_id='admin',
                 user_id='admin', roles='admin',
                 microversion=NOVA_MICROVERSION):
    """One nova-api call (``path`` below /v2.1), by default as an admin;
    returns the ``requests.Response`` (no raising)."""
    import requests
    headers = dict(identity_headers(project_id, user_id, roles),
                   **{'Accept': 'application/json',
                      'OpenStack-API-Version': 'compute %s' % microversion})
    return requests.request(method, NOVA_URL + path, json=body,
                            headers=headers, timeout=30)


def nova_get(path):
    """GET ``path`` from nova as admin; returns the decoded JSON body."""
    resp = nova_request('GET', path)
    if resp.status_code != 200:
        raise CloudError('nova GET %s: %d %s' % (path, resp.status_code,
                                                 resp.text))
    return resp.json()


def _ok(resp, what, also=(404,)):
    if resp.status_code >= 400 and resp.status_code not in also:
        raise CloudError('%s: %d %s' % (what, resp.status_code, resp.text))
    return resp


def _aggregates():
    return nova_get('/os-aggregates')['aggregates']


def _remove_aggregate_hosts(aggregate, hosts):
    done = []
    for host in hosts:
        if host in (aggregate.get('hosts') or []):
            _ok(nova_request('POST', '/os-aggregates/%s/action' %
                             aggregate['id'],
                             {'remove_host': {'host': host}}),
                'remove %s from aggregate %s' % (host, aggregate['name']),
                also=(404, 409))
            done.append('%s taken out of aggregate %s' % (
                host, aggregate['name']))
    return done


def _delete_aggregate(aggregate):
    done = _remove_aggregate_hosts(aggregate, aggregate.get('hosts') or [])
    _ok(nova_request('DELETE', '/os-aggregates/%s' % aggregate['id']),
        'delete aggregate %s' % aggregate['name'])
    return done + ['aggregate %s deleted' % aggregate['name']]


def _set_traits(rp_uuid, change):
    """Apply ``change`` (traits -> traits) to the provider's traits,
    again on a generation conflict (nova-compute updates its providers);
    True if they changed."""
    for _ in range(20):
        resp = placement_request('GET', '/resource_providers/%s/traits' %
                                 rp_uuid)
        if resp.status_code == 404:
            return False
        _ok(resp, 'traits of provider %s' % rp_uuid, also=())
        current = resp.json()
        wanted = sorted(change(set(current['traits'])))
        if wanted == sorted(current['traits']):
            return False
        resp = placement_request(
            'PUT', '/resource_providers/%s/traits' % rp_uuid, {
                'traits': wanted, 'resource_provider_generation':
                current['resource_provider_generation']})
        if resp.status_code != 409:
            _ok(resp, 'set the traits of provider %s' % rp_uuid, also=())
            return True
        time.sleep(0.1)
    raise CloudError('traits of provider %s: generation conflicts' %
                     rp_uuid)


def unfence(hosts=COMPUTE_HOSTS, aggregate=FENCE_AGGREGATE,
            trait=FENCE_TRAIT):
    """Undo reserve's fence of ``hosts`` by hand: out of the aggregate
    (deleted once empty), the trait off their compute node providers
    (and the trait itself once no provider has it). For after the reserve
    daemons stopped: they would fence the hosts again. Returns what it
    changed, one line each."""
    done = []
    for found in _aggregates():
        if found['name'] != aggregate:
            continue
        done += _remove_aggregate_hosts(found, hosts)
        left = [h for h in found.get('hosts') or [] if h not in hosts]
        if not left:
            _ok(nova_request('DELETE', '/os-aggregates/%s' % found['id']),
                'delete aggregate %s' % aggregate)
            done.append('aggregate %s deleted' % aggregate)
    for host in hosts:
        rps = placement_get('/resource_providers?name=%s' %
                            host)['resource_providers']
        for rp in rps:
            if _set_traits(rp['uuid'], lambda t: t - {trait}):
                done.append('trait %s removed from %s' % (trait, host))
    if (placement_request('GET', '/traits/%s' % trait).status_code == 204
            and not placement_get('/resource_providers?required=%s' %
                                  trait)['resource_providers'] and
            placement_request('DELETE', '/traits/%s' %
                              trait).status_code == 204):
        done.append('trait %s deleted' % trait)
    return done


def reservation_class(reservation_id):
    """CUSTOM_RESERVATION_<ID>, as reserve names it."""
    return RESERVATION_CLASS_PREFIX + reservation_id.upper().replace(
        '-', '_')


def _reserve_children():
    return [rp for rp in placement_get('/resource_providers')[
        'resource_providers']
        if rp['name'].startswith(RESERVATION_CHILD_PREFIX)]


def remove_reservation_artefacts(reservation_id, timeout=60):
    """Remove by hand what reserve made in the cloud for lease reservation
    ``reservation_id`` (when its lease was not torn down): the servers of
    its flavor, the flavor, the aggregate, the inventory of its resource
    class and the class. Returns what it removed, one line each."""
    done = []
    servers = nova_get('/servers/detail?all_tenants=1&flavor=%s' %
                       reservation_id)['servers']
    for server in servers:
        _ok(nova_request('DELETE', '/servers/%s' % server['id']),
            'delete server %s' % server['id'])
        done.append('server %s deleted' % server['id'])
    deadline = time.monotonic() + timeout
    for server in servers:
        while nova_request('GET', '/servers/%s' %
                           server['id']).status_code != 404:
            if time.monotonic() > deadline:
                raise CloudError('server %s not deleted after %d s' % (
                    server['id'], timeout))
            time.sleep(0.2)
    if nova_request('DELETE', '/flavors/%s' %
                    reservation_id).status_code == 202:
        done.append('flavor %s deleted' % reservation_id)
    for aggregate in _aggregates():
        if aggregate['name'] == reservation_id:
            done += _delete_aggregate(aggregate)
    rc = reservation_class(reservation_id)
    for child in _reserve_children():
        path = '/resource_providers/%s/inventories/%s' % (child['uuid'], rc)
        if placement_request('GET', path).status_code != 200:
            continue
        while True:  # the allocations of deleted servers go shortly after
            resp = placement_request('DELETE', path)
            if resp.status_code in (204, 404):
                break
            if time.monotonic() > deadline:
                raise CloudError('inventory %s of %s not deleted: %s' % (
                    rc, child['name'], resp.text))
            time.sleep(0.2)
        done.append('inventory %s of %s deleted' % (rc, child['name']))
    if placement_request('DELETE', '/resource_classes/%s' %
                         rc).status_code == 204:
        done.append('resource class %s deleted' % rc)
    return done


SPOT_CLASS = 'CUSTOM_RESERVE_SPOT'


def remove_spot_inventory(timeout=60):
    """Remove by hand the spot inventory reserve's spot task set on the
    reserve_* child providers, and the spot class (for after the daemons
    stopped; the test deleted its spot servers). Returns what it
    removed, one line each."""
    done = []
    deadline = time.monotonic() + timeout
    for child in _reserve_children():
        path = '/resource_providers/%s/inventories/%s' % (child['uuid'],
                                                          SPOT_CLASS)
        while placement_request('GET', path).status_code == 200:
            resp = placement_request('DELETE', path)
            if resp.status_code in (204, 404):
                done.append('inventory %s of %s deleted' % (SPOT_CLASS,
                                                            child['name']))
                break
            if time.monotonic() > deadline:  # a spot server still there
                raise CloudError('inventory %s of %s not deleted: %s' % (
                    SPOT_CLASS, child['name'], resp.text))
            time.sleep(0.2)
    if placement_request('DELETE', '/resource_classes/%s' %
                         SPOT_CLASS).status_code == 204:
        done.append('resource class %s deleted' % SPOT_CLASS)
    return done


def leftovers():
    """What reserve (or a test) left in the loopback cloud, one line
    each: reservation:* flavors, aggregates (tools/cloud makes none),
    CUSTOM_RESERVATION_* and the spot resource classes, inventory on
    reserve_* child
    providers, and the fence's trait (CUSTOM_RESERVE_FENCED*) on
    providers or defined. Empty when the cloud is clean."""
    found = []
    for flavor in nova_get('/flavors/detail?is_public=none')['flavors']:
        if flavor['name'].startswith(RESERVATION_FLAVOR_PREFIX):
            found.append('nova flavor %s (%s)' % (flavor['name'],
                                                  flavor['id']))
    for aggregate in _aggregates():
        found.append('nova aggregate %s (hosts: %s; metadata: %s)' % (
            aggregate['name'], ', '.join(aggregate.get('hosts') or []) or
            'none', json.dumps(aggregate.get('metadata') or {},
                               sort_keys=True)))
    for rc in placement_get('/resource_classes')['resource_classes']:
        if rc['name'].startswith(RESERVATION_CLASS_PREFIX) or \
                rc['name'] == SPOT_CLASS:
            found.append('placement resource class %s' % rc['name'])
    for child in _reserve_children():
        inventories = placement_get('/resource_providers/%s/inventories' %
                                    child['uuid'])['inventories']
        for rc, inventory in sorted(inventories.items()):
            found.append('placement inventory %s (total %d) on provider %s'
                         % (rc, inventory['total'], child['name']))
    traits = placement_get('/traits?name=startswith:%s' %
                           FENCE_TRAIT)['traits']
    for trait in sorted(traits):
        holders = placement_get('/resource_providers?required=%s' %
                                trait)['resource_providers']
        found.append('placement trait %s%s' % (trait, (
            ' on providers %s' % ', '.join(sorted(
                rp['name'] for rp in holders))) if holders else
            ' (defined, on no provider)'))
    return found


def wait_for(what, check, timeout=60, interval=0.5):
    """check()'s first true answer, polled every ``interval`` seconds;
    AssertionError naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError('timed out (%d s) waiting for %s' % (
                timeout, what))
        time.sleep(interval)
