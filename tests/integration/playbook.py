"""What the playbook tests make by hand, and how they watch reserve
answer: the daemons configured with short intervals, the diagnosis and
the doctor over the REST API, and a fake nova-compute frozen and thawed.

Every wait says how long it took (``timed``), so that the tests can
print the repair times they measured.
"""
import contextlib
import datetime
import os
import signal
import time

from tests.integration import cloud as cloud_mod
from tests.integration import cloud_lifecycle

# Seconds between two runs of each periodic task of the daemons under
# test: a drift must be gone within two of them.
INTERVAL = 6
EXTRA_CONF = """
[manager]
capacity_refresh_interval = {i}
repair_interval = {i}
health_check_interval = {i}
prestart_check_minutes = 30

[api]
rpc_timeout = 10

[nova]
server_delete_timeout = 8
""".format(i=INTERVAL)
V13 = {'OpenStack-API-Version': 'reserve 1.3'}
# Slack on top of two intervals: the REST round trips and nova's own
# answers (each repair is a few nova and placement calls).
SLACK = 6


def iso(seconds):
    when = datetime.datetime.utcnow() + datetime.timedelta(seconds=seconds)
    return when.replace(microsecond=0).isoformat() + 'Z'


def timed(what, check, timeout, interval=0.25):
    """(check()'s first true answer, seconds it took)."""
    started = time.monotonic()
    value = cloud_mod.wait_for(what, check, timeout, interval)
    return value, time.monotonic() - started


# the REST API at 1.3 ---------------------------------------------------------

def get(daemons, path, project, admin=False):
    if admin:
        resp = daemons.admin('GET', path, headers=V13)
    else:
        resp = daemons.request('GET', path, project=project, headers=V13)
    assert resp.status_code == 200, resp.text
    return resp.json()


def booking(daemons, booking_id, project):
    return get(daemons, '/v1/reservations/%s' % booking_id,
               project)['reservation']


def diagnosis(daemons, booking_id, project):
    return get(daemons, '/v1/reservations/%s/diagnosis' % booking_id,
               project)['diagnosis']


def doctor(daemons):
    """{checked, reservations: [the diagnoses with a mismatch]}"""
    return get(daemons, '/v1/diagnoses', None, admin=True)


def mismatch(daemons, booking_id, project):
    return diagnosis(daemons, booking_id, project)['mismatch']


def named(daemons, booking_id, project, symptom, layer=None):
    """The mismatch when it is ``symptom`` (at ``layer``), else None."""
    found = mismatch(daemons, booking_id, project)
    if found and found['symptom'] == symptom and \
            (layer is None or found['layer'] == layer):
        return found
    return None


def whole(daemons, booking_id, project):
    return mismatch(daemons, booking_id, project) is None


# the cloud, by hand ---------------------------------------------------------

def _pids():
    path = os.path.join(cloud_lifecycle.CLOUD_DIR, 'state', 'run', 'pids')
    with open(path) as f:
        return dict(line.split() for line in f if line.strip())


@contextlib.contextmanager
def frozen_compute(host):
    """nova-compute of ``host`` stopped (SIGSTOP: nova sees its service
    down once its reports stop for service_down_time), and thawed again
    at the end, whatever happened."""
    pid = int(_pids()['nova-compute-%s' % host])
    os.killpg(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.killpg(pid, signal.SIGCONT)


def _first(request, path, key):
    """The first item of list ``key`` of a GET of ``path`` with
    ``request`` (cloud_mod.nova_request or placement_request)."""
    resp = request('GET', path)
    assert resp.status_code == 200, resp.text
    return resp.json()[key][0]


def compute_service(host):
    return _first(cloud_mod.nova_request,
                  '/os-services?binary=nova-compute&host=%s' % host,
                  'services')


def set_compute_enabled(host, enabled):
    service = compute_service(host)
    resp = cloud_mod.nova_request(
        'PUT', '/os-services/%s' % service['id'],
        {'status': 'enabled' if enabled else 'disabled'})
    assert resp.status_code == 200, resp.text


def child_provider(host):
    return _first(cloud_mod.placement_request,
                  '/resource_providers?name=reserve_%s' % host,
                  'resource_providers')


def transcript(label, found):
    """Print what a diagnosis said of a symptom (pytest -s shows it)."""
    print('%s: [%s] %s (%s, by %s)\n    -> %s' % (
        label, found.get('layer'), found['problem'], found['symptom'],
        found['repair'], found['action']))
