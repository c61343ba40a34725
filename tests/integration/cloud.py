"""Access to the loopback OpenStack (placement + nova) of tools/cloud/.

``ensure_up()`` brings it up when it is not already answering
(tools/cloud/install.sh, then tools/cloud/up.sh); ``down()`` stops it
(tools/cloud/down.sh).

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
import fcntl
import json
import os
import subprocess
import time
import urllib.error
import urllib.request

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TOOLS_DIR = os.path.join(REPO_ROOT, 'tools', 'cloud')
CLOUD_DIR = os.environ.get('RESERVE_CLOUD_DIR', '/var/tmp/reserve-cloud')

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


def endpoints():
    """The cloud's endpoints and fixed names, as a dict."""
    return {
        'placement': PLACEMENT_URL,
        'compute': NOVA_URL,
        'glance': GLANCE_URL,
        'neutron': NEUTRON_URL,
        'keystone': KEYSTONE_URL,
        'rabbit': RABBIT_URL,
        'nova_microversion': NOVA_MICROVERSION,
        'placement_microversion': PLACEMENT_MICROVERSION,
        'placement_token': PLACEMENT_ADMIN_TOKEN,
        'image_id': IMAGE_ID,
        'compute_hosts': list(COMPUTE_HOSTS),
        'state_dir': os.path.join(CLOUD_DIR, 'state'),
    }


def _http_json(url, headers=None, timeout=3):
    req = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return json.load(resp)


def is_up():
    """True if placement and nova answer and nova lists both computes up."""
    try:
        _http_json(PLACEMENT_URL + '/')
        hvs = _http_json(NOVA_URL + '/os-hypervisors/detail', headers=dict(
            _identity_headers('admin', 'admin', 'admin'),
            **{'OpenStack-API-Version': 'compute 2.53'}))['hypervisors']
    except (OSError, ValueError, KeyError, urllib.error.URLError):
        return False
    up = {h['hypervisor_hostname'] for h in hvs if h.get('state') == 'up'}
    return set(COMPUTE_HOSTS) <= up


def _run(script, timeout):
    # the caller holds the lock (see _Lock): the scripts must not wait for it
    env = dict(os.environ, RESERVE_CLOUD_DIR=CLOUD_DIR,
               RESERVE_CLOUD_LOCKED='1')
    t0 = time.monotonic()
    proc = subprocess.run(['bash', os.path.join(TOOLS_DIR, script)],
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, env=env,
                          timeout=timeout, cwd='/')
    if proc.returncode != 0:
        raise CloudError('%s failed (exit %d) after %.0f s:\n%s' % (
            script, proc.returncode, time.monotonic() - t0, proc.stdout))
    return proc.stdout


class _Lock(object):
    """Serialise bring-up/tear-down between processes (pytest-xdist, other
    sessions on the machine); the same lock file as tools/cloud/*.sh."""

    def __enter__(self):
        os.makedirs(CLOUD_DIR, exist_ok=True)
        self._fd = os.open(os.path.join(CLOUD_DIR, '.lock'),
                           os.O_CREAT | os.O_RDWR, 0o644)
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)


def ensure_up(install=True, log=None):
    """Make sure the cloud answers; bring it up (from scratch) if it does not.

    Runs tools/cloud/install.sh (unless ``install`` is false; it returns at
    once when the venvs exist) and tools/cloud/up.sh. Returns ``endpoints()``
    plus ``started``: True if this call brought the cloud up. ``log`` is an
    optional callable that receives the scripts' output.
    """
    with _Lock():
        if is_up():
            return dict(endpoints(), started=False)
        if install:
            out = _run('install.sh', timeout=1800)
            if log:
                log(out)
        try:
            out = _run('up.sh', timeout=600)
        except CloudError:
            _run('down.sh', timeout=120)
            raise
        if log:
            log(out)
        if not is_up():
            raise CloudError('up.sh finished but the cloud does not answer')
        return dict(endpoints(), started=True)


def down():
    """Stop what tools/cloud/up.sh started (nothing else)."""
    with _Lock():
        return _run('down.sh', timeout=120)


def _roles(roles):
    if isinstance(roles, str):
        roles = [r.strip() for r in roles.split(',') if r.strip()]
    out = []
    for role in roles:
        for r in _IMPLIED_ROLES.get(role, (role,)):
            if r not in out:
                out.append(r)
    return ','.join(out)


def _identity_headers(project_id, user_id, roles):
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
        additional_headers=_identity_headers(project_id, user_id, roles))


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
