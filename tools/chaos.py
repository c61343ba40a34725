#!/usr/bin/env python3
"""Chaos run: bookings through two of each daemon while daemons are
killed, RabbitMQ and the database restart and nova and placement fail a
share of their calls; then the invariant checker's figures.

Needs the loopback cloud (tools/cloud/up.sh) and this machine's RabbitMQ
and MariaDB (or PostgreSQL), which it restarts: run it alone.

    .venv/bin/python tools/chaos.py                 # the long profile
    .venv/bin/python tools/chaos.py --bookings 100 --minutes 3 --short

See tests/integration/chaos.py for what each line of the report means;
the short profile also runs in the test suite (test_chaos.py).
"""
import argparse
import dataclasses
import json
import os
import sys
import tempfile
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from tests.fixtures import backends  # noqa: E402
from tests.integration import chaos  # noqa: E402
from tests.integration import cloud  # noqa: E402
from tests.integration import cloud_lifecycle  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--short', action='store_true',
                        help='start from the short profile of the tests')
    parser.add_argument('--bookings', type=int)
    parser.add_argument('--devices', type=int,
                        help='device reservations (0: none)')
    parser.add_argument('--minutes', type=float,
                        help='how long bookings keep coming')
    parser.add_argument('--backend', choices=('mysql', 'postgresql'),
                        default='mysql')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--json', action='store_true',
                        help='print the figures as JSON too')
    args = parser.parse_args()
    profile = chaos.SHORT if args.short else chaos.Profile()
    if args.bookings:
        profile = dataclasses.replace(profile, bookings=args.bookings)
    if args.devices is not None:
        profile = dataclasses.replace(profile,
                                      device_reservations=args.devices)
    if args.minutes:
        profile = dataclasses.replace(profile,
                                      load_seconds=args.minutes * 60)
    cloud_lifecycle.ensure_up()
    nova = cloud.nova_client('admin', 'admin', 'admin')
    flavor = nova.flavors.create('chaos-%s' % uuid.uuid4().hex[:6],
                                 ram=256, vcpus=1, disk=1)
    with tempfile.TemporaryDirectory() as tmp, \
            backends.throwaway_database(args.backend, tmp) as url:
        daemons, proxies = chaos.deploy(url, profile)
        try:
            chaos.enroll(daemons)
            entry = chaos.catalogue(daemons, flavor.id)
            run = chaos.Chaos(daemons, entry['id'], profile, seed=args.seed)
            figures = run.run()
            figures['nova/placement calls'] = {
                p.url: dict(p.counts) for p in proxies}
            # Now, before the clean-up, which may fail in its turn.
            chaos.report(figures)
            if args.json:
                print(json.dumps(figures, default=str), flush=True)
        finally:
            daemons.stop()
            daemons.clean_cloud()
            for proxy in proxies:
                proxy.stop()
            flavor.delete()
    return 1 if any(figures[k] for k in chaos.MUST_BE_ZERO) else 0


if __name__ == '__main__':
    sys.exit(main())
