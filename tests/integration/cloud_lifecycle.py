"""Bringing the loopback OpenStack (placement + nova) of tools/cloud/ up
and down.

``ensure_up()`` brings it up when it is not already answering
(tools/cloud/install.sh, then tools/cloud/up.sh), or answers with a
configuration older than tools/cloud/etc (``stale_config()``); ``down()``
stops it (tools/cloud/down.sh). How to reach it, and what reserve leaves
in it: tests/integration/cloud.py.

Nothing here imports pytest, so other tools can use it too.
"""
import fcntl
import json
import os
import subprocess
import time
import urllib.error
import urllib.request

from tests.integration import cloud

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TOOLS_DIR = os.path.join(REPO_ROOT, 'tools', 'cloud')
CLOUD_DIR = os.environ.get('RESERVE_CLOUD_DIR', '/var/tmp/reserve-cloud')


def endpoints():
    """The cloud's endpoints and fixed names, as a dict."""
    return {
        'placement': cloud.PLACEMENT_URL,
        'compute': cloud.NOVA_URL,
        'glance': cloud.GLANCE_URL,
        'neutron': cloud.NEUTRON_URL,
        'keystone': cloud.KEYSTONE_URL,
        'rabbit': cloud.RABBIT_URL,
        'nova_microversion': cloud.NOVA_MICROVERSION,
        'placement_microversion': cloud.PLACEMENT_MICROVERSION,
        'placement_token': cloud.PLACEMENT_ADMIN_TOKEN,
        'image_id': cloud.IMAGE_ID,
        'compute_hosts': list(cloud.COMPUTE_HOSTS),
        'state_dir': os.path.join(CLOUD_DIR, 'state'),
    }


def _http_json(url, headers=None, timeout=3):
    req = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return json.load(resp)


def is_up():
    """True if placement and nova answer and nova lists both computes up."""
    try:
        _http_json(cloud.PLACEMENT_URL + '/')
        hvs = _http_json(
            cloud.NOVA_URL + '/os-hypervisors/detail', headers=dict(
                cloud.identity_headers('admin', 'admin', 'admin'),
                **{'OpenStack-API-Version': 'compute 2.53'}))['hypervisors']
    except (OSError, ValueError, KeyError, urllib.error.URLError):
        return False
    up = {h['hypervisor_hostname'] for h in hvs if h.get('state') == 'up'}
    return set(cloud.COMPUTE_HOSTS) <= up


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
        raise cloud.CloudError('%s failed (exit %d) after %.0f s:\n%s' % (
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


# The configuration files up.sh renders (tools/cloud/etc/<template> ->
# state/etc/<file>; compute.conf once per host).
_CONFIGS = (('placement.conf', 'placement.conf', ''),
            ('my.cnf', 'my.cnf', ''),
            ('nova.conf', 'nova/nova.conf', ''),
            ('nova-db.conf', 'nova/nova-db.conf', ''),
            ('nova-api.conf', 'nova/nova-api.conf', '')) + tuple(
    ('compute.conf', 'nova/compute-%s.conf' % host, host)
    for host in cloud.COMPUTE_HOSTS)


def _render(text, debug, host):
    # as up.sh's render(): @STATE@, @DEBUG@ (True with
    # RESERVE_CLOUD_DEBUG=1, else False) and @HOST@ (empty but for the
    # computes)
    state = os.path.join(CLOUD_DIR, 'state')
    return (text.replace('@STATE@', state).replace('@DEBUG@', debug)
            .replace('@HOST@', host))


def stale_config():
    """The configuration files of the running cloud that differ from what
    tools/cloud/up.sh would write now (tools/cloud/etc changed since the
    cloud came up: a new nova option, say); empty when it is current."""
    etc = os.path.join(CLOUD_DIR, 'state', 'etc')
    stale = []
    for template, name, host in _CONFIGS:
        with open(os.path.join(TOOLS_DIR, 'etc', template)) as f:
            text = f.read()
        try:
            with open(os.path.join(etc, name)) as f:
                running = f.read()
        except OSError:
            stale.append('%s (missing)' % name)
            continue
        if running not in (_render(text, 'False', host),
                           _render(text, 'True', host)):
            stale.append(name)
    return stale


def ensure_up(install=True, log=None):
    """Make sure the cloud answers, with the configuration of tools/cloud.

    Brings it up (from scratch) if it does not answer, and again if it
    answers but came up with other configuration files than tools/cloud
    renders now (``stale_config()``: e.g. a nova option added since,
    which the running services would never see). Runs
    tools/cloud/install.sh (unless ``install`` is false; it returns at
    once when the venvs exist) and tools/cloud/up.sh (which tears down
    what runs first). Returns ``endpoints()`` plus ``started``: True if
    this call brought up a cloud that was not running (the caller may
    stop it again), and ``restarted``: the stale files, if this call
    brought up again one that was running (it is left running). ``log``
    is an optional callable that receives the scripts' output.
    """
    with _Lock():
        restarted = []
        if is_up():
            restarted = stale_config()
            if not restarted:
                return dict(endpoints(), started=False, restarted=[])
            if log:
                log('reserve-cloud: the running cloud predates its '
                    'configuration (%s differ from tools/cloud/etc): '
                    'bringing it up again\n' % ', '.join(restarted))
        if install:
            out = _run('install.sh', timeout=1800)
            if log:
                log(out)
        try:
            out = _run('up.sh', timeout=600)
        except cloud.CloudError:
            _run('down.sh', timeout=120)
            raise
        if log:
            log(out)
        if not is_up():
            raise cloud.CloudError(
                'up.sh finished but the cloud does not answer')
        return dict(endpoints(), started=not restarted, restarted=restarted)


def down():
    """Stop what tools/cloud/up.sh started (nothing else)."""
    with _Lock():
        return _run('down.sh', timeout=120)
