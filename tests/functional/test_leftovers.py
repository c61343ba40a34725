"""The repair task takes down what ended reservations left, follows
servers an end could not delete until they are gone, and a lease no
booking owns is torn down."""
import datetime
import uuid

from oslo_config import cfg

from reserve.common import placement
from reserve.common import states
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import bookings as bookings_db
from reserve.db import deliveries as deliveries_db
from reserve.db import leases as leases_db
from reserve.db import models
from reserve.worker import reconciler
from tests.functional.repair_cloud import Lease
from tests.functional.repair_cloud import PROJECT
from tests.functional.repair_cloud import _admin
from tests.functional.repair_cloud import _book
from tests.functional.repair_cloud import _run_events_until
from tests.functional.repair_cloud import cloud  # noqa: F401
from tests.functional.repair_cloud import placement_server  # noqa: F401
from tests.functional.repair_cloud import repairer  # noqa: F401
from tests.functional.repair_cloud import sent  # noqa: F401
from tests.functional.repair_cloud import swept  # noqa: F401

CONF = cfg.CONF


def _make_terminated(lease):
    """The lease ended but its teardown never ran (a manager that died
    between the two, or a teardown of an older release)."""
    leases_db.lease_update(_admin(), lease.id,
                           {'status': states.Lease.TERMINATED})


def test_leftovers_of_an_ended_reservation_are_taken_down(
        cloud, swept, sent):  # noqa: F811
    repairer = swept
    ended = Lease(cloud)
    running = Lease(cloud, count=1)
    pending = _book(count=1, start_in=3600)
    cloud.worker.create_lease(_admin(), pending.id)
    pending_rsv = leases_db.lease_get(
        _admin(), bookings_db.booking_get(_admin(), pending.id).lease_id
    ).reservations[0].id
    _make_terminated(ended)
    # One being ended right now is its end's business.
    leases_db.lease_update(_admin(), running.id,
                           {'status': states.Lease.TERMINATING})

    counts = repairer.run_once(_admin())['leftovers']
    said = ['leftover aggregate %s deleted' % ended.rsv_id] + [
        'leftover inventory of %s removed from reserve_%s' % (ended.rc, h)
        for h in ended.hosts] + [
        'leftover resource class %s deleted' % ended.rc,
        'leftover flavor reservation:%s deleted' % ended.rsv_id]
    assert counts == {'repaired': len(said), 'unowned': 0,
                      'stuck_servers': 0, 'waiting': 0, 'failed': 0}
    ended.assert_gone()
    assert ended.delivery().repairs == len(said)
    [(event_type, payload)] = sent
    assert (event_type, payload['reservation_id']) == (
        'reserve.reservation.repaired', ended.booking.id)
    assert sorted(payload['repairs']) == sorted(said)
    # What leases still at work own stays: one ending, one pending
    # (built early).
    running.assert_whole()
    assert pending_rsv in cloud.flavors
    assert cloud.placement.resource_class_exists(
        placement.reservation_resource_class(pending_rsv))

    again = repairer.run_once(_admin())['leftovers']
    assert again == dict.fromkeys(counts, 0)
    assert len(sent) == 1


def test_objects_named_after_no_known_reservation(cloud, swept,
                                                  sent):  # noqa: F811
    repairer = swept
    stranger = str(uuid.uuid4())
    rc = placement.reservation_resource_class(stranger)
    cloud.nova.flavors.create('reservation:%s' % stranger, 1024, 1, 10,
                              flavorid=stranger, is_public=False)
    cloud.placement.request('PUT', '/resource_classes/%s' % rc)
    # Made and never given its metadata (a call failed in between):
    # reserve's, as no lease reservation holds its id.
    bare = str(uuid.uuid4())
    cloud.nova.aggregates.create(bare, None)
    # Not reserve's: a name that is no reservation id, an aggregate
    # whose metadata says no reservation.
    cloud.nova.flavors.create('reservation:training', 1024, 1, 10,
                              flavorid='training', is_public=False)
    other = cloud.nova.aggregates.create(str(uuid.uuid4()), None)
    cloud.nova.aggregates.set_metadata(other, {'site': 'lab'})

    counts = repairer.run_once(_admin())['leftovers']
    assert (counts['unowned'], counts['repaired']) == (3, 0)
    assert stranger not in cloud.flavors
    assert not cloud.placement.resource_class_exists(rc)
    assert 'training' in cloud.flavors
    names = {a.name for a in cloud.nova.aggregates.list()}
    assert bare not in names
    assert other.name in names
    assert len(names) == 2  # the fence's and the other
    assert sent == []


def test_a_leftover_with_servers_waits_for_them(cloud, swept):  # noqa
    repairer = swept
    ended = Lease(cloud, count=1)
    server = cloud.boot(ended.rsv_id, PROJECT)
    cloud.delete_polls = -1
    _make_terminated(ended)
    counts = repairer.run_once(_admin())['leftovers']
    assert (counts['waiting'], counts['repaired']) == (1, 1)
    assert cloud.deleting == {server.id: -1}   # asked, not waited for
    assert ended.rsv_id in cloud.flavors
    assert ended.inventory(ended.hosts[0]) is not None
    cloud.unstick(server.id)
    counts = repairer.run_once(_admin())['leftovers']
    assert (counts['waiting'], counts['repaired']) == (0, 3)
    ended.assert_gone()


# A server nova cannot delete at the end -------------------------------------

def test_a_stuck_server_does_not_stop_the_teardown(
        cloud, swept, sent, caplog):  # noqa: F811
    repairer = swept
    cloud.delete_polls = -1  # stuck in deleting
    lease = Lease(cloud, count=1, start_in=0, length=2)
    host = lease.hosts[0]
    server = cloud.boot(lease.rsv_id, PROJECT)
    ended = _run_events_until(cloud, lease.id, states.Lease.TERMINATED)

    assert [e.status for e in ended.events] == ['DONE'] * 3
    assert ended.status_reason is None
    assert bookings_db.booking_get(_admin(), lease.booking.id).status == \
        states.Booking.COMPLETE
    assert lease.delivery().stuck_servers == [server.id]
    [line] = [r.getMessage() for r in caplog.records
              if server.id in r.getMessage()]
    assert lease.rsv_id in line
    # Access and aggregate gone; what the server still holds is left.
    assert cloud.access[lease.rsv_id] == set()
    assert lease.aggregate() is None
    assert lease.rsv_id in cloud.flavors
    assert lease.inventory(host)['total'] == 1
    assert cloud.placement.resource_class_exists(lease.rc)

    # Each run asks again; the objects wait.
    counts = repairer.run_once(_admin())['leftovers']
    assert (counts['stuck_servers'], counts['waiting']) == (1, 1)
    assert lease.delivery().stuck_servers == [server.id]
    assert lease.rsv_id in cloud.flavors

    cloud.unstick(server.id)
    counts = repairer.run_once(_admin())['leftovers']
    assert (counts['stuck_servers'], counts['waiting']) == (0, 0)
    assert lease.delivery().stuck_servers is None
    lease.assert_gone()
    assert sorted(sent[-1][1]['repairs']) == sorted([
        'leftover inventory of %s removed from reserve_%s' % (lease.rc, host),
        'leftover resource class %s deleted' % lease.rc,
        'leftover flavor reservation:%s deleted' % lease.rsv_id])
    assert deliveries_db.delivery_list_stuck(_admin()) == []


# A lease no booking owns ----------------------------------------------------

class _WorkerAPI:
    """The reconciler's casts, delivered at once to the test's worker."""

    def __init__(self, worker):
        self.worker = worker

    def delete_lease(self, context, booking_id, lease_id=None):
        self.worker.delete_lease(_admin(), booking_id, lease_id=lease_id)


def test_a_lease_no_booking_owns_is_torn_down(cloud):  # noqa: F811
    lease = Lease(cloud, count=1)
    bookings_db.booking_destroy(_admin(), lease.booking.id)
    past = timeutils.utcnow() - datetime.timedelta(
        seconds=CONF.worker.pending_create_timeout + 1)
    with db_api.get_engine().begin() as conn:
        conn.execute(models.Lease.__table__.update().values(created_at=past))

    job = reconciler.Reconciler(_WorkerAPI(cloud.worker))
    assert job.run(_admin())['orphans'] == 1
    for _ in range(20):
        cloud.loop.tick()
        if not leases_db.lease_list(_admin()):
            break
    assert leases_db.lease_list(_admin()) == []
    lease.assert_gone()
