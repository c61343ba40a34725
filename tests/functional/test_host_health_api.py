"""A failed host through the API at microversion 1.3: the host shows its
failure and failed_at, and a booking it still holds shows what it lacks
(missing_capacity); before 1.3 neither is shown. The failure is made
by reserve.manager.healing, as the manager's health check makes it."""
import datetime

import pytest

from reserve.capacity import store
from reserve.common import timeutils
from reserve.db import hosts as hosts_db
from reserve.manager import healing
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import casts  # noqa: F401
from tests.functional.api_fixtures import iso
from tests.functional.api_fixtures import make_flavor
from tests.functional.api_fixtures import make_host
from tests.functional.api_fixtures import MEMBER_A

HOUR = datetime.timedelta(hours=1)
HEADER = 'OpenStack-API-Version'
# Each host holds two instances of the flavor.
RECORD = {'id': 'm', 'name': 'm', 'vcpus': 4, 'memory_mb': 1024,
          'disk_gb': 10, 'ephemeral_gb': 0, 'extra_specs': {}}
FAILURE = 'the compute service of host h1 is down'


def _at(version, headers=MEMBER_A):
    return dict(headers, **{HEADER: 'reserve %s' % version})


@pytest.fixture
def hosts(api):  # noqa: F811
    found = [make_host('h%d.example.org' % i, vcpus=8, memory_mb=65536,
                       local_gb=1000) for i in (1, 2)]
    make_flavor('gpu.m', nova_flavor_id='m', slots=10, nova_flavor=RECORD)
    return found


def _book(api, count):  # noqa: F811
    now = timeutils.utcnow()
    response = api.post_json('/v1/reservations', {
        'flavor_id': 'gpu.m', 'start': iso(now + HOUR),
        'end': iso(now + 3 * HOUR), 'instance_count': count},
        headers=MEMBER_A)
    return response.json['reservation']['id']


def _reservation(api, booking_id, version='1.3'):  # noqa: F811
    return api.get('/v1/reservations/%s' % booking_id,
                   headers=_at(version)).json['reservation']


def _no_sync(context, lease_id):
    raise AssertionError('no lease of these bookings is running')


def test_what_a_failed_host_still_holds_is_shown_missing(api, casts, hosts):
    first = _book(api, 2)
    second = _book(api, 2)   # both hosts are full
    host_id = next(iter({a.host_id for a in store.allocations_of_booking(
        admin_context(), first)}))
    assert _reservation(api, first)['missing_capacity'] == []
    healing.fail(admin_context(), hosts_db.host_get(admin_context(),
                                                    host_id),
                 FAILURE, _no_sync)
    host = hosts_db.host_get(admin_context(), host_id)
    # A second manager that saw it too changes nothing.
    healing.fail(admin_context(), host, 'another sentence', _no_sync)
    assert hosts_db.host_get(admin_context(), host_id).failure == FAILURE
    shown = _reservation(api, first)
    assert shown['status'] == 'PENDING_CREATE'     # not cancelled
    assert shown['missing_capacity'] == [{
        'host': host.name, 'instances': 2, 'reason': FAILURE,
        'since': timeutils.isoformat(host.failed_at)}]
    assert _reservation(api, second)['missing_capacity'] == []
    assert 'missing_capacity' not in _reservation(api, first, '1.2')
    viewed = api.get('/v1/hosts/%s' % host_id,
                     headers=_at('1.3', ADMIN)).json['host']
    assert viewed['failure'] == FAILURE
    assert viewed['failed_at'] == timeutils.isoformat(host.failed_at)
    assert viewed['reservable'] is True      # the operator's choice
    assert 'failure' not in api.get('/v1/hosts/%s' % host_id,
                                    headers=ADMIN).json['host']

    healing.recover(admin_context(), host, _no_sync)
    assert _reservation(api, first)['missing_capacity'] == []
    viewed = api.get('/v1/hosts/%s' % host_id,
                     headers=_at('1.3', ADMIN)).json['host']
    assert (viewed['failure'], viewed['failed_at']) == (None, None)


def test_a_failed_host_takes_no_new_booking(api, casts, hosts):
    healing.fail(admin_context(), hosts[0], FAILURE, _no_sync)
    booked = _book(api, 2)
    assert {a.host_id for a in store.allocations_of_booking(
        admin_context(), booked)} == {hosts[1].id}
    response = api.post_json('/v1/reservations', {
        'flavor_id': 'gpu.m', 'start': iso(timeutils.utcnow() + HOUR),
        'end': iso(timeutils.utcnow() + 2 * HOUR), 'instance_count': 1},
        headers=MEMBER_A, expect_errors=True)
    assert response.status_int == 409, response.text
