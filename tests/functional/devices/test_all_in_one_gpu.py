"""The quick start's GPU story, as reserve-all-in-one runs it: the
embedded test:/// GPU hosts enrolled at start-up, the four services in
one process over the in-memory bus, the real WSGI stack. A newcomer
reserves GPU devices, watches the reservation go active and sees the
hostdev in the domain XML; a restart enrolls nothing twice and gives the
active reservation its hostdev back."""
import datetime
import time

from oslo_config import cfg
import pytest
import webtest

from reserve.api import app as api_app
from reserve.cmd import all_in_one
from reserve.common import context as reserve_context
from reserve.common import policy
from reserve.common import rpc
from reserve.common import timeutils
from reserve.devices import embedded
from reserve.manager import notify
from reserve.manager import service as manager_service
from reserve.notification import service as notification_service
from reserve.notification import sync
from reserve import plugins
from reserve.virt import host_definitions
from reserve.worker import service as worker_service
from tests.fixtures import database
from tests.functional.devices import gpu_cloud

CONF = cfg.CONF
URIS = [host_definitions.host_uri(host_definitions.host_definition(definition))
        for definition in all_in_one.EMBEDDED_GPU_HOSTS.values()]


def _forget_hosts():
    """A new process: the test:/// hosts start from their files again."""
    for uri in URIS:
        gpu_cloud._forget(uri)


class AllInOne:
    def __init__(self):
        self.services = []

    def start(self):
        """What reserve-all-in-one's main does after its migrations."""
        rpc.cleanup()
        notify.reset()
        sync._NOTIFIER = None
        plugins._PLUGINS.clear()
        enrolled = embedded.enroll_hosts(
            reserve_context.get_admin_context())
        self.services = [manager_service.ManagerService(),
                         worker_service.WorkerService(),
                         notification_service.NotificationService()]
        for service in self.services:
            service.start()
        return enrolled

    def stop(self):
        for service in reversed(self.services):
            service.stop()
        rpc.cleanup()
        _forget_hosts()


@pytest.fixture
def aio(tmp_path):
    CONF([], project='reserve', default_config_files=[])
    policy.reset()
    overrides = [('transport_url', 'kombu+memory:////', None),
                 ('auth_strategy', 'noauth', 'api'),
                 ('fake_test_driver', True, 'devices'),
                 ('embedded_gpu_hosts', all_in_one.EMBEDDED_GPU_HOSTS,
                  'devices'),
                 ('minutes_before_end_lease', 0, 'manager'),
                 # Reservations of seconds, to watch one end.
                 ('min_duration_seconds', 1, 'devices')]
    for name, value, group in overrides:
        CONF.set_override(name, value, group=group)
    database.use_database('sqlite:///%s' % (tmp_path / 'aio.sqlite'))
    _forget_hosts()
    found = AllInOne()
    try:
        yield found
    finally:
        found.stop()
        plugins._PLUGINS.clear()
        for name, _, group in overrides:
            CONF.clear_override(name, group=group)


def _iso(seconds):
    return timeutils.isoformat(timeutils.utcnow() +
                               datetime.timedelta(seconds=seconds))


def _wait(app, rsv_id, wanted, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rsv = app.get('/v1/device-reservations/%s' % rsv_id).json[
            'device_reservation']
        if wanted(rsv):
            return rsv
        time.sleep(0.1)
    raise AssertionError('device reservation %s: %s' % (rsv_id, rsv))


def _hostdevs(app, host_id, domain):
    return app.get('/v1/hosts/%s/domains/%s' % (host_id, domain)).json[
        'domain']


def test_a_newcomer_reserves_gpus_with_no_cloud(aio):
    assert aio.start() == ['gpu-a100-01', 'gpu-t4-01']
    # noauth: a bare client is the development admin.
    app = webtest.TestApp(api_app.setup_app(),
                          extra_environ={'REMOTE_ADDR': '127.0.0.1'})
    hosts = {h['name']: h for h in app.get('/v1/hosts').json['hosts']}
    assert sorted(hosts) == ['gpu-a100-01', 'gpu-t4-01']
    assert {h['kind'] for h in hosts.values()} == {'libvirt'}
    a100 = hosts['gpu-a100-01']
    # Four A100s; the virtual functions of 0000:31:00.0 are listed under
    # it, as rows only when asked for.
    assert len(app.get('/v1/devices', {'host': 'gpu-a100-01'}).json[
        'devices']) == 4
    assert len(app.get('/v1/devices', {
        'host': 'gpu-a100-01', 'include_vfs': 'true'}).json['devices']) == 8

    # A whole A100 for gpu-vm-2, starting in a moment.
    rsv = app.post_json('/v1/device-reservations', {
        'count': 1, 'model': 'A100 SXM4 80GB', 'host': 'gpu-a100-01',
        'domains': ['gpu-vm-2'], 'start': _iso(2), 'end': _iso(6)}).json[
        'device_reservation']
    assert rsv['status'] == 'pending'
    assert _hostdevs(app, a100['id'], 'gpu-vm-2')['hostdevs'] == []
    active = _wait(app, rsv['id'], lambda r: r['status'] == 'active')
    pci = active['units'][0]['pci_address']
    domain = _hostdevs(app, a100['id'], 'gpu-vm-2')
    assert domain['hostdevs'] == [{'kind': 'pci', 'id': pci, 'live': True,
                                   'config': True}]
    assert "bus=\"0x%s\"" % pci[5:7] in domain['xml'] or \
        "bus='0x%s'" % pci[5:7] in domain['xml']
    # Its end detaches the device; the VM keeps running.
    _wait(app, rsv['id'], lambda r: r['status'] == 'expired')
    domain = _hostdevs(app, a100['id'], 'gpu-vm-2')
    assert domain['running'] and domain['hostdevs'] == []

    # A vGPU slice, open-ended, attached at once.
    t4 = hosts['gpu-t4-01']
    vgpu = app.post_json('/v1/device-reservations', {
        'count': 1, 'model': 'Tesla T4', 'mdev_type': 'nvidia-222',
        'domains': ['vgpu-vm-2']}).json['device_reservation']
    assert vgpu['end'] is None
    vgpu = _wait(app, vgpu['id'], lambda r: r['status'] == 'active')
    uuid = vgpu['attachments'][0]['mdev_uuid']
    assert _hostdevs(app, t4['id'], 'vgpu-vm-2')['hostdevs'][0]['id'] == \
        uuid

    # A restart: nothing enrolled twice, the slice given back.
    aio.stop()
    assert aio.start() == ['gpu-a100-01', 'gpu-t4-01']
    app = webtest.TestApp(api_app.setup_app(),
                          extra_environ={'REMOTE_ADDR': '127.0.0.1'})
    assert len(app.get('/v1/hosts').json['hosts']) == 2
    assert _hostdevs(app, t4['id'], 'vgpu-vm-2')['hostdevs'] == [
        {'kind': 'mdev', 'id': uuid, 'live': True, 'config': True}]

    # Cancelled, everything goes back.
    app.delete('/v1/device-reservations/%s' % vgpu['id'])
    _wait(app, vgpu['id'], lambda r: r['released_at'] is not None)
    assert _hostdevs(app, t4['id'], 'vgpu-vm-2')['hostdevs'] == []
    assert uuid not in [m['uuid'] for d in app.get(
        '/v1/devices', {'host': 'gpu-t4-01'}).json['devices']
        for m in d['mdevs']]


def test_the_quick_starts_domains_are_the_noauth_projects(aio):
    """The README's first hour: the noauth project reserves two
    NUMA-local A100s for gpu-vm-2; another project naming gpu-vm-2 is
    told it does not exist, as for a domain no host has."""
    assert aio.start() == ['gpu-a100-01', 'gpu-t4-01']
    app = webtest.TestApp(api_app.setup_app(),
                          extra_environ={'REMOTE_ADDR': '127.0.0.1'})
    a100 = app.get('/v1/hosts/gpu-a100-01').json['host']
    owners = app.get('/v1/hosts/gpu-a100-01/domain-owners').json[
        'domain_owners']
    assert {o['domain']: o['project_id'] for o in owners} == dict.fromkeys(
        ('gpu-vm-1', 'gpu-vm-2', 'gpu-vm-3', 'transient-vm'),
        'noauth-project')
    # A member of the noauth project (not only its admin) may name it.
    body = {'count': 2, 'model': 'A100 SXM4 80GB', 'numa_local': True,
            'domains': ['gpu-vm-2']}
    member = {'X-Project-Id': 'noauth-project', 'X-Roles': 'member,reader'}
    rsv = app.post_json('/v1/device-reservations', body,
                        headers=member).json['device_reservation']
    _wait(app, rsv['id'], lambda r: r['status'] == 'active')
    assert len(_hostdevs(app, a100['id'], 'gpu-vm-2')['hostdevs']) == 2
    other = {'X-Project-Id': 'other-project', 'X-Roles': 'member,reader'}
    answers = [app.post_json('/v1/device-reservations',
                             dict(body, count=1, domains=[name]),
                             headers=other, status=400).json['errors'][0]
               for name in ('gpu-vm-2', 'no-such-vm')]
    assert {a['code'] for a in answers} == {'reserve.domain_not_found'}
    assert answers[0]['detail'].replace('gpu-vm-2', 'X') == \
        answers[1]['detail'].replace('no-such-vm', 'X')
    # An administrator's change of a record survives a restart.
    app.patch_json('/v1/hosts/gpu-a100-01/domain-owners/gpu-vm-3',
                   {'project_id': 'other-project'})
    aio.stop()
    aio.start()
    app = webtest.TestApp(api_app.setup_app(),
                          extra_environ={'REMOTE_ADDR': '127.0.0.1'})
    assert app.get('/v1/hosts/gpu-a100-01/domain-owners/gpu-vm-3').json[
        'domain_owner']['project_id'] == 'other-project'
    app.delete('/v1/device-reservations/%s' % rsv['id'])
    _wait(app, rsv['id'], lambda r: r['released_at'] is not None)
