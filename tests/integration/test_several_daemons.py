"""Two of each daemon share the work: every event runs exactly once and
every booking reaches its final state.

Real nova and placement; reserve-api from gunicorn with two worker
processes, and two reserve-manager, reserve-worker and
reserve-notification processes (each pair under its own host names)
over one RabbitMQ virtual host, on MariaDB and on PostgreSQL.
"""
import collections
import datetime
import uuid

import pytest
import sqlalchemy as sa

from tests.fixtures import backends
from tests.integration import cloud as cloud_mod
from tests.integration import reserve_daemons

pytestmark = pytest.mark.integration
PROJECT = 'several-%s' % uuid.uuid4().hex[:6]
BOOKINGS = 12
PAIRS = ('manager', 'worker', 'notification')


def _iso(seconds):
    when = datetime.datetime.utcnow() + datetime.timedelta(seconds=seconds)
    return when.replace(microsecond=0).isoformat() + 'Z'


@pytest.fixture(params=['mysql', 'postgresql'])
def daemons(request, openstack_cloud, tmp_path):
    with backends.throwaway_database(request.param, tmp_path) as url:
        service = reserve_daemons.ReserveDaemons(
            url, openstack_cloud['compute'], openstack_cloud['placement'],
            reconcile_interval=5, api_workers=2,
            extra_conf='\n[booking]\nguard_seconds = 5\n'
                       '[quota]\nreservations = -1\n')
        service.start()
        try:
            for name in PAIRS:
                service.start_daemon(name + '-b')
            for name in cloud_mod.COMPUTE_HOSTS:
                resp = service.admin('POST', '/v1/hosts', json={'name': name})
                assert resp.status_code == 201, resp.text
            yield service
        finally:
            service.stop()


@pytest.fixture
def source_flavor(openstack_cloud):
    nova = cloud_mod.nova_client('admin', 'admin', 'admin')
    flavor = nova.flavors.create('several-%s' % uuid.uuid4().hex[:6],
                                 ram=256, vcpus=1, disk=1)
    yield flavor
    flavor.delete()


def test_two_of_each_daemon_run_every_event_once(daemons, source_flavor):
    entry = daemons.catalogue_flavor(source_flavor.id, slots=BOOKINGS)
    booked = []
    for i in range(BOOKINGS):
        start = 10 + 2 * i
        resp = daemons.request('POST', '/v1/reservations', project=PROJECT,
                               json={'flavor_id': entry['id'],
                                     'start': _iso(start),
                                     'end': _iso(start + 15)})
        assert resp.status_code == 201, resp.text
        booked.append(resp.json()['reservation']['id'])

    def statuses():
        return collections.Counter(
            daemons.request('GET', '/v1/reservations/%s' % b,
                            project=PROJECT).json()['reservation']['status']
            for b in booked)

    cloud_mod.wait_for('every booking COMPLETE',
                       lambda: statuses()['COMPLETE'] == BOOKINGS, 180)

    engine = sa.create_engine(daemons.db_url)
    try:
        with engine.connect() as conn:
            events = conn.execute(sa.text(
                "SELECT e.event_type, e.status, e.attempts, e.taken_by "
                "FROM events e JOIN bookings b ON b.lease_id = e.lease_id "
                "WHERE b.project_id = :project"),
                {'project': PROJECT}).all()
    finally:
        engine.dispose()
    assert len(events) == 3 * BOOKINGS
    assert {(e.status, e.attempts) for e in events} == {('DONE', 1)}
    managers = {daemons.host_of('manager'), daemons.host_of('manager-b')}
    ran_by = collections.Counter(e.taken_by for e in events)
    assert set(ran_by) <= managers
    print('events run by each manager: %s' % dict(ran_by))
    for name in ('manager', 'manager-b'):
        assert 'Traceback' not in daemons.logs(name), name
