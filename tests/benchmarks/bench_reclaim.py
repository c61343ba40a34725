"""Reclaim latency of spot devices: from the call to the devices free
(no spot domain holds them on the host). No cloud needed.

Not a test: a script that prints figures. Each round lends the
reservation's two devices, attaches each to a spot domain of another
project, then times the reclaim until the devices are free; the dry run
before it is timed too. Prints p50/p99/max in milliseconds.

In process (the default), on the embedded stack the device tests run:
the real lease manager called as the API's RPC call runs it, SQLite, a
libvirt test:/// A100 host completed by the fake driver; "free" is when
the host shows the spot domains empty.

With ``--http``, through the REST API of a ``reserve-all-in-one`` this
script starts on a free loopback port with its own state directory
(noauth, its embedded GPU hosts gpu-a100-01 and gpu-t4-01), run from
this checkout: every step is an HTTP call at microversion 1.4 (release,
the spot attaches as another project with ``tier: spot``, the reclaim's
dry run, the reclaim), and "free" is when ``GET /v1/devices`` no longer
shows them held by a spot domain (``in-use``) nor on the market
(``spot``). After each round, untimed, the spot domains' hostdevs are
checked empty. The all-in-one is stopped and its state directory removed
at the end, failure or not.

With ``--busy``, the hosts are busy first: another device reservation
holds the A100 host's last free A100, attached to a domain of the owner
(gpu-vm-1 holds the fourth outside reserve, the benchmark's reservation
the other two), and one of the T4 host's devices is reserved and
attached too; every A100 is in use while the rounds run.

    .venv/bin/python tests/benchmarks/bench_reclaim.py --rounds 200
    .venv/bin/python tests/benchmarks/bench_reclaim.py --http --rounds 50
    .venv/bin/python tests/benchmarks/bench_reclaim.py --http --busy
"""
import argparse
import os
import pathlib
import shutil
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, REPO)
from reserve.db import device_reservations  # noqa: E402
from reserve.db import domain_owners as owners_db  # noqa: E402
from tests.fixtures.all_in_one import ADMIN  # noqa: E402
from tests.fixtures.all_in_one import AllInOne  # noqa: E402
from tests.functional.devices import gpu_cloud  # noqa: E402

SPOT_DOMAINS = ('gpu-vm-3', 'transient-vm')
# The domain the busy shape's other reservations attach to, on each host.
BUSY_DOMAINS = {'a100': 'gpu-vm-2', 't4': 'vgpu-vm-2'}
A100 = 'A100 SXM4 80GB'
T4 = 'Tesla T4'


def percentile(samples, pct):
    ordered = sorted(samples)
    index = min(len(ordered) - 1, int(round(pct / 100.0 *
                                            (len(ordered) - 1))))
    return ordered[index]


def _free(cloud, host, addresses):
    hostdevs = cloud.hostdevs(host)
    return not any(('pci', a) in hostdevs[d] for d in SPOT_DOMAINS
                   for a in addresses)


def _busy_in_process(cloud, host):
    """The other reservations of the busy shape (on the A100 host and
    a T4 host), attached, active."""
    cloud.reserve(device_count=1, model=A100, host_id=host.id,
                  domains=[BUSY_DOMAINS['a100']])
    t4 = cloud.enroll('t4-host.xml', name='gpu-box-2')
    cloud.reserve(device_count=1, model=T4, host_id=t4.id,
                  domains=[BUSY_DOMAINS['t4']])


def run(rounds, busy=False):
    tmp = pathlib.Path(tempfile.mkdtemp())
    cloud = gpu_cloud.start_cloud(tmp, migrate=False)
    try:
        host = cloud.enroll('a100-host.xml', name='gpu-box-1')
        for domain in SPOT_DOMAINS:
            owners_db.owner_set(cloud.ctx, host.id, domain, 'project-b')
        rsv = cloud.reserve(device_count=2, model=gpu_cloud.A100_MODEL,
                            host_id=host.id)
        if busy:
            _busy_in_process(cloud, host)
        cloud.tick()
        if busy:
            _check_busy([r.status for r in _live(cloud)])
        devices = sorted((u.device_id, u.device.pci_address)
                         for u in cloud.reservation(rsv).devices)
        ids = [d for d, _ in devices]
        addresses = [a for _, a in devices]
        manager, ctx = cloud.manager, cloud.ctx
        dry, real = [], []
        for _ in range(rounds):
            manager.release_devices(ctx, rsv, ids)
            for (device_id, _), domain in zip(devices, SPOT_DOMAINS):
                manager.attach_spot_device(ctx, device_id, domain,
                                           'project-b')
            began = time.perf_counter()
            answer = manager.reclaim_devices(ctx, rsv, None, True)
            dry.append(time.perf_counter() - began)
            assert len(answer['would_terminate']) == 2, answer
            began = time.perf_counter()
            done = manager.reclaim_devices(ctx, rsv, None, False)
            while not _free(cloud, host, addresses):
                time.sleep(0.001)
            real.append(time.perf_counter() - began)
            assert done['terminated'] == answer['would_terminate']
        return dry, real
    finally:
        gpu_cloud.stop_cloud(cloud)
        shutil.rmtree(tmp, ignore_errors=True)


def _live(cloud):
    return device_reservations.device_reservations_unreleased(cloud.ctx)


def _check_busy(statuses):
    if len(statuses) != 3 or set(statuses) != {'ACTIVE'}:
        raise RuntimeError('the busy shape is not all active: %s' %
                           statuses)


# through the REST API of reserve-all-in-one --------------------------------

# The spot user's project (the owner's is the noauth API's default).
SPOT_USER = {'X-Project-Id': 'spot-project', 'X-User-Id': 'spot',
             'X-Roles': 'member,reader'}
# No quota in the way; a reconciler that keeps to itself while the
# rounds run.
CONFIG = {'worker': {'reconcile_interval': 3600},
          'quota': {'device_reservations': -1, 'device_hours': -1}}


def _wait_active(server, reservation_id, timeout=60):
    deadline = time.monotonic() + timeout
    while True:
        shown = server.call('GET', '/v1/device-reservations/%s' %
                            reservation_id)['device_reservation']
        if shown['status'] == 'active':
            return shown
        if shown['status'] not in ('pending',) or \
                time.monotonic() > deadline:
            raise RuntimeError('device reservation %s is %s: %s' % (
                reservation_id, shown['status'], shown['status_reason']))
        time.sleep(0.1)


def _reserve(server, host, model, count, domains=()):
    body = {'device_count': count, 'model': model, 'host': host}
    if domains:
        body['domains'] = list(domains)
    made = server.call('POST', '/v1/device-reservations', body,
                       expect=201)['device_reservation']
    return _wait_active(server, made['id'])


def _held_by_spot(server, host_id, ids):
    """The devices of ``ids`` that GET /v1/devices shows held by a spot
    domain, or still on the market."""
    shown = server.call('GET', '/v1/devices?host=%s' % host_id)['devices']
    return {d['id'] for d in shown
            if d['id'] in ids and d['state'] in ('in-use', 'spot')}


def _spot_hostdevs(server, host_id, addresses):
    domains = server.call('GET', '/v1/hosts/%s/domains' % host_id,
                          headers=ADMIN)['domains']
    return sorted((d['name'], h['id']) for d in domains
                  if d['name'] in SPOT_DOMAINS for h in d['hostdevs']
                  if h['id'] in addresses)


def run_http(rounds, busy=False):
    with AllInOne(config=CONFIG, prefix='bench-reclaim-') as server:
        try:
            return _rounds_http(server, rounds, busy)
        except BaseException:
            print(server.log_tail(), file=sys.stderr)
            raise


def _rounds_http(server, rounds, busy):
    host = server.call('GET', '/v1/hosts/gpu-a100-01',
                       headers=ADMIN)['host']
    for domain in SPOT_DOMAINS:
        server.call('PATCH', '/v1/hosts/%s/domain-owners/%s' % (
            host['id'], domain), {'project_id': SPOT_USER['X-Project-Id']},
            headers=ADMIN)
    rsv = _reserve(server, host['name'], A100, 2)
    if busy:
        _reserve(server, host['name'], A100, 1, [BUSY_DOMAINS['a100']])
        _reserve(server, 'gpu-t4-01', T4, 1, [BUSY_DOMAINS['t4']])
        shown = server.call('GET', '/v1/devices?host=%s' % host['id'])[
            'devices']
        free = [d['pci_address'] for d in shown
                if d['model'] == A100 and d['state'] == 'available']
        if free:
            raise RuntimeError('the busy shape left A100s free: %s' % free)
    url = '/v1/device-reservations/%s' % rsv['id']
    ids = sorted(rsv['device_ids'])
    addresses = {d['id']: d['pci_address'] for d in rsv['devices']}
    dry, real = [], []
    for _ in range(rounds):
        server.call('POST', url + '/release', {'device_ids': ids})
        for device_id, domain in zip(ids, SPOT_DOMAINS):
            server.call('POST', '/v1/devices/%s/attach' % device_id,
                        {'domain': domain, 'tier': 'spot'},
                        headers=SPOT_USER)
        began = time.perf_counter()
        answer = server.call('POST', url + '/reclaim', {'dry_run': True})
        dry.append(time.perf_counter() - began)
        if len(answer['would_terminate']) != 2:
            raise RuntimeError('the dry run would not terminate both: %s'
                               % answer)
        began = time.perf_counter()
        done = server.call('POST', url + '/reclaim', {})
        while _held_by_spot(server, host['id'], set(ids)):
            time.sleep(0.001)
        real.append(time.perf_counter() - began)
        if done['terminated'] != answer['would_terminate']:
            raise RuntimeError('the reclaim terminated %s, its dry run '
                               'said %s' % (done['terminated'],
                                            answer['would_terminate']))
        left = _spot_hostdevs(server, host['id'], set(addresses.values()))
        if left:
            raise RuntimeError('spot domains still hold %s' % left)
    return dry, real


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--rounds', type=int, default=100)
    parser.add_argument('--http', action='store_true',
                        help='Through the REST API of a reserve-all-in-one '
                             'started for the run')
    parser.add_argument('--busy', action='store_true',
                        help='Other device reservations active on the '
                             'hosts first, most devices in use')
    args = parser.parse_args()
    dry, real = (run_http if args.http else run)(args.rounds, args.busy)
    print('%s%s: %d rounds, 2 spot domains each' % (
        'REST API of reserve-all-in-one' if args.http else 'in process',
        ', busy hosts' if args.busy else '', args.rounds))
    print('%-22s %9s %9s %9s' % ('', 'p50 ms', 'p99 ms', 'max ms'))
    for name, samples in (('reclaim dry run', dry),
                          ('reclaim (to free)', real)):
        print('%-22s %9.1f %9.1f %9.1f' % (
            name, 1000 * percentile(samples, 50),
            1000 * percentile(samples, 99), 1000 * max(samples)))


if __name__ == '__main__':
    main()
