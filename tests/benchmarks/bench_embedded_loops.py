"""The embedded default under ordinary use: device reservations created
and cancelled in a loop against ``reserve-all-in-one`` (SQLite, the
in-memory bus, the libvirt test:/// GPU hosts), one client and then
thirty at once.

Not a test: a script that prints figures. It starts the all-in-one as a
process of its own (fresh state directory, a free port), then runs three
loops, each of ``--creates`` creations, each followed by its DELETE:

* one client, reservations of one A100 starting now for a domain of the
  host (so it is attached, then detached);
* ``--clients`` clients at once, the same (most are refused with a
  409: the four A100s are all held at that instant);
* ``--clients`` clients at once, each reservation in a future window of
  its own (every one should be admitted).

For each it prints the answers by status, the latency p50/p99/max of
the POSTs and DELETEs, and after the loop has settled (at most
``--settle`` seconds): reservations not yet released, lease events in
ERROR or tried more than once, and hostdevs left in the host's domains.
The target is no 5xx, no connection error and 0 on the three lines
after the settle. It exits non-zero when a line is not 0.

    .venv/bin/python tests/benchmarks/bench_embedded_loops.py
    .venv/bin/python tests/benchmarks/bench_embedded_loops.py \\
        --creates 100 --clients 10
"""
import argparse
import collections
import concurrent.futures
import datetime
import os
import subprocess
import sys
import tempfile
import threading
import time

import requests

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
HOST = 'gpu-a100-01'
MODEL = 'A100 SXM4 80GB'
DOMAINS = ('gpu-vm-1', 'gpu-vm-2', 'gpu-vm-3')
HEADERS = {'X-User-Id': 'loop-user', 'X-Project-Id': 'loop-project',
           'X-Roles': 'member,reader'}
ADMIN = {'X-User-Id': 'root', 'X-Project-Id': 'admin',
         'X-Roles': 'admin,member,reader'}
RELEASED = ('cancelled', 'expired')

sys.path.insert(0, REPO)
from tests.fixtures import placement  # noqa: E402 (after the path)


def _iso(when):
    return when.replace(microsecond=0).isoformat() + 'Z'


class AllInOne:
    """reserve-all-in-one in its own process and state directory."""

    def __init__(self, state_dir):
        self.port = placement.free_port()
        self.url = 'http://127.0.0.1:%d' % self.port
        conf = os.path.join(state_dir, 'loops.conf')
        with open(conf, 'w') as f:
            # No quota: the loops make hundreds of reservations.
            f.write('[api]\nport = %d\n[quota]\nreservations = -1\n'
                    'instance_hours = -1\n' % self.port)
        self.log = open(os.path.join(state_dir, 'all-in-one.log'), 'w')
        self.process = subprocess.Popen(
            [os.path.join(os.path.dirname(sys.executable),
                          'reserve-all-in-one'),
             '--state-dir', state_dir, '--config-file', conf],
            stdout=self.log, stderr=subprocess.STDOUT, cwd=REPO)

    def wait_up(self, timeout=120):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit('reserve-all-in-one exited with %s; see %s'
                                 % (self.process.returncode, self.log.name))
            try:
                if requests.get(self.url + '/v1/devices', headers=ADMIN,
                                timeout=5).status_code == 200:
                    self._own_domains()
                    return
            except requests.ConnectionError:
                pass
            time.sleep(0.5)
        raise SystemExit('reserve-all-in-one did not answer in %d s' %
                         timeout)

    def _own_domains(self):
        """The load's project owns the domains it names (the embedded
        hosts give them to the noauth project)."""
        for domain in DOMAINS:
            requests.patch(
                '%s/v1/hosts/%s/domain-owners/%s' % (self.url, HOST, domain),
                json={'project_id': HEADERS['X-Project-Id']}, headers=ADMIN,
                timeout=30).raise_for_status()

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


class Loop:
    """Answers and latencies (by method) of one loop, shared by its
    clients."""

    def __init__(self, url):
        self.url = url
        self.answers = collections.Counter()
        self.ms = collections.defaultdict(list)
        self.created = []
        self._lock = threading.Lock()

    def _count(self, what, response=None, ms=None, created=None):
        with self._lock:
            self.answers[what if response is None else
                         '%s %d' % (what, response.status_code)] += 1
            if ms is not None:
                self.ms[what].append(ms)
            if created:
                self.created.append(created)

    def once(self, session, domain, slot=None):
        """Create a reservation and cancel it: one starting now (to be
        attached at once), or with ``slot`` one of its own in the future,
        which no other slot overlaps."""
        now = datetime.datetime.utcnow()
        body = {'count': 1, 'model': MODEL, 'host': HOST,
                'domains': [domain],
                'end': _iso(now + datetime.timedelta(hours=1))}
        if slot is not None:
            start = now + datetime.timedelta(days=1, hours=2 * slot)
            body.update(start=_iso(start), end=_iso(
                start + datetime.timedelta(hours=1)))
        t0 = time.perf_counter()
        try:
            created = session.post(self.url + '/v1/device-reservations',
                                   json=body, headers=HEADERS, timeout=60)
        except requests.RequestException as exc:
            self._count('POST %s' % type(exc).__name__)
            return
        ms = (time.perf_counter() - t0) * 1000
        if created.status_code != 201:
            self._count('POST', created, ms)
            return
        rsv_id = created.json()['device_reservation']['id']
        self._count('POST', created, ms, rsv_id)
        t0 = time.perf_counter()
        try:
            deleted = session.delete(
                self.url + '/v1/device-reservations/' + rsv_id,
                headers=HEADERS, timeout=60)
        except requests.RequestException as exc:
            self._count('DELETE %s' % type(exc).__name__)
            return
        self._count('DELETE', deleted, (time.perf_counter() - t0) * 1000)

    def run(self, creates, clients, future=False):
        counter = iter(range(creates))
        lock = threading.Lock()

        def client(index):
            session = requests.Session()
            while True:
                with lock:
                    slot = next(counter, None)
                if slot is None:
                    return
                self.once(session, DOMAINS[index % len(DOMAINS)],
                          slot if future else None)

        t0 = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(clients) as pool:
            list(pool.map(client, range(clients)))
        return time.monotonic() - t0


def settle(url, created, timeout):
    """What is left once the loop's reservations have had ``timeout``
    seconds to be released: (unreleased ids, events in ERROR, events
    tried more than once, hostdevs left in the host's domains)."""
    mine = set(created)
    deadline = time.monotonic() + timeout
    while True:
        rows = requests.get(
            url + '/v1/device-reservations?all_projects=1&limit=1000',
            headers=ADMIN, timeout=60).json()['device_reservations']
        unreleased = [r['id'] for r in rows if r['id'] in mine and (
            r['status'] not in RELEASED or r['released_at'] is None)]
        if not unreleased or time.monotonic() > deadline:
            break
        time.sleep(1)
    leases = requests.get(url + '/v1/leases?all_projects=1&limit=1000',
                          headers=ADMIN, timeout=60).json()['leases']
    events = [e for lease in leases for e in lease['events']]
    failed = [e for e in events if e['status'] == 'ERROR']
    retried = [e for e in events if e['attempts'] > 1]
    return unreleased, failed, retried, hostdevs(url)


def hostdevs(url):
    """How many hostdevs the host's domains hold."""
    held = 0
    for domain in DOMAINS:
        shown = requests.get(
            '%s/v1/hosts/%s/domains/%s' % (url, HOST, domain),
            headers=ADMIN, timeout=60).json()['domain']
        held += len(shown.get('hostdevs') or [])
    return held


def _percentile(values, q):
    if not values:
        return float('nan')
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(name, loop, seconds, settled, hostdevs_before):
    unreleased, failed, retried, hostdevs_after = settled
    fives = sum(n for what, n in loop.answers.items()
                if what.split()[-1].startswith('5') or
                not what.split()[-1].isdigit())
    print('%s: %d POSTs in %.1f s' % (name, sum(
        n for what, n in loop.answers.items()
        if what.startswith('POST')), seconds))
    for what, n in sorted(loop.answers.items()):
        print('  %-28s %5d' % (what, n))
    for what in ('POST', 'DELETE'):
        times = loop.ms[what]
        print('  %-6s p50/p99/max ms       %.0f / %.0f / %.0f' % (
            what, _percentile(times, 0.5), _percentile(times, 0.99),
            max(times) if times else float('nan')))
    lines = [('5xx or no answer', fives),
             ('reservations not released', len(unreleased)),
             ('lease events in ERROR', len(failed)),
             ('hostdevs left in domains', hostdevs_after - hostdevs_before)]
    for what, n in lines:
        print('  %-28s %5d' % (what, n))
    print('  %-28s %5d%s' % ('events tried more than once', len(retried),
                             ''.join('\n    %s: %s' % (
                                 e['event_type'], e['last_error'])
                                 for e in retried[:5])))
    return any(n for _, n in lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--creates', type=int, default=500)
    parser.add_argument('--clients', type=int, default=30)
    parser.add_argument('--settle', type=float, default=90)
    parser.add_argument('--state-dir',
                        help='keep the all-in-one state and log here '
                             '(default: a temporary directory)')
    args = parser.parse_args()
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        state_dir = args.state_dir or tmp
        os.makedirs(state_dir, exist_ok=True)
        aio = AllInOne(state_dir)
        try:
            aio.wait_up()
            # gpu-vm-1 of the fixture holds a GPU from the start.
            before = hostdevs(aio.url)
            for name, clients, future in (
                    ('1 client, starting now', 1, False),
                    ('%d clients, starting now' % args.clients,
                     args.clients, False),
                    ('%d clients, future windows' % args.clients,
                     args.clients, True)):
                loop = Loop(aio.url)
                seconds = loop.run(args.creates, clients, future)
                failed |= report(name, loop, seconds, settle(
                    aio.url, loop.created, args.settle), before)
        finally:
            aio.stop()
            if failed:
                with open(aio.log.name) as f:
                    tracebacks = [line for line in f
                                  if 'Traceback' in line]
                print('all-in-one log: %d tracebacks' % len(tracebacks))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
