"""Helpers of the functional tests."""
import datetime
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
    name = name or unique('fn-flavor')
    return cli.json('reserve', 'flavor', 'create', name, '--nova-flavor',
                    'small', '--slots', slots, *options)
