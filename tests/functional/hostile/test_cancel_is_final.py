"""A cancel is final: the requests that undid one, sent together over
HTTP to the real API.

* A second DELETE right after the cancel of an active booking removed
  the row, and with it (ON DELETE CASCADE) the allocations its live
  lease still held: the capacity model freed hosts that were not free,
  and the end found nothing to tear down. Now it is 409 until the lease
  has torn down, and the allocations stay until then.
* One DELETE and five ``PATCH end`` sent together on an active device
  reservation: the cancel answered 204, two moves 200, and the device
  stayed held until the new end. Now a move that loses to the cancel is
  409, and the device is released within one turn of the worker and the
  event loop.

Bookings get their lease from the real worker and manager, whose
flavor:instance plugin leaves nova and placement alone (what it does
there is not what these tests are about); device reservations run on the
libvirt test:/// host of the device tests.
"""
import threading
import time

import pytest

from reserve.common import context as reserve_context
from reserve.common import states
from reserve.db import bookings as bookings_db
from reserve.db import device_reservations as device_reservations_db
from reserve.db import leases as leases_db
from reserve.manager import events
from reserve.manager import manager
from reserve.manager import notify
from reserve import plugins
from reserve.plugins import device_gpu
from reserve.plugins import flavor_instance
from reserve.worker import worker
from tests.functional.api_fixtures import future
from tests.functional.api_fixtures import make_flavor
from tests.functional.devices import gpu_cloud
from tests.functional.hostile.http import assert_http_error
from tests.fixtures.races import together

A100 = gpu_cloud.A100_MODEL


def _admin():
    return reserve_context.get_admin_context()


# bookings ------------------------------------------------------------------

class CloudlessFlavorPlugin(flavor_instance.FlavorInstancePlugin):
    """The real plugin's capacity side; nothing done in nova or placement."""

    def __init__(self):
        super().__init__(nova_client=object(), placement_client=object())

    def build(self, context, lease, reservation):
        pass

    def on_start(self, context, lease, reservation):
        pass

    def on_end(self, context, lease, reservation):
        pass


@pytest.fixture
def engine(http, casts):
    """The worker and manager behind the API's recorded casts:
    ``engine.settle()`` delivers them and runs the due events."""
    notify.reset()
    plugins._PLUGINS['flavor:instance'] = CloudlessFlavorPlugin()
    lease_manager = manager.LeaseManager(nova_client=object(),
                                         placement_client=object())
    found = worker.BookingWorker(
        manager_api=gpu_cloud.LocalManagerAPI(lease_manager))
    loop = events.EventLoop()

    def deliver():
        while casts:
            cast = dict(casts.pop(0))
            method, booking_id = cast.pop('method'), cast.pop('booking_id')
            for key in ('project_id', 'user_id'):
                cast.pop(key)
            getattr(found, method)(_admin(), booking_id, **cast)

    def settle():
        deliver()
        loop.tick()

    found.deliver, found.settle = deliver, settle
    yield found
    loop.stop()
    plugins._PLUGINS.clear()
    notify.reset()


def _active_booking(http, engine):
    make_flavor('gpu.a100')
    made = http.post('member_a', '/v1/reservations', json={
        'flavor_id': 'gpu.a100', 'start': future(0), 'end': future(2)})
    assert made.status_code == 201, made.text
    booking_id = made.json()['reservation']['id']
    engine.deliver()
    booking = bookings_db.booking_get(_admin(), booking_id)
    deadline = time.monotonic() + 10
    while leases_db.lease_get(_admin(), booking.lease_id).status != \
            states.Lease.ACTIVE:
        assert time.monotonic() < deadline
        engine.settle()
        time.sleep(0.2)
    return booking_id, booking.lease_id


def _allocations(lease_id):
    lease = leases_db.lease_get(_admin(), lease_id)
    return [(a.host_id, a.amount) for r in lease.reservations
            for a in r.allocations]


def test_a_second_delete_keeps_the_live_lease_allocations(http, engine):
    booking_id, lease_id = _active_booking(http, engine)
    held = _allocations(lease_id)
    assert held
    path = '/v1/reservations/%s' % booking_id

    # Before: 204, 204, the row and the lease's allocations gone.
    answers = together(lambda: http.delete('member_a', path),
                       lambda: http.delete('member_a', path))
    assert sorted(a.status_code for a in answers) == [204, 409], [
        a.text for a in answers]
    assert _allocations(lease_id) == held
    # Again, one after the other: 409 while the lease tears down.
    assert_http_error(http.delete('member_a', path), 409,
                      'still being torn down')
    assert http.get('member_a', path).json()['reservation'][
        'status'] == states.Booking.COMPLETE
    assert_http_error(http.patch('member_a', path,
                                 json={'end': future(3)}), 409,
                      'COMPLETE')

    # The cancel's teardown: the end runs now and releases them.
    deadline = time.monotonic() + 10
    while True:
        engine.settle()
        try:
            leases_db.lease_get(_admin(), lease_id)
        except Exception:
            break
        assert time.monotonic() < deadline, 'the lease is still there'
        time.sleep(0.2)
    assert http.delete('member_a', path).status_code == 204
    assert http.get('member_a', path).status_code == 404


# device reservations ---------------------------------------------------------

def _active_device_reservation(http, gpu_api):
    made = http.post('member_a', '/v1/device-reservations', json={
        'count': 1, 'model': A100, 'domains': ['gpu-vm-2']})
    assert made.status_code == 201, made.text
    reservation_id = made.json()['device_reservation']['id']
    for _ in range(3):
        gpu_api.tick()
    found = device_reservations_db.device_reservation_get(_admin(),
                                                          reservation_id)
    assert found.status == 'ACTIVE', found.status_reason
    return reservation_id


@pytest.fixture
def slow_moves(monkeypatch):
    """The manager's moves of an end take a while, as under load: the
    moves sent together queue on its lock, each with the lease it read
    before, while the cancel's deletion gets in between them."""
    real = device_gpu.DeviceGpuPlugin.check_new_window

    def slow(self, *args):
        time.sleep(0.1)
        return real(self, *args)

    monkeypatch.setattr(device_gpu.DeviceGpuPlugin, 'check_new_window',
                        slow)


def test_a_cancel_racing_moves_of_the_end_is_final(http, gpu_api, a100,
                                                   slow_moves):
    for _ in range(3):
        reservation_id = _active_device_reservation(http, gpu_api)
        path = '/v1/device-reservations/%s' % reservation_id
        done = threading.Event()

        def work():
            # The worker, taking the cancel's cast as soon as it comes.
            while not done.is_set():
                while gpu_api.casts:
                    method, rid = gpu_api.casts.pop(0)
                    getattr(gpu_api.worker, method)(_admin(), rid)
                time.sleep(0.01)

        worker_thread = threading.Thread(target=work)
        worker_thread.start()
        try:
            answers = together(
                lambda: http.delete('member_a', path),
                *[lambda h=h: http.patch('admin', path,
                                         json={'end': future(h)})
                  for h in range(1, 6)])
        finally:
            done.set()
            worker_thread.join(30)
        assert answers[0].status_code == 204, answers[0].text
        for moved in answers[1:]:
            assert moved.status_code in (200, 409), moved.text
            if moved.status_code == 409:
                assert_http_error(moved, 409)
        # Before: 'cancelled', released_at null, the device held until the
        # new end. Now: released within one turn.
        gpu_api.tick()
        gpu_api.tick()
        found = device_reservations_db.device_reservation_get(_admin(),
                                                              reservation_id)
        assert found.status == 'CANCELLED'
        assert found.released_at is not None
        assert found.lease_id is None
        assert gpu_api.domain(a100, 'gpu-vm-2')['hostdevs'] == []
        assert_http_error(http.patch('admin', path,
                                     json={'end': future(7)}), 409,
                          'cancelled')
        assert_http_error(http.post('member_a', path + '/attach',
                                    json={'domain': 'gpu-vm-3'}), 409,
                          'cancelled')
