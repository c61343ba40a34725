"""Owners that lag their lease (seed symptom: the lease ACTIVE or
TERMINATED while its booking still shows an earlier status).

The manager moves a booking with its lease in one transaction
(owners.py), so a lag is hand-made (a row edited, a database restored);
the periodic task moves it on as the lease's start or end would have,
and tells its user as they would have.
"""
from oslo_log import log as logging

from reserve.db import api as db_api
from reserve.db import bookings as bookings_db
from reserve.db import leases as leases_db
from reserve.common import exception
from reserve.manager import owners

LOG = logging.getLogger(__name__)


def follow_lagging_owners(context):
    """Move every booking behind its lease; returns how many moved."""
    moved_count = 0
    for booking in bookings_db.booking_list_behind_lease(context):
        try:
            lease = leases_db.lease_get(context, booking.lease_id)
        except exception.LeaseNotFound:
            continue
        with db_api.writer.using(context):
            moved = owners.follow(context, lease, lease.status)
        if moved is None:
            continue
        LOG.warning('Booking %s was %s while its lease %s is %s: moved on',
                    booking.id, booking.status, lease.id, lease.status)
        owners.announce(context, moved)
        moved_count += 1
    return moved_count
