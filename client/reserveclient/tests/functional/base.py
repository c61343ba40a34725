"""Helpers of the functional tests."""
import datetime
import json
import time
import uuid


def future(days, hour=0):
    """Midnight (or ``hour``) UTC, ``days`` days from today, as the API
    writes dates."""
    day = (datetime.datetime.now(datetime.timezone.utc).date()
           + datetime.timedelta(days=days))
    return '%sT%02d:00:00Z' % (day.isoformat(), hour)


def unique(prefix):
    return '%s-%s' % (prefix, uuid.uuid4().hex[:8])


def make_live(server, booking_id):
    """Put a booking back in ALLOCATED (without nova it goes to ERROR)."""
    server.sql("UPDATE bookings SET status = 'ALLOCATED', "
               "status_reason = NULL WHERE id = ?", booking_id)


def wait_status(cli, booking_id, wanted, timeout=30):
    deadline = time.monotonic() + timeout
    while True:
        status = cli('reserve', 'reservation', 'show', booking_id,
                     '-f', 'value', '-c', 'status').strip()
        if status in wanted or time.monotonic() > deadline:
            return status
        time.sleep(0.5)


def create_flavor(cli, name=None, *options, slots=50):
    """A catalogue flavor of nova's "small" (seeded: the test server has
    no nova to read it from), then changed with ``flavor set options``;
    returns it as ``flavor show`` shows it."""
    created = seed_flavor(cli.server, name, slots)
    if options:
        cli('reserve', 'flavor', 'set', created['id'], *options)
    return cli.json('reserve', 'flavor', 'show', created['id'])


# The nova flavor "small" as the catalogue records it.
SMALL = {'id': 'small', 'name': 'small', 'vcpus': 1, 'memory_mb': 512,
         'disk_gb': 1, 'ephemeral_gb': 0, 'swap_mb': 0, 'extra_specs': {}}


def seed_flavor(server, name=None, slots=50):
    """A public catalogue flavor of "small" and a host to hold it, written
    into the server's database.

    Without nova the API refuses to create either (503): the catalogue
    reads the nova flavor, enrollment reads placement. With them, a
    booking is admitted (201) and goes to ERROR once the worker tries to
    build its lease.
    """
    now = '2026-01-01 00:00:00.000000'  # as SQLAlchemy writes it
    name = name or unique('fn-flavor')
    flavor_id = str(uuid.uuid4())
    host = unique('fn-host')
    server.sql(
        'INSERT INTO hosts (id, kind, name, service_name, vcpus, memory_mb, '
        'local_gb, reservable, gpus, foreign_usage, capacity_read_at, '
        "created_at, updated_at) VALUES (?, 'nova', ?, ?, 64, 524288, "
        "1800, 1, '{}', ?, ?, ?, ?)", str(uuid.uuid4()), host, host,
        json.dumps({'vcpus': 0, 'memory_mb': 0, 'disk_gb': 0, 'gpus': {}}),
        now, now, now)
    server.sql(
        'INSERT INTO flavors (id, name, nova_flavor_id, slots, active, '
        'is_public, longest_booking, gpus, nova_flavor, created_at, '
        "updated_at) VALUES (?, ?, 'small', ?, 1, 1, 0, '{}', ?, ?, ?)",
        flavor_id, name, slots, json.dumps(SMALL), now, now)
    # The API caches the hosts while the capacity generation is unchanged.
    server.sql('UPDATE capacity_state SET generation = generation + 1')
    return {'id': flavor_id, 'name': name}
