"""reserve's four daemons as separate processes, for integration tests.

Each run gets its own database (MariaDB or PostgreSQL) and its own
RabbitMQ virtual host, so nothing leaks between runs. The API is served by
gunicorn from reserve.wsgi.api:application, as in production.

In the loopback cloud (tests/integration/cloud.py) the manager fences the
hosts it enrolls, and a lease not torn down keeps its flavor, aggregate and
inventory: once the daemons are stopped, ``stop()`` takes the leases'
leftovers away (with a warning) and unfences the hosts, so that what runs
next (on-demand boots, the quick start) finds the cloud as it was.

With ``gpu_hosts``, the managers reach libvirt test:/// GPU hosts through
one shared test-host server (reserve_fakes.shared_host), started first
and stopped last, so that both see one state of each host.
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
import warnings

import requests
import sqlalchemy as sa

from reserve.virt import host_definitions
from tests.integration import cloud

DAEMONS = ('manager', 'worker', 'notification', 'api')

CONF_TEMPLATE = """[DEFAULT]
host = {host}
transport_url = rabbit://guest:guest@127.0.0.1:5672/{vhost}
debug = True

[database]
connection = {db_url}

[api]
auth_strategy = noauth
host_ip = 127.0.0.1
port = {port}

[manager]
event_interval = 10
minutes_before_end_lease = {before_end}
event_retry_interval = 5

[worker]
reconcile_interval = {reconcile_interval}
pending_create_timeout = {pending_create_timeout}

[nova]
auth_type = none
endpoint = {nova_url}
additional_headers = X-User-Id: reserve
additional_headers = X-Project-Id: reserve-service
additional_headers = X-Roles: admin,member,reader
server_delete_poll_interval = 1
server_delete_timeout = 60

[placement]
auth_type = admin_token
endpoint = {placement_url}
token = admin
"""


GPU_HOSTS_CONF = """
[devices]
fake_test_driver = True
fake_test_driver_socket = {socket}
# Device reservations of seconds, to see them end within a test.
min_duration_seconds = 1
"""


def _bin(name):
    path = os.path.join(os.path.dirname(sys.executable), name)
    return path if os.path.exists(path) else shutil.which(name)


def _free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class LeftoverWarning(UserWarning):
    """A lease's cloud objects outlived the daemons: its test ended before
    the lease was torn down."""


def _rabbitmqctl(*args):
    subprocess.run(['rabbitmqctl', '-q'] + list(args), check=True,
                   capture_output=True, timeout=60)


class ReserveDaemons:
    def __init__(self, db_url, nova_url, placement_url,
                 reconcile_interval=60, pending_create_timeout=120,
                 before_end=0, api_workers=2, extra_conf='',
                 gpu_hosts=False):
        self.api_workers = api_workers
        self.db_url = db_url
        self.nova_url = nova_url
        self.workdir = tempfile.mkdtemp(prefix='reserve-daemons-')
        self.vhost = 'reserve-%s' % uuid.uuid4().hex[:8]
        self.port = _free_port()
        self.url = 'http://127.0.0.1:%d' % self.port
        self.conf = os.path.join(self.workdir, 'reserve.conf')
        with open(self.conf, 'w') as f:
            f.write(CONF_TEMPLATE.format(
                host='itest-%s' % self.vhost, vhost=self.vhost,
                workdir=self.workdir, db_url=db_url, port=self.port,
                nova_url=nova_url, placement_url=placement_url,
                reconcile_interval=reconcile_interval,
                pending_create_timeout=pending_create_timeout,
                before_end=before_end) + extra_conf)
            if gpu_hosts:
                f.write(GPU_HOSTS_CONF.format(socket=self.gpu_socket))
        self.with_gpu_hosts = gpu_hosts
        self.gpu_hosts = None       # the shared GPU host server
        self.procs = {}
        self.started = set()

    @property
    def gpu_socket(self):
        return os.path.join(self.workdir, 'gpu-hosts.sock')

    def gpu_host_uri(self, definition, name):
        """The test:/// URI of host ``name``: a copy of a GPU host
        definition (etc/reserve/gpu-hosts) in this run's directory."""
        path = os.path.join(self.workdir, '%s-%s' % (name, definition))
        if not os.path.exists(path):
            shutil.copy(host_definitions.host_definition(definition), path)
        return host_definitions.host_uri(path)

    def enroll_gpu_host(self, definition, name, owners):
        """Enroll GPU host ``name`` (gpu_host_uri) and give its domains
        their owners (``owners``: (domain, project id) pairs); returns its
        URI."""
        uri = self.gpu_host_uri(definition, name)
        made = self.admin('POST', '/v1/hosts', json={'name': name, 'uri': uri})
        assert made.status_code == 201, made.text
        for domain, project in owners:
            owned = self.admin('POST', '/v1/hosts/%s/domain-owners' % name,
                               json={'domain': domain, 'project_id': project})
            assert owned.status_code == 201, owned.text
        return uri

    def _start_gpu_hosts(self):
        with open(os.path.join(self.workdir, 'gpu-hosts.out'), 'a') as log:
            self.gpu_hosts = subprocess.Popen(
                [sys.executable, '-m', 'reserve_fakes.shared_host',
                 '--socket', self.gpu_socket], stdout=log,
                stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 30
        while not os.path.exists(self.gpu_socket):
            if self.gpu_hosts.poll() is not None or \
                    time.monotonic() > deadline:
                raise RuntimeError('the shared GPU host server did not '
                                   'start; see %s' % self.workdir)
            time.sleep(0.05)

    def start(self, daemons=DAEMONS):
        """Start ``daemons`` (all four by default; the API alone needs no
        nova)."""
        _rabbitmqctl('add_vhost', self.vhost)
        _rabbitmqctl('set_permissions', '-p', self.vhost, 'guest',
                     '.*', '.*', '.*')
        subprocess.run([_bin('reserve-manage'), '--config-file', self.conf,
                        'db', 'sync'], check=True, capture_output=True,
                       cwd=self.workdir)
        if self.with_gpu_hosts:
            self._start_gpu_hosts()
        for name in daemons:
            self.start_daemon(name)
        self.wait_api()
        return self

    def second_conf(self, suffix):
        """A config file like the first, for another daemon of a kind
        that needs a host name of its own (a second manager)."""
        path = os.path.join(self.workdir, 'reserve-%s.conf' % suffix)
        if not os.path.exists(path):
            with open(self.conf) as f:
                text = f.read()
            with open(path, 'w') as f:
                f.write(text.replace('host = itest-%s\n' % self.vhost,
                                     'host = itest-%s-%s\n' % (
                                         self.vhost, suffix), 1))
        return path

    def host_of(self, name):
        """[DEFAULT]host of daemon ``name`` ('manager', 'manager-b')."""
        _, _, suffix = name.partition('-')
        return 'itest-%s%s' % (self.vhost, '-' + suffix if suffix else '')

    def _command(self, name):
        kind, _, suffix = name.partition('-')
        if suffix:
            return [_bin('reserve-%s' % kind), '--config-file',
                    self.second_conf(suffix)]
        if name == 'api':
            return [_bin('gunicorn'), '-b', '127.0.0.1:%d' % self.port,
                    '-w', str(self.api_workers), '--threads', '4',
                    '--timeout', '60',
                    'reserve.wsgi.api:application']
        return [_bin('reserve-%s' % name), '--config-file', self.conf]

    def start_daemon(self, name):
        env = dict(os.environ, RESERVE_CONFIG_FILE=self.conf)
        self.started.add(name)
        # the child keeps its own descriptor of the log
        with open(os.path.join(self.workdir, '%s.out' % name), 'a') as log:
            self.procs[name] = subprocess.Popen(
                self._command(name), stdout=log, stderr=subprocess.STDOUT,
                env=env, cwd=self.workdir, start_new_session=True)

    def kill_daemon(self, name, sig=signal.SIGKILL):
        """Kill a daemon and all its processes (cotyledon forks); a name
        such as 'manager-b' is a second daemon of its kind."""
        proc = self.procs.pop(name)
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass
        proc.wait(30)

    def wait_api(self, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if requests.get(self.url + '/', timeout=2).status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.2)
        raise RuntimeError('reserve-api did not answer; see %s' %
                           self.workdir)

    def logs(self, name):
        with open(os.path.join(self.workdir, '%s.out' % name)) as f:
            return f.read()

    def stop(self):
        """Stop the daemons, then give the loopback cloud back as it was
        (see the module's docstring); raises CloudError at the end if
        that failed."""
        # All at once: each takes seconds to shut down gracefully.
        procs, self.procs = self.procs, {}
        for proc in procs.values():
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for proc in procs.values():
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait(30)
        if self.gpu_hosts is not None:
            self.gpu_hosts.kill()
            self.gpu_hosts.wait(30)
            self.gpu_hosts = None
        error = None
        if 'manager' in self.started and \
                self.nova_url.rstrip('/') == cloud.NOVA_URL:
            try:
                self.clean_cloud()
            except Exception as exc:  # noqa: BLE001 - finish the cleanup
                error = exc
        try:
            _rabbitmqctl('delete_vhost', self.vhost)
        except subprocess.SubprocessError:
            pass
        if not os.environ.get('RESERVE_KEEP_LOGS'):
            shutil.rmtree(self.workdir, ignore_errors=True)
        if error is not None:
            raise cloud.CloudError('the loopback cloud was not cleaned up '
                                   'after the reserve daemons: %r' % error)

    def _untorn_reservations(self):
        """Lease reservations (flavor:instance) whose lease was not torn
        down: ended leases are TERMINATED, deleted ones are gone."""
        engine = sa.create_engine(self.db_url)
        try:
            with engine.connect() as conn:
                return [row[0] for row in conn.execute(sa.text(
                    "SELECT r.id FROM lease_reservations r JOIN leases l "
                    "ON l.id = r.lease_id WHERE r.resource_type = "
                    "'flavor:instance' AND l.status <> 'TERMINATED'"))]
        except sa.exc.SQLAlchemyError:
            return []  # no schema (db sync failed): nothing was made
        finally:
            engine.dispose()

    def clean_cloud(self):
        """After the daemons stopped: remove what leases not torn down
        left in the cloud (warning about it), and unfence the compute
        hosts (the manager fenced them when they were enrolled), even if
        the test failed. Returns what changed, one line each."""
        done = []
        try:
            for rsv_id in self._untorn_reservations():
                removed = cloud.remove_reservation_artefacts(rsv_id)
                if removed:
                    warnings.warn(LeftoverWarning(
                        'reserve daemons stopped with lease reservation %s'
                        ' not torn down; removed by hand: %s' % (
                            rsv_id, '; '.join(removed))))
                done += removed
        finally:
            try:
                done += cloud.remove_spot_inventory()
            finally:
                done += cloud.unfence()  # whatever happened above
        return done

    # the REST API, as a project or as admin -------------------------------

    def request(self, method, path, project='project-a', roles='member,reader',
                user='alice', **kwargs):
        headers = dict(kwargs.pop('headers', None) or {},
                       **{'X-User-Id': user, 'X-Project-Id': project,
                          'X-Roles': roles})
        return requests.request(method, self.url + path, headers=headers,
                                timeout=30, **kwargs)

    def admin(self, method, path, **kwargs):
        return self.request(method, path, project='admin', user='admin',
                            roles='admin,member,reader', **kwargs)

    def enroll_computes(self):
        """Enroll the loopback cloud's computes (so fence them), those
        not enrolled yet."""
        for name in cloud.COMPUTE_HOSTS:
            resp = self.admin('GET', '/v1/hosts/%s' % name)
            if resp.status_code == 404:
                resp = self.admin('POST', '/v1/hosts', json={'name': name})
                assert resp.status_code == 201, resp.text

    def catalogue_flavor(self, nova_flavor_id, slots=4, **values):
        """The booking desk's catalogue entry for a nova flavor (bookings
        name catalogue entries), made on first use."""
        name = values.pop('name', 'desk-%s' % nova_flavor_id)
        resp = self.admin('GET', '/v1/flavors/%s' % name)
        if resp.status_code == 200:
            return resp.json()['flavor']
        body = dict({'name': name, 'nova_flavor_id': nova_flavor_id,
                     'slots': slots}, **values)
        resp = self.admin('POST', '/v1/flavors', json=body)
        assert resp.status_code == 201, resp.text
        return resp.json()['flavor']
