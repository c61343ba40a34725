"""The GPU-device part of a chaos run (tests/integration/chaos.py).

libvirt test:/// GPU hosts of etc/reserve/gpu-hosts (a100 and t4, as
many of each as the profile's ``device_hosts``) are enrolled; both
managers reach them through one shared test-host server
(reserve_fakes.shared_host), so that what one manager attaches the other
sees, as on a real host. Reservations of one or two whole GPUs (with a
domain to attach them to) and of one vGPU (an mdev created at start)
come in while the daemons are killed. The hosts are small (two or three
free devices each): many requests are refused (409), as they should be.

A 201 is a claim (``pending``, no lease yet): the worker has the manager
build its lease, and the lease's start attaches. A killed worker or a
lost cast delays that by up to [worker]pending_create_timeout plus one
reconcile interval (the device reconciler casts it again), which the grace
after the last end covers; nothing here may expect a reservation to be
attached, or to have a lease, right after its 201.

The checker's lines, each of which should be 0:

* ``device reservations lost``: accepted (201) and then unknown;
* ``device reservations stuck``: still pending, active or needs-review
  once their end is 60 s past;
* ``devices assigned twice``: samples where a GPU or an mdev was held by
  two domains of a host at once (read from libvirt in one go), or a
  whole GPU by two active reservations (read from the database);
* ``libvirt artefacts left``: hostdevs and mdevs on the hosts at the end
  that were not there before the run.
"""
import collections
import datetime
import time

import libvirt
import requests
import sqlalchemy as sa

from reserve_fakes import shared_host


def gpu_hosts(per_kind):
    """The run's GPU hosts, ``per_kind`` of each kind (whole A100s, T4
    vGPUs), as (name, definition, domains to attach to, mdev type or
    None for whole GPUs). Each has two or three devices free."""
    return tuple(
        [('chaos-a100-%d' % i, 'a100-host.xml', ('gpu-vm-2', 'gpu-vm-3'),
          None) for i in range(1, per_kind + 1)] +
        [('chaos-t4-%d' % i, 't4-host.xml', ('vgpu-vm-2', 'vgpu-vm-3'),
          'nvidia-222') for i in range(1, per_kind + 1)])


LIVE = ('pending', 'active', 'needs-review')
URL = '/v1/device-reservations'


def _iso(when):
    return when.replace(microsecond=0).isoformat() + 'Z'


def _utcnow():
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def answered(send, count_503, idempotent=False, tries=10):
    """send() (a response, or None when none came) as a client would
    retry it: after a 503's Retry-After (the database or the manager
    away: nothing was written), and, for an idempotent call, after no
    answer at all. Returns the last response or None."""
    resp = None
    for _ in range(tries):
        resp = send()
        if resp is None:
            if not idempotent:
                return None
            time.sleep(2)
        elif resp.status_code == 503:
            count_503()
            time.sleep(int(resp.headers.get('Retry-After') or 5))
        else:
            return resp
    return resp


class DeviceLoad:
    def __init__(self, daemons, profile, rng, project, log=print):
        self.daemons, self.profile = daemons, profile
        self.hosts = gpu_hosts(profile.device_hosts)
        self.random, self.project, self.log = rng, project, log
        self.uris = {}              # host name -> URI
        self.baseline = {}          # host name -> (holders, mdevs)
        self.booked = {}            # id -> (start, end)
        self.cancelled = set()
        self.refused = collections.Counter()
        self.refusals = {}          # 'host: code' -> the first message
        self.unanswered = 0
        self.api_5xx = 0
        self.api_503 = 0
        self.twice = 0

    # the hosts, as libvirt has them
    def _host_state(self, name):
        conn = shared_host.RemoteConnect(self.daemons.gpu_socket,
                                         self.uris[name])
        try:
            holders = conn.holders()
            mdevs = sorted(dev.name() for dev in conn.listAllDevices(
                libvirt.VIR_CONNECT_LIST_NODE_DEVICES_CAP_MDEV))
        finally:
            conn.close()
        return holders, mdevs

    def enroll(self):
        for name, definition, domains, _ in self.hosts:
            uri = self.daemons.gpu_host_uri(definition, name)
            self.uris[name] = uri
            for _ in range(10):
                resp = self.daemons.admin('POST', '/v1/hosts',
                                          json={'name': name, 'uri': uri})
                if resp.status_code in (201, 409):
                    break
                time.sleep(1)
            else:
                raise AssertionError('%s not enrolled: %s' % (name,
                                                              resp.text))
            # The load's project owns the domains it names.
            for domain in domains:
                resp = self.daemons.admin(
                    'POST', '/v1/hosts/%s/domain-owners' % name,
                    json={'domain': domain, 'project_id': self.project})
                assert resp.status_code in (201, 409), resp.text
            self.baseline[name] = self._host_state(name)

    # load
    def _request(self, method, path, **kwargs):
        try:
            return self.daemons.request(method, path, project=self.project,
                                        **kwargs)
        except requests.RequestException:
            return None

    def reserve_one(self, lock):
        name, _, domains, mdev_type = self.random.choice(self.hosts)
        start = _utcnow() + datetime.timedelta(
            seconds=self.random.uniform(*self.profile.start_within))
        end = start + datetime.timedelta(
            seconds=self.random.uniform(*self.profile.device_length))
        two = not mdev_type and self.random.random() < 0.25
        body = {'host': name, 'domains': [self.random.choice(domains)],
                'start': _iso(start), 'end': _iso(end),
                'count': 2 if two else 1}
        if mdev_type:
            body['mdev_type'] = mdev_type
        resp = answered(lambda: self._request('POST', URL, json=body),
                        lambda: self._count_503(lock))
        with lock:
            if resp is None:
                self.unanswered += 1
            elif resp.status_code == 201:
                rsv_id = resp.json()['device_reservation']['id']
                self.booked[rsv_id] = (start, end)
                if self.random.random() < self.profile.cancel_share:
                    return rsv_id       # the caller cancels it later
            elif resp.status_code >= 500:
                self.api_5xx += 1
                self.log('API %d on a device reservation: %s' % (
                    resp.status_code, resp.text[:200]))
            else:
                error = resp.json()['errors'][0]
                self.refused[error['code']] += 1
                self.refusals.setdefault('%s: %s' % (name, error['code']),
                                         error['detail'][:300])
        return None

    def _count_503(self, lock):
        with lock:
            self.api_503 += 1

    def cancel(self, rsv_id, lock):
        resp = answered(
            lambda: self._request('DELETE', '%s/%s' % (URL, rsv_id)),
            lambda: self._count_503(lock), idempotent=True)
        if resp is None or resp.status_code == 503:
            return
        with lock:
            if resp.status_code >= 500:
                self.api_5xx += 1
            if resp.status_code in (204, 404, 409):
                self.cancelled.add(rsv_id)

    # invariants
    def sample(self, engine):
        """Count the devices held twice now (libvirt, then the database)."""
        found = []
        for name in self.uris:
            try:
                holders, _ = self._host_state(name)
            except libvirt.libvirtError:
                continue
            found += ['%s: %s %s held by %s' % (name, kind, dev,
                                                ', '.join(domains))
                      for (kind, dev), domains in holders.items()
                      if len(domains) > 1]
        with engine.connect() as conn:
            found += ['device %s in active reservations %s' % (
                row.device_id, row.ids) for row in conn.execute(sa.text(
                    "SELECT u.device_id, COUNT(*) AS n, MIN(r.id) AS ids "
                    "FROM device_reservation_devices u JOIN "
                    "device_reservations r ON r.id = u.reservation_id "
                    "WHERE r.status = 'active' AND r.mdev_type IS NULL "
                    "GROUP BY u.device_id HAVING COUNT(*) > 1"))]
        if found:
            self.log('devices assigned twice: %s' % found)
            self.twice += len(found)

    def last_end(self):
        return max((end for _, end in self.booked.values()), default=None)

    def _status(self, rsv_id):
        resp = self.daemons.request('GET', '%s/%s' % (URL, rsv_id),
                                    project=self.project)
        if resp.status_code == 404:
            return None
        return resp.json()['device_reservation']

    def check(self, deadline):
        while True:
            views = {r: self._status(r) for r in self.booked}
            open_ = [r for r, v in views.items()
                     if v is not None and v['status'] in LIVE]
            if not open_ or time.monotonic() > deadline:
                break
            time.sleep(2)
        lost = [r for r, v in views.items()
                if v is None and r not in self.cancelled]
        left = []
        for name, (holders, mdevs) in self.baseline.items():
            now_holders, now_mdevs = self._host_state(name)
            for key in set(holders) | set(now_holders):
                if holders.get(key) != now_holders.get(key):
                    left.append('%s: %s %s held by %s (before the run: '
                                '%s)' % (name, key[0], key[1],
                                         now_holders.get(key),
                                         holders.get(key)))
            left += ['%s: mdev %s' % (name, mdev)
                     for mdev in set(now_mdevs) - set(mdevs)]
        return {
            'device reservations accepted': len(self.booked),
            'device reservations refused': dict(self.refused),
            'device refusals, first of each': self.refusals,
            'device reservations cancelled': len(self.cancelled),
            'device POSTs unanswered': self.unanswered,
            'device reservations lost': len(lost),
            'device reservations stuck': len(open_),
            'devices assigned twice': self.twice,
            'libvirt artefacts left': len(left),
            'libvirt artefacts': left,
        }
