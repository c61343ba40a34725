"""A chaos run: bookings through two of each daemon while daemons are
killed, the broker and the database restart and nova and placement fail
a share of their calls; then an invariant checker says what broke.

The deployment is tests/integration/reserve_daemons.py's, against the
loopback nova and placement (tools/cloud/), with a second manager,
worker and notification daemon, and a fault-injecting proxy in front of
nova and placement. tools/chaos.py runs the long profile; the test run
has a short one (tests/integration/test_chaos.py).

The checker's lines, each of which should be 0:

* ``bookings lost``: accepted (201) and then unknown to the API;
* ``bookings stuck``: not final (COMPLETE, ERROR, cancelled) once their
  end is past by the grace (the retries of an event failing calls);
* ``bookings in ERROR``: reported apart (a fault that outlasted the
  retries), with their reasons;
* ``overbooked instants``: samples where the allocations on a host held more
  than its capacity;
* ``events run twice``: events finished more than once (manager logs);
* ``leases not ended``: leases still neither TERMINATED nor gone (a
  cancelled booking's answer is at once, its teardown later);
* ``artefacts left``: reserve's objects left in nova and placement
  once every lease ended (an end that could not finish leaves its
  objects to the repair task's sweep, so the check waits for it);
* ``API 5xx``: answers of 500 and up but 503, which the API gives
  while the database is away (counted apart; the client tries again);
* the device reservations' lines (tests/integration/chaos_devices.py).

Start and end lateness (when an event finished, against its time) are
printed as p50 / p99 / max.
"""
import collections
import dataclasses
import datetime
import random
import signal
import threading
import time
import uuid

import requests
import sqlalchemy as sa

from tests.integration import chaos_checks
from tests.integration import chaos_faults
from tests.integration import chaos_devices
from tests.integration import cloud
from tests.integration import reserve_daemons

DAEMONS = ('api', 'manager', 'manager-b', 'worker', 'worker-b',
           'notification', 'notification-b')
FINAL = ('COMPLETE', 'ERROR')
# Seconds between the managers' repair runs (the sweep of leftovers).
REPAIR_INTERVAL = 10
# The checker's lines that must be 0.
MUST_BE_ZERO = ('bookings lost', 'bookings stuck', 'overbooked instants',
                'events run twice', 'leases not ended', 'artefacts left',
                'API 5xx',
                'device reservations lost', 'device reservations stuck',
                'devices assigned twice', 'libvirt artefacts left')


@dataclasses.dataclass
class Profile:
    bookings: int = 500
    device_reservations: int = 200    # of GPU devices, over the same time
    load_seconds: float = 600       # bookings are made over this long
    start_within: tuple = (5, 90)   # seconds from when it is made
    length: tuple = (10, 180)       # seconds
    device_length: tuple = (5, 60)    # seconds, of a device reservation
    device_hosts: int = 4             # libvirt GPU hosts of each kind
    cancel_share: float = 0.1
    kill_every: tuple = (20, 40)    # seconds between two kills
    broker_restarts: int = 2
    database_restarts: int = 1
    fault_rate: float = 0.05        # of nova and placement calls
    hang_seconds: float = 12        # a "timed out" call hangs this long
    # After the last end: an event's retries (event_retry_interval 5 s,
    # and a call that hangs runs into [nova]/[placement]timeout 10 s)
    # may take that long when 5% of the calls fail, each attempt making
    # some twenty of them.
    grace: float = 150


SHORT = Profile(bookings=40, device_reservations=20, load_seconds=60,
                start_within=(5, 40), length=(10, 40), device_length=(5, 20),
                device_hosts=2,
                kill_every=(8, 15),
                broker_restarts=1, database_restarts=0)


# The run ---------------------------------------------------------------------

def _iso(when):
    return when.replace(microsecond=0).isoformat() + 'Z'


def _utcnow():
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


class Chaos:
    def __init__(self, daemons, flavor_id, profile, seed=0, log=print):
        self.daemons, self.profile, self.log = daemons, profile, log
        self.flavor_id = flavor_id
        self.random = random.Random(seed)
        self.project = 'chaos-%s' % uuid.uuid4().hex[:6]
        self.booked = {}        # id -> (start, end)
        self.cancelled = set()
        self.unanswered = 0     # POSTs whose answer was lost
        self.refused = collections.Counter()
        self.api_5xx = 0        # answers other than 503
        self.api_503 = 0        # the database away: tried again
        self.kills = collections.Counter()
        self.restarts = collections.Counter()
        self.overbooked = 0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self.devices = chaos_devices.DeviceLoad(
            daemons, profile, random.Random(seed + 1),
            'chaos-devices-%s' % uuid.uuid4().hex[:6], log=log)

    # load
    def _request(self, method, path, **kwargs):
        try:
            return self.daemons.request(method, path, project=self.project,
                                        **kwargs)
        except requests.RequestException:
            return None

    def _count_503(self):
        with self._lock:
            self.api_503 += 1

    def book_one(self):
        now = _utcnow()
        start = now + datetime.timedelta(
            seconds=self.random.uniform(*self.profile.start_within))
        end = start + datetime.timedelta(
            seconds=self.random.uniform(*self.profile.length))
        body = {'flavor_id': self.flavor_id, 'start': _iso(start),
                'end': _iso(end)}
        resp = chaos_devices.answered(
            lambda: self._request('POST', '/v1/reservations', json=body),
            self._count_503)
        with self._lock:
            if resp is None:
                self.unanswered += 1
            elif resp.status_code == 201:
                booking_id = resp.json()['reservation']['id']
                self.booked[booking_id] = (start, end)
                if self.random.random() < self.profile.cancel_share:
                    self._cancel_later(booking_id)
            elif resp.status_code >= 500 and resp.status_code != 503:
                self.api_5xx += 1
                self.log('API %d: %s' % (resp.status_code, resp.text[:200]))
            else:
                self.refused[resp.json()['errors'][0]['code']] += 1

    def _cancel_later(self, booking_id):
        def cancel():
            resp = chaos_devices.answered(
                lambda: self._request('DELETE',
                                      '/v1/reservations/%s' % booking_id),
                self._count_503, idempotent=True)
            if resp is None or resp.status_code == 503:
                return
            with self._lock:
                if resp.status_code >= 500:
                    self.api_5xx += 1
                if resp.status_code in (204, 404, 409):
                    self.cancelled.add(booking_id)
        timer = threading.Timer(self.random.uniform(1, 30), cancel)
        timer.daemon = True
        timer.start()

    def _load(self):
        gap = self.profile.load_seconds / max(1, self.profile.bookings)
        for _ in range(self.profile.bookings):
            if self._stop.is_set():
                return
            self.book_one()
            self._stop.wait(gap)

    def _device_load(self):
        gap = self.profile.load_seconds / max(
            1, self.profile.device_reservations)
        for _ in range(self.profile.device_reservations):
            if self._stop.is_set():
                return
            to_cancel = self.devices.reserve_one(self._lock)
            if to_cancel:
                timer = threading.Timer(self.random.uniform(1, 30),
                                        self.devices.cancel,
                                        (to_cancel, self._lock))
                timer.daemon = True
                timer.start()
            self._stop.wait(gap)

    # faults
    def _killer(self):
        while not self._stop.wait(self.random.uniform(
                *self.profile.kill_every)):
            name = self.random.choice(DAEMONS)
            self.daemons.kill_daemon(name, signal.SIGKILL)
            self.kills[name] += 1
            self._stop.wait(self.random.uniform(1, 3))
            self.daemons.start_daemon(name)
            if name == 'api':
                self.daemons.wait_api()

    def _outages(self):
        span = self.profile.load_seconds
        plan = ([('broker', t) for t in sorted(self.random.uniform(
            0.2 * span, 0.9 * span) for _ in range(
                self.profile.broker_restarts))] +
                [('database', self.random.uniform(0.3 * span, 0.8 * span))
                 for _ in range(self.profile.database_restarts)])
        began = time.monotonic()
        for what, at in sorted(plan, key=lambda p: p[1]):
            if self._stop.wait(max(0, began + at - time.monotonic())):
                return
            self.log('restarting the %s' % what)
            if what == 'broker':
                chaos_faults.restart_broker()
            else:
                chaos_faults.restart_database(self.daemons.db_url)
            self.restarts[what] += 1

    def _sampler(self):
        engine = sa.create_engine(self.daemons.db_url,
                                  pool_pre_ping=True)
        try:
            while not self._stop.wait(2):
                try:
                    found = chaos_checks.overbooked_now(engine)
                    if self.devices.uris:
                        self.devices.sample(engine)
                except sa.exc.SQLAlchemyError:
                    continue        # the database is restarting
                if found:
                    self.log('overbooked: %s' % found)
                    self.overbooked += len(found)
        finally:
            engine.dispose()

    def run(self):
        if self.profile.device_reservations:
            self.devices.enroll()
        threads = [threading.Thread(target=t, daemon=True) for t in (
            self._killer, self._outages, self._sampler)]
        for thread in threads:
            thread.start()
        devices = threading.Thread(target=self._device_load, daemon=True)
        devices.start()
        try:
            self._load()
            devices.join()
            last_end = max([end for _, end in self.booked.values()] +
                           [self.devices.last_end() or _utcnow()])
            wait = (last_end - _utcnow()).total_seconds()
            self.log('%d bookings and %d device reservations accepted; '
                     'waiting %.0f s for the last to end' % (
                         len(self.booked), len(self.devices.booked),
                         max(0, wait)))
            self._stop.wait(max(0, wait))
        finally:
            self._stop.set()
            for thread in threads:
                thread.join(180)
        for name in DAEMONS:        # whatever a late kill left down
            if name not in self.daemons.procs:
                self.daemons.start_daemon(name)
        self.daemons.wait_api()
        return self.check()

    # the checker
    def _status(self, booking_id):
        resp = self.daemons.request('GET', '/v1/reservations/%s' %
                                    booking_id, project=self.project)
        if resp.status_code == 404:
            return None
        return resp.json()['reservation']

    @staticmethod
    def _artefacts():
        """Reserve's objects in the cloud but the fence's own."""
        return [line for line in cloud.leftovers()
                if 'RESERVE_FENCED' not in line and
                'reserve-fenced-hosts' not in line]

    def check(self):
        deadline = time.monotonic() + self.profile.grace
        while True:
            views = {b: self._status(b) for b in self.booked}
            open_ = [b for b, v in views.items()
                     if v is not None and v['status'] not in FINAL]
            if not open_ or time.monotonic() > deadline:
                break
            time.sleep(2)
        lost = [b for b, v in views.items()
                if v is None and b not in self.cancelled]
        errors = {b: v['status_reason'] for b, v in views.items()
                  if v is not None and v['status'] == 'ERROR'}
        device_figures = (self.devices.check(deadline)
                          if self.devices.uris else {})
        engine = sa.create_engine(self.daemons.db_url)
        try:
            # The ends of cancelled bookings, then the sweep of what an
            # end could not remove (within two repair intervals).
            deadline = max(deadline, time.monotonic() +
                           2 * REPAIR_INTERVAL + 10)
            while True:
                not_ended = chaos_checks.leases_not_ended(engine,
                                                          self.project)
                left = self._artefacts()
                if not (not_ended or left) or time.monotonic() > deadline:
                    break
                time.sleep(2)
            lateness = chaos_checks.event_lateness(engine, self.project)
            device_lateness = chaos_checks.event_lateness(engine,
                                                          self.devices.project)
        finally:
            engine.dispose()
        return {
            'bookings accepted': len(self.booked),
            'bookings refused': dict(self.refused),
            'bookings cancelled': len(self.cancelled),
            'POSTs unanswered (daemon killed)': self.unanswered,
            'API 5xx': self.api_5xx + self.devices.api_5xx,
            'API 503 (database away, tried again)':
                self.api_503 + self.devices.api_503,
            'bookings lost': len(lost),
            'bookings stuck': len(open_),
            'bookings in ERROR': len(errors),
            'ERROR reasons': sorted(set(errors.values())),
            'overbooked instants': self.overbooked,
            'events run twice': chaos_checks.events_run_twice(self.daemons),
            'leases not ended': len(not_ended),
            'leases': not_ended,
            'artefacts left': len(left),
            'artefacts': left,
            'kills': dict(self.kills),
            'restarts': dict(self.restarts),
            'start lateness s (p50/p99/max)': lateness['start_lease'],
            'end lateness s (p50/p99/max)': lateness['end_lease'],
            **device_figures,
            'device start lateness s (p50/p99/max)':
                device_lateness['start_lease'],
            'device end lateness s (p50/p99/max)':
                device_lateness['end_lease'],
        }


def deploy(db_url, profile, log=print):
    """The daemons (two of each but the API, which gunicorn runs with two
    workers) behind the fault proxies; returns (daemons, proxies)."""
    nova = chaos_faults.FaultProxy(cloud.NOVA_URL, profile.fault_rate,
                                   profile.hang_seconds, seed=1).start()
    placement = chaos_faults.FaultProxy(
        cloud.PLACEMENT_URL, profile.fault_rate, profile.hang_seconds,
        seed=2).start()
    # Many short bookings of one project: no quota, a short hand-over.
    extra = ('\n[nova]\ntimeout = 10\n[placement]\ntimeout = 10\n'
             '[manager]\nevent_retry_interval = 5\nrepair_interval = %d\n'
             '[quota]\nreservations = -1\ninstance_hours = -1\n'
             'device_reservations = -1\nunit_hours = -1\n'
             '[booking]\nguard_seconds = 10\n' % REPAIR_INTERVAL)
    daemons = reserve_daemons.ReserveDaemons(
        db_url, nova.url, placement.url, reconcile_interval=5,
        pending_create_timeout=20, api_workers=2, extra_conf=extra,
        gpu_hosts=profile.device_reservations > 0)
    daemons.start()
    for name in DAEMONS:
        if name not in daemons.procs:
            daemons.start_daemon(name)
    return daemons, (nova, placement)


def enroll(daemons):
    for name in cloud.COMPUTE_HOSTS:
        for _ in range(10):     # the proxy may fail the enrollment
            resp = daemons.admin('POST', '/v1/hosts', json={'name': name})
            if resp.status_code in (201, 409):
                break
            time.sleep(1)
        else:
            raise AssertionError('%s not enrolled: %s' % (name, resp.text))


def catalogue(daemons, nova_flavor_id):
    """The catalogue entry of the run (the proxy may fail its nova
    reads: a 502 the desk answers, tried again)."""
    for _ in range(10):
        try:
            return daemons.catalogue_flavor(nova_flavor_id, slots=1000)
        except AssertionError as exc:
            last = exc
            time.sleep(1)
    raise last


def report(figures, log=print):
    width = max(len(k) for k in figures)
    for key, value in figures.items():
        log('%-*s  %s' % (width, key, value))
