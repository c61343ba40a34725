"""Per-host maintenance and draining (/v1/hosts/{id}/maintenance-windows,
PATCH reservable=false): bookings on the host are named in a 409, or,
forced, moved to hosts with room for their whole window and cancelled
(with the reason, and the user's mail) only where none has room."""
import datetime

import pytest

from reserve.capacity import store
from reserve.common import timeutils
from reserve.db import hosts as hosts_db
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import casts  # noqa: F401
from tests.functional.api_fixtures import iso
from tests.functional.api_fixtures import make_flavor
from tests.functional.api_fixtures import make_host
from tests.functional.api_fixtures import MEMBER_A

HOUR = datetime.timedelta(hours=1)
# Each host holds two instances of the flavor (4 of 8 vCPUs each).
RECORD = {'id': 'm', 'name': 'm', 'vcpus': 4, 'memory_mb': 1024,
          'disk_gb': 10, 'ephemeral_gb': 0, 'extra_specs': {}}


@pytest.fixture
def hosts(api):  # noqa: F811
    return [make_host('h%d.example.org' % i, vcpus=8, memory_mb=65536,
                      local_gb=1000) for i in (1, 2)]


@pytest.fixture
def flavor(hosts):
    return make_flavor('gpu.m', nova_flavor_id='m', slots=10,
                       nova_flavor=RECORD)


@pytest.fixture
def now():
    return timeutils.utcnow().replace(microsecond=0)


def _book(api, start, end, count=1):  # noqa: F811
    response = api.post_json('/v1/reservations', {
        'flavor_id': 'gpu.m', 'start': iso(start), 'end': iso(end),
        'instance_count': count}, headers=MEMBER_A, expect_errors=True)
    assert response.status_int == 201, response.text
    return response.json['reservation']['id']


def _hosts_of(booking_id):
    return {c.host_id: c.amount
            for c in store.allocations_of_booking(admin_context(), booking_id)}


def _window(api, host, start, end, force=None):  # noqa: F811
    body = {'start': iso(start), 'end': iso(end), 'note': 'firmware'}
    if force is not None:
        body['force'] = force
    return api.post_json('/v1/hosts/%s/maintenance-windows' % host.id,
                         body, headers=ADMIN, expect_errors=True)


def test_a_window_over_a_booking_is_refused_naming_it(api, casts, hosts,
                                                      flavor, now):
    booking = _book(api, now + HOUR, now + 3 * HOUR, count=2)
    host = hosts_db.host_get(admin_context(), list(_hosts_of(booking))[0])
    response = _window(api, host, now + 2 * HOUR, now + 4 * HOUR)
    assert_error(response, 409, detail_has=[booking, host.name, 'force'])
    assert api.get('/v1/hosts/%s/maintenance-windows' % host.id,
                   headers=ADMIN).json['maintenance_windows'] == []


def test_forced_a_window_moves_the_booking_to_a_host_with_room(
        api, casts, hosts, flavor, now):
    booking = _book(api, now + HOUR, now + 3 * HOUR, count=2)
    (first,) = _hosts_of(booking)
    other = [h for h in hosts if h.id != first][0]
    response = _window(api, hosts_db.host_get(admin_context(), first),
                       now + 2 * HOUR, now + 4 * HOUR, force=True)
    assert response.status_int == 201, response.text
    assert response.json['reservations'] == {
        'moved': [{'reservation_id': booking, 'instances': 2,
                   'to_hosts': [other.id]}],
        'cancelled': []}
    assert _hosts_of(booking) == {other.id: 2}
    # The window is in the model: nothing more fits then.
    free = api.get('/v1/flavors/gpu.m/free-slots', params={
        'start': iso(now + 2 * HOUR), 'end': iso(now + 3 * HOUR)},
        headers=MEMBER_A).json['free_slots']
    assert free == []
    listed = api.get('/v1/hosts/%s/maintenance-windows' % first,
                     headers=ADMIN).json['maintenance_windows']
    assert [w['note'] for w in listed] == ['firmware']


def test_forced_what_has_no_room_is_cancelled_with_the_reason(
        api, casts, hosts, flavor, now):
    a = _book(api, now + HOUR, now + 3 * HOUR, count=2)
    b = _book(api, now + HOUR, now + 3 * HOUR, count=2)
    host = hosts_db.host_get(admin_context(), list(_hosts_of(a))[0])
    response = _window(api, host, now + 2 * HOUR, now + 4 * HOUR,
                       force=True)
    assert response.status_int == 201, response.text
    assert response.json['reservations'] == {'moved': [],
                                             'cancelled': [a]}
    cancelled = api.get('/v1/reservations/%s' % a,
                        headers=MEMBER_A).json['reservation']
    assert cancelled['status'] == 'ERROR'
    assert host.name in cancelled['status_reason']
    assert 'maintenance' in cancelled['status_reason']
    assert _hosts_of(a) == {}
    assert api.get('/v1/reservations/%s' % b, headers=MEMBER_A).json[
        'reservation']['status'] == 'PENDING_CREATE'
    # What it held before the maintenance is free again.
    freed = _book(api, now + HOUR, now + HOUR + HOUR / 2, count=2)
    assert _hosts_of(freed) == {host.id: 2}


def test_withdrawing_a_host_moves_or_is_refused(api, casts, hosts, flavor,
                                                now):
    booking = _book(api, now + HOUR, now + 3 * HOUR, count=1)
    (first,) = _hosts_of(booking)
    url = '/v1/hosts/%s' % first
    refused = api.patch_json(url, {'reservable': False}, headers=ADMIN,
                             expect_errors=True)
    assert_error(refused, 409, detail_has=[booking, 'Withdrawal'])
    assert hosts_db.host_get(admin_context(), first).reservable
    done = api.patch_json(url, {'reservable': False, 'force': True},
                          headers=ADMIN)
    assert done.json['host']['reservable'] is False
    assert done.json['reservations']['moved'][0]['reservation_id'] == \
        booking
    assert first not in _hosts_of(booking)
    # Nothing new lands on it.
    second = _book(api, now + HOUR, now + 3 * HOUR, count=1)
    assert first not in _hosts_of(second)


def test_bad_windows_are_400(api, hosts, now):
    host = hosts[0]
    assert_error(_window(api, host, now + 2 * HOUR, now + HOUR), 400)
    assert_error(_window(api, host, now - 3 * HOUR, now - HOUR), 400)
    response = api.post_json('/v1/hosts/%s/maintenance-windows' % host.id,
                             {'start': iso(now)}, headers=ADMIN,
                             expect_errors=True)
    assert_error(response, 400)
    response = api.post_json('/v1/hosts/%s/maintenance-windows' % host.id,
                             {'start': iso(now), 'end': iso(now + HOUR)},
                             headers=MEMBER_A, expect_errors=True)
    assert_error(response, 403)
