"""A lease's rows on every backend: written at once or not at all (a
taken name is a conflict), and deleted with its reservations, their
allocations and its events, and nothing of another lease."""
import datetime

import pytest
import sqlalchemy as sa

from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import states
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import hosts as hosts_db
from reserve.db import leases as leases_db
from reserve.db import models
from tests.fixtures import backends
from tests.fixtures import database


def _lease(ctx, name, host_id, now):
    end = now + datetime.timedelta(hours=2)
    return leases_db.lease_create(ctx, {
        'name': name, 'project_id': 'p', 'user_id': 'u', 'start': now,
        'end': end, 'status': states.Lease.PENDING}, [{
            'resource_type': states.FLAVOR_INSTANCE,
            'status': states.LeaseReservation.PENDING, 'amount': 1,
            'allocations': [{'host_id': host_id, 'amount': 1,
                             'start': now, 'end': end}]}], [
        {'event_type': states.Event.START, 'time': now,
         'status': states.Event.UNDONE},
        {'event_type': states.Event.END, 'time': end,
         'status': states.Event.UNDONE}])


def _rows(ctx, lease_id):
    """{table: rows of the lease} of its reservations, allocations and
    events."""
    r, a, e = models.LeaseReservation, models.Allocation, models.Event
    with db_api.reader.using(ctx) as session:
        return {
            'lease_reservations': session.scalar(
                sa.select(sa.func.count()).where(r.lease_id == lease_id)),
            'allocations': session.scalar(
                sa.select(sa.func.count()).select_from(a)
                .join(r, r.id == a.lease_reservation_id)
                .where(r.lease_id == lease_id)),
            'allocations in all': session.scalar(
                sa.select(sa.func.count()).select_from(a)),
            'events': session.scalar(
                sa.select(sa.func.count()).where(e.lease_id == lease_id)),
        }


@pytest.fixture(params=backends.BACKENDS)
def host(request, tmp_path):
    """(the admin context, a host's id) on a throwaway database of each
    backend."""
    with database.on_backend(request.param, tmp_path):
        ctx = reserve_context.get_admin_context()
        yield ctx, hosts_db.host_create(ctx, {'name': 'compute-1',
                                              'service_name': 'compute-1'}).id


def test_a_destroyed_lease_leaves_no_row_behind(host):
    ctx, host_id = host
    now = timeutils.utcnow()
    gone = _lease(ctx, 'gone', host_id, now)
    kept = _lease(ctx, 'kept', host_id, now)
    assert _rows(ctx, gone) == {
        'lease_reservations': 1, 'allocations': 1,
        'allocations in all': 2, 'events': 2}

    leases_db.lease_destroy(ctx, gone)
    leases_db.lease_destroy(ctx, gone)   # again: nothing happens

    with pytest.raises(exception.LeaseNotFound):
        leases_db.lease_get(ctx, gone)
    assert _rows(ctx, gone) == {
        'lease_reservations': 0, 'allocations': 0,
        'allocations in all': 1, 'events': 0}
    assert _rows(ctx, kept)['events'] == 2
    assert leases_db.lease_get(ctx, kept).name == 'kept'


def test_a_taken_name_is_a_conflict_and_writes_nothing(host):
    ctx, host_id = host
    now = timeutils.utcnow()
    first = _lease(ctx, 'taken', host_id, now)
    with pytest.raises(exception.Conflict, match='a lease named taken'):
        _lease(ctx, 'taken', host_id, now)
    with db_api.reader.using(ctx) as session:
        assert session.scalar(sa.select(sa.func.count()).select_from(
            models.Lease)) == 1
        assert session.scalar(sa.select(sa.func.count()).select_from(
            models.Event)) == 2
    assert _rows(ctx, first)['allocations in all'] == 1
