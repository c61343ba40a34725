"""Reclaim latency of spot devices: from the call to the devices free
(no spot domain holds them on the host), on the embedded stack the
device tests run (the real lease manager in-process, SQLite, a libvirt
test:/// A100 host completed by the fake driver). No cloud needed.

Not a test: a script that prints figures. Each round lends the
reservation's two devices, attaches each to a spot domain of another
project, then times the reclaim (the manager's, as the API's RPC call
runs it) until the host shows the spot domains empty; the dry run
before it is timed too. Prints p50/p99/max in milliseconds.

    .venv/bin/python tests/benchmarks/bench_reclaim.py --rounds 200
"""
import argparse
import os
import pathlib
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, REPO)
from reserve.db import domain_owners as owners_db  # noqa: E402
from tests.functional.devices import gpu_cloud  # noqa: E402

SPOT_DOMAINS = ('gpu-vm-3', 'transient-vm')


def percentile(samples, pct):
    ordered = sorted(samples)
    index = min(len(ordered) - 1, int(round(pct / 100.0 *
                                            (len(ordered) - 1))))
    return ordered[index]


def _free(cloud, host, addresses):
    hostdevs = cloud.hostdevs(host)
    return not any(('pci', a) in hostdevs[d] for d in SPOT_DOMAINS
                   for a in addresses)


def run(rounds):
    cloud = gpu_cloud.start_cloud(pathlib.Path(tempfile.mkdtemp()),
                                  migrate=False)
    try:
        host = cloud.enroll('a100-host.xml', name='gpu-box-1')
        for domain in SPOT_DOMAINS:
            owners_db.owner_set(cloud.ctx, host.id, domain, 'project-b')
        rsv = cloud.reserve(device_count=2, model=gpu_cloud.A100_MODEL,
                            host_id=host.id)
        cloud.tick()
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--rounds', type=int, default=100)
    args = parser.parse_args()
    dry, real = run(args.rounds)
    print('%d rounds, 2 spot domains each' % args.rounds)
    print('%-22s %9s %9s %9s' % ('', 'p50 ms', 'p99 ms', 'max ms'))
    for name, samples in (('reclaim dry run', dry),
                          ('reclaim (to free)', real)):
        print('%-22s %9.1f %9.1f %9.1f' % (
            name, 1000 * percentile(samples, 50),
            1000 * percentile(samples, 99), 1000 * max(samples)))


if __name__ == '__main__':
    main()
