"""Finite defaults, over HTTP, with the configuration as shipped.

A member of one project tries to take every GPU of the host for good, to
flood the host with reservations of a second, and to slip floats and
huge counts past the schema. The defaults refuse each, with a message
that names the limit, and /v1/limits shows where the project stands.
"""
import datetime

import pytest

from reserve.common import timeutils
from tests.functional.api_fixtures import future
from tests.functional.api_fixtures import iso
from tests.functional.api_fixtures import make_flavor
from tests.functional.devices.reservations import counts
from tests.functional.hostile.http import assert_http_error

DEVICES = '/v1/device-reservations'
BOOKINGS = '/v1/reservations'


def devices(http, who='member_a'):
    return http.get(who, '/v1/limits').json()['limits']['resources']


def test_a_member_cannot_hold_every_gpu_open_ended(http, gpu_api, a100):
    # Three devices of the A100 host are free; open-ended, each counts
    # [quota]open_ended_hours (720) of the project's 1440 device-hours.
    assert_http_error(http.post('member_a', DEVICES, json={'count': 3}),
                      413, ['device_hours', '0 in use + 2160 asked > limit '
                            '1440'])
    made = http.post('member_a', DEVICES, json={'count': 2})
    assert made.status_code == 201, made.text
    before = counts()
    assert_http_error(http.post('member_a', DEVICES, json={'count': 1}),
                      413, 'device_hours (1440 in use + 720 asked > limit '
                           '1440)')
    assert counts() == before
    # The third is still there for another project.
    other = http.post('member_b', DEVICES, json={'count': 1})
    assert other.status_code == 201, other.text
    assert devices(http)['unit_hours'] == {'limit': 1440, 'in_use': 1440}
    assert devices(http)['unit_reservations'] == {'limit': 10, 'in_use': 1}


def _at(minutes):
    return iso(timeutils.utcnow() + datetime.timedelta(minutes=minutes))


def test_a_member_cannot_flood_the_host_with_short_reservations(
        http, gpu_api, a100):
    detail = assert_http_error(
        # A minute, an hour ahead (not a minute from now: on a loaded
        # machine the request may reach the API when that is past).
        http.post('member_a', DEVICES, json={'count': 1, 'start': _at(60),
                                             'end': _at(61)}),
        400, ['600 seconds', '[devices] min_duration_seconds'])
    assert 'Traceback' not in detail
    # Ten minutes each, one after the other on one device: ten live ones,
    # and no eleventh ([quota]device_reservations), even of one device-hour.
    for n in range(10):
        made = http.post('member_a', DEVICES, json={
            'count': 1, 'start': _at(5 + 20 * n), 'end': _at(15 + 20 * n)})
        assert made.status_code == 201, made.text
    before = counts()
    assert_http_error(http.post('member_a', DEVICES, json={
        'count': 1, 'start': _at(300), 'end': _at(310)}), 413,
        'device_reservations (10 in use + 1 asked > limit 10)')
    assert counts() == before
    assert devices(http)['unit_reservations'] == {'limit': 10, 'in_use': 10}
    assert devices(http)['unit_hours'] == {'limit': 1440, 'in_use': 10}


def test_nothing_beyond_the_catalogues_window(http, gpu_api, a100):
    far = (timeutils.utcnow() + datetime.timedelta(days=800))
    for body, field in (({'count': 1, 'start': future(1),
                          'end': iso(far)}, 'end'),
                        ({'count': 1, 'start': iso(far)}, 'start')):
        assert_http_error(http.post('member_a', DEVICES, json=body), 400,
                          [field, '731 days', '[booking] max_query_days'])
    assert counts()['device_reservations'] == 0


@pytest.mark.parametrize('count', [1.0, 2.5, '1', True, 65, 10 ** 30])
def test_a_device_count_is_a_small_integer(http, gpu_api, a100, count):
    for query in ('', '?dry_run=true'):
        assert_http_error(http.post('member_a', DEVICES + query,
                                    json={'count': count}),
                          400, "field 'count'")
    assert counts()['device_reservations'] == 0


@pytest.mark.parametrize('instance_count', [1.0, '2', False, 1001,
                                            10 ** 30])
def test_an_instance_count_is_a_small_integer(served, instance_count):
    http = served
    make_flavor('gpu.a100')
    body = {'flavor_id': 'gpu.a100', 'start': future(24),
            'end': future(48), 'instance_count': instance_count}
    assert_http_error(http.post('member_a', BOOKINGS, json=body), 400,
                      "field 'instance_count'")
    assert http.get('admin', BOOKINGS + '?all_projects=1').json()[
        'reservations'] == []


def test_limits_show_the_device_quotas(http, gpu_api, a100):
    assert devices(http)['unit_hours'] == {'limit': 1440, 'in_use': 0}
    made = http.post('member_a', DEVICES, json={
        'count': 1, 'end': iso(timeutils.utcnow() + datetime.timedelta(
            hours=2, minutes=30))})
    assert made.status_code == 201, made.text
    # Three started hours of one device; nothing of project-b's.
    assert devices(http)['unit_hours'] == {'limit': 1440, 'in_use': 3}
    assert devices(http, 'member_b')['unit_hours']['in_use'] == 0
