"""The GPU device API tests' fixture: the API of api_fixtures with
the real lease manager answering its RPC calls (on the fake transport)
and owning libvirt test:/// hosts, private copies of
etc/reserve/gpu-hosts completed by reserve_fakes.libvirt_host.

The API's casts to the worker are recorded (``gpu_api.casts``);
``gpu_api.work()`` delivers them to an in-process worker that calls the
manager without the RPC hop, and ``gpu_api.tick()`` does that, then runs
the due events, as the manager's event loop would.
"""
import pathlib
import shutil
import uuid

from oslo_config import cfg
from reserve.common import rpc
from reserve.manager import events
from reserve.manager import manager
from reserve.manager import notify
from reserve import plugins
from reserve.virt import host_definitions
from reserve.worker import rpcapi as worker_rpcapi
from reserve.worker import worker
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import ADMIN
from tests.functional.devices import gpu_cloud

CONF = cfg.CONF
DEFINITIONS = gpu_cloud.DEFINITIONS


UNIT_CASTS = ('create_device_lease', 'delete_device_lease')


class GpuApi:
    def __init__(self, app, tmp_path, lease_manager):
        self.app = app
        self.tmp_path = tmp_path
        self.loop = events.EventLoop()
        self.manager = lease_manager
        self.worker = worker.BookingWorker(
            manager_api=gpu_cloud.LocalManagerAPI(lease_manager))
        self.casts = []
        self.uris = []

    def enroll(self, definition='a100-host.xml', name=None,
               owner='project-a', edit=None):
        """Enroll a private copy of a host definition (``edit(text)``
        changes it first), every domain recorded as ``owner``'s (None:
        no owner recorded)."""
        path = self.tmp_path / ('%s-%s' % (uuid.uuid4().hex[:8],
                                           definition))
        shutil.copy(DEFINITIONS / definition, path)
        if edit is not None:
            path.write_text(edit(path.read_text()))
        uri = host_definitions.host_uri(path)
        self.uris.append(uri)
        host = self.app.post_json('/v1/hosts', {
            'name': name or path.stem, 'uri': uri},
            headers=ADMIN).json['host']
        if owner is not None:
            for domain in self.app.get(
                    '/v1/hosts/%s/domains' % host['id'],
                    headers=ADMIN).json['domains']:
                self.own(host, domain['name'], owner)
        return host

    def own(self, host, domain, project):
        """Record ``project`` as the owner of a domain of ``host``
        (recorded or changed)."""
        url = '/v1/hosts/%s/domain-owners' % host['id']
        answer = self.app.post_json(url, {'domain': domain,
                                          'project_id': project},
                                    headers=ADMIN, expect_errors=True)
        if answer.status_int == 409:
            answer = self.app.patch_json('%s/%s' % (url, domain),
                                         {'project_id': project},
                                         headers=ADMIN)
        assert answer.status_int in (200, 201), answer.text
        return answer.json['domain_owner']

    def devices(self, host, headers=ADMIN, **params):
        params = dict(params, host=host['id'])
        return self.app.get('/v1/devices', params,
                            headers=headers).json['devices']

    def device(self, host, pci_address):
        return next(d for d in self.devices(host, include_vfs='true')
                    if d['pci_address'] == pci_address)['id']

    def domain(self, host, name):
        return self.app.get('/v1/hosts/%s/domains/%s' % (host['id'], name),
                            headers=ADMIN).json['domain']

    def work(self):
        """Deliver the casts made so far to the worker; returns them."""
        delivered, self.casts = self.casts, []
        for method, reservation_id in delivered:
            getattr(self.worker, method)(admin_context(), reservation_id)
        return delivered

    def tick(self):
        """The worker, then the manager's event loop."""
        self.work()
        return self.loop.tick()

    def topology_change(self, host, edit):
        path = pathlib.Path(host['uri'][len('test://'):])
        path.write_text(edit(path.read_text()))
        gpu_cloud._forget(host['uri'])


def _recorder(found, method):
    def record(self, context, reservation_id):
        found.casts.append((method, reservation_id))
    return record


def gpu_api_fixture(api, tmp_path, monkeypatch):
    """The body of conftest's gpu_api fixture."""
    CONF.set_override('fake_test_driver', True, group='devices')
    CONF.set_override('minutes_before_end_lease', 0, group='manager')
    notify.reset()
    plugins._PLUGINS.clear()
    lease_manager = manager.LeaseManager()
    server = rpc.get_server(rpc.MANAGER_TOPIC, '1.0', [lease_manager])
    server.start()
    found = GpuApi(api, tmp_path, lease_manager)
    for method in UNIT_CASTS:
        monkeypatch.setattr(worker_rpcapi.WorkerAPI, method,
                            _recorder(found, method))
    yield found
    server.stop()
    server.wait()
    found.loop.stop()
    for uri in found.uris:
        gpu_cloud._forget(uri)
    plugins._PLUGINS.clear()
    notify.reset()
    CONF.clear_override('fake_test_driver', group='devices')
    CONF.clear_override('minutes_before_end_lease', group='manager')
