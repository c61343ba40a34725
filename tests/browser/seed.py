"""Writes what the calendar page tests show into a reserve database
before a reserve-all-in-one starts on it: a catalogue flavor (its nova
flavor recorded, as the catalogue records it when an administrator adds
it), a nova host roomy enough for it, and optionally many bookings of it.

    python -m tests.browser.seed sqlite:///state/reserve.sqlite \\
        [--flavor gpu.a100] [--slots 4] [--bookings 1000] [--seed 7]

Run as its own process: it sets reserve's [database]connection.
"""
import argparse
import datetime
import random
import sys

from oslo_config import cfg

from reserve.common import context as reserve_context
from reserve.common import states
from reserve.common import timeutils
from reserve import conf  # noqa: F401 (registers the options)
from reserve.db import bookings as bookings_db
from reserve.db import flavors as flavors_db
from reserve.db import hosts as hosts_db
from tests.fixtures import database

CONF = cfg.CONF
NOVA_FLAVOR = {'vcpus': 4, 'memory_mb': 16384, 'disk_gb': 40,
               'ephemeral_gb': 0, 'swap_mb': 0, 'extra_specs': {}}
PROJECTS = ('noauth-project', 'project-b', 'project-c', 'project-d')


def seed(url, flavor_name, slots, bookings, rng):
    CONF([], project='reserve', default_config_files=[])
    database.use_database(url)
    ctx = reserve_context.get_admin_context()
    hosts_db.host_create(ctx, dict(
        name='roomy.example.org', kind='nova', service_name='roomy',
        vcpus=10 ** 5, memory_mb=10 ** 9, local_gb=10 ** 7,
        reservable=True))
    flavor = flavors_db.flavor_create(ctx, dict(
        name=flavor_name, nova_flavor_id=flavor_name, slots=slots,
        active=True, is_public=True, max_length_hours=None,
        description='A100 80GB, 4 vCPU',
        nova_flavor=dict(NOVA_FLAVOR, id=flavor_name, name=flavor_name)))
    # Bookings packed on the slots over the month around now, none
    # overlapping on a slot: what admission would have accepted.
    now = timeutils.utcnow().replace(second=0, microsecond=0)
    origin = now - datetime.timedelta(days=14)
    horizon = datetime.timedelta(days=28).total_seconds()
    per_slot = max(1, bookings // slots)
    length = horizon / per_slot
    made = 0
    for slot in range(slots):
        for n in range(per_slot):
            if made == bookings:
                break
            start = origin + datetime.timedelta(
                seconds=n * length + rng.uniform(0, length * 0.2))
            end = start + datetime.timedelta(
                seconds=length * rng.uniform(0.3, 0.75))
            status = (states.Booking.COMPLETE if end < now else
                      states.Booking.ACTIVE if start < now else
                      states.Booking.ALLOCATED)
            bookings_db.booking_create(ctx, dict(
                project_id=rng.choice(PROJECTS), user_id='seed',
                flavor_id=flavor.id, instance_count=1, start=start,
                end=end, status=status))
            made += 1
    database.reset_engine()
    return flavor


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('url')
    parser.add_argument('--flavor', default='gpu.a100')
    parser.add_argument('--slots', type=int, default=4)
    parser.add_argument('--bookings', type=int, default=0)
    parser.add_argument('--seed', type=int, default=7)
    args = parser.parse_args(argv)
    flavor = seed(args.url, args.flavor, args.slots, args.bookings,
                  random.Random(args.seed))
    print(flavor.id)


if __name__ == '__main__':
    sys.exit(main())
