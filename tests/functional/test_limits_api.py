"""/v1/limits: limits and usage, one's own project or (admins) any."""
import datetime

from oslo_config import cfg
from oslo_limit import fixture as limit_fixture
import pytest

from reserve.common import states
from reserve.common import timeutils
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import casts  # noqa: F401
from tests.functional.api_fixtures import iso
from tests.functional.api_fixtures import make_booking
from tests.functional.api_fixtures import make_flavor
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.functional.api_fixtures import READER_A

CONF = cfg.CONF
URL = '/v1/limits'


@pytest.fixture
def bookings(api):
    make_flavor('gpu.a100')
    now = timeutils.utcnow()
    # 2 x 3 h and 1 x 90 min (2 started hours): 8 instance-hours.
    make_booking(instance_count=2, start=now,
                 end=now + datetime.timedelta(hours=3))
    make_booking(instance_count=1, start=now,
                 end=now + datetime.timedelta(minutes=90),
                 status=states.Booking.ACTIVE)
    for status in (states.Booking.COMPLETE, states.Booking.ERROR):
        make_booking(instance_count=4, start=now,
                     end=now + datetime.timedelta(hours=10),
                     status=status)
    make_booking(project='project-b', instance_count=1, start=now,
                 end=now + datetime.timedelta(hours=1))


def test_own_limits_and_usage(api, bookings):
    for headers in (MEMBER_A, READER_A):
        assert api.get(URL, headers=headers).json == {'limits': {
            'project_id': 'project-a', 'driver': 'config',
            'resources': {
                'reservations': {'limit': 10, 'in_use': 2},
                'instance_hours': {'limit': 2000, 'in_use': 8},
                'unit_reservations': {'limit': 10, 'in_use': 0},
                'unit_hours': {'limit': 1440, 'in_use': 0}}}}


def test_admin_reads_any_project(api, bookings):
    limits = api.get(URL + '?project_id=project-b', headers=ADMIN).json
    assert limits['limits']['project_id'] == 'project-b'
    assert limits['limits']['resources']['reservations']['in_use'] == 1


def test_member_cannot_read_another_project(api, bookings):
    response = api.get(URL + '?project_id=project-b', headers=MEMBER_A,
                       expect_errors=True)
    assert_error(response, 403, 'reserve.forbidden',
                 'reserve:limits:get:all_projects')
    # Naming its own project is fine.
    assert api.get(URL + '?project_id=project-a',
                   headers=MEMBER_A).status_int == 200


def test_unknown_parameter_is_400(api):
    assert_error(api.get(URL + '?all_projects=1', headers=ADMIN,
                         expect_errors=True), 400, 'reserve.invalid',
                 'all_projects')


@pytest.fixture
def unified_limits(api):
    CONF.set_override('driver', 'unified_limits', group='quota')
    CONF.set_override('endpoint_id', 'reserve-endpoint', group='oslo_limit')
    fixture = limit_fixture.LimitFixture(
        {'reservations': 5, 'instance_hours': 100,
         'device_reservations': 4, 'device_hours': 500},
        {'project-b': {'reservations': 1}})
    fixture.setUp()
    yield fixture
    fixture.cleanUp()
    CONF.clear_override('endpoint_id', group='oslo_limit')
    CONF.clear_override('driver', group='quota')


def test_unified_limits_through_the_api(api, bookings, casts,
                                        unified_limits):
    limits = api.get(URL, headers=MEMBER_A).json['limits']
    assert limits['driver'] == 'unified_limits'
    assert limits['resources'] == {
        'reservations': {'limit': 5, 'in_use': 2},
        'instance_hours': {'limit': 100, 'in_use': 8},
        'unit_reservations': {'limit': 4, 'in_use': 0},
        'unit_hours': {'limit': 500, 'in_use': 0}}
    b = api.get(URL + '?project_id=project-b', headers=ADMIN).json
    assert b['limits']['resources']['reservations'] == {'limit': 1,
                                                        'in_use': 1}
    # project-b's own limit of 1 refuses a second booking: 413.
    now = timeutils.utcnow()
    response = api.post_json('/v1/reservations', {
        'flavor_id': 'gpu.a100', 'start': iso(now + datetime.timedelta(
            hours=1)), 'end': iso(now + datetime.timedelta(hours=2))},
        headers=MEMBER_B, expect_errors=True)
    assert_error(response, 413, 'reserve.over_quota',
                 ['project-b', 'reservations (1 in use + 1 asked > limit '
                  '1)'])
    assert api.post_json('/v1/reservations', {
        'flavor_id': 'gpu.a100', 'start': iso(now + datetime.timedelta(
            hours=1)), 'end': iso(now + datetime.timedelta(hours=2))},
        headers=MEMBER_A).status_int == 201
