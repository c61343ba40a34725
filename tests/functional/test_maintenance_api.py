"""/v1/maintenance-windows: windows that close flavors."""
import datetime

import pytest

from reserve.common import states
from reserve.common import timeutils
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import roomy  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import iso
from tests.functional.api_fixtures import make_booking
from tests.functional.api_fixtures import make_flavor
from tests.functional.api_fixtures import MEMBER_A

URL = '/v1/maintenance-windows'
HOUR = datetime.timedelta(hours=1)
GUARD = datetime.timedelta(seconds=60)

pytestmark = pytest.mark.usefixtures('roomy')


@pytest.fixture
def now():
    return timeutils.utcnow()


@pytest.fixture
def flavors(api):
    return make_flavor('gpu.a100', slots=2), make_flavor('gpu.h100',
                                                         slots=2)


def _create(api, start, end, expect_errors=False, **body):
    body = dict({'start': iso(start), 'end': iso(end)}, **body)
    if 'all_flavors' not in body and 'flavors' not in body:
        body['flavors'] = ['gpu.a100']
    return api.post_json(URL, body, headers=ADMIN,
                         expect_errors=expect_errors)


def test_create_show_list_update_delete(api, flavors, now):
    a100, h100 = flavors
    response = _create(api, now + HOUR, now + 2 * HOUR, note='PSU swap',
                       flavors=['gpu.a100', h100.id])
    assert response.status_int == 201
    window = response.json['maintenance_window']
    assert window == dict(window, start=iso(now + HOUR),
                          end=iso(now + 2 * HOUR), note='PSU swap',
                          all_flavors=False,
                          flavors=sorted([a100.id, h100.id]))
    path = response.headers['Location']
    assert path == 'http://localhost%s/%s' % (URL, window['id'])
    assert api.get(path, headers=ADMIN).json['maintenance_window'] == window
    listed = api.get(URL, headers=ADMIN).json['maintenance_windows']
    assert [w['id'] for w in listed] == [window['id']]
    moved = api.patch_json(path, {'end': iso(now + 3 * HOUR),
                                  'flavors': ['gpu.h100']},
                           headers=ADMIN).json['maintenance_window']
    assert (moved['end'], moved['flavors']) == (iso(now + 3 * HOUR),
                                                [h100.id])
    assert api.delete(path, headers=ADMIN).status_int == 204
    assert_error(api.get(path, headers=ADMIN, expect_errors=True), 404,
                 'reserve.not_found')


def test_list_filters(api, flavors, now):
    mine = _create(api, now + HOUR, now + 2 * HOUR).json[
        'maintenance_window']
    everything = _create(api, now + 3 * HOUR, now + 4 * HOUR,
                         all_flavors=True).json['maintenance_window']
    other = _create(api, now + 5 * HOUR, now + 6 * HOUR,
                    flavors=['gpu.h100']).json['maintenance_window']

    def ids(query):
        return [w['id'] for w in api.get(URL + query, headers=ADMIN).json[
            'maintenance_windows']]

    assert ids('') == [mine['id'], everything['id'], other['id']]
    assert ids('?flavor_id=gpu.a100') == [mine['id'], everything['id']]
    assert ids('?flavor_id=gpu.z99') == []
    assert ids('?limit=1') == [mine['id']]


def test_past_windows_are_listed_on_demand(api, flavors, now):
    window = _create(api, now - 2 * HOUR, now + HOUR).json[
        'maintenance_window']
    api.patch_json('%s/%s' % (URL, window['id']), {'note': 'done'},
                   headers=ADMIN)
    # Make it past without the API (which refuses past ends).
    from reserve.db import maintenance as maintenance_db
    from tests.functional.api_fixtures import admin_context
    maintenance_db.window_update(admin_context(), window['id'],
                                 {'end': now - HOUR})
    assert api.get(URL, headers=ADMIN).json['maintenance_windows'] == []
    listed = api.get(URL + '?include_past=true',
                     headers=ADMIN).json['maintenance_windows']
    assert [w['id'] for w in listed] == [window['id']]


def test_overlapping_live_reservations_is_409_with_their_list(
        api, flavors, now):
    a100, h100 = flavors
    first = make_booking(flavor_id='gpu.a100', start=now + HOUR,
                         end=now + 3 * HOUR)
    # Ends exactly a guard before: no conflict.
    make_booking(flavor_id='gpu.a100', start=now,
                 end=now + 2 * HOUR - GUARD)
    # Ends within the guard before: a conflict.
    touching = make_booking(flavor_id='gpu.a100', start=now,
                            end=now + 2 * HOUR, project='project-b')
    # Finished or on another flavor: no conflict.
    make_booking(flavor_id='gpu.a100', start=now + HOUR,
                 end=now + 3 * HOUR, status=states.Booking.ERROR)
    make_booking(flavor_id='gpu.h100', start=now + HOUR,
                 end=now + 3 * HOUR)
    response = _create(api, now + 2 * HOUR, now + 4 * HOUR,
                       expect_errors=True)
    error = assert_error(response, 409,
                         'reserve.maintenance_overlaps_reservations',
                         ['2 live reservation(s)', first.id, touching.id,
                          'project project-b', 'force'])
    assert error['detail'].index(touching.id) < error['detail'].index(
        first.id)   # by start
    assert api.get(URL, headers=ADMIN).json['maintenance_windows'] == []

    # Forced, it is created and the reservations stay as they are.
    forced = _create(api, now + 2 * HOUR, now + 4 * HOUR, force=True)
    assert forced.status_int == 201


def test_all_flavors_window_checks_every_flavor(api, flavors, now):
    booking = make_booking(flavor_id='gpu.h100', start=now + HOUR,
                           end=now + 2 * HOUR)
    response = _create(api, now, now + 3 * HOUR, all_flavors=True,
                       expect_errors=True)
    assert_error(response, 409, 'reserve.maintenance_overlaps_reservations',
                 booking.id)


def test_moving_a_window_onto_reservations_is_409(api, flavors, now):
    window = _create(api, now + HOUR, now + 2 * HOUR).json[
        'maintenance_window']
    booking = make_booking(flavor_id='gpu.h100', start=now + HOUR,
                           end=now + 2 * HOUR)
    path = '%s/%s' % (URL, window['id'])
    response = api.patch_json(path, {'flavors': ['gpu.h100']},
                              headers=ADMIN, expect_errors=True)
    assert_error(response, 409, 'reserve.maintenance_overlaps_reservations',
                 booking.id)
    assert api.patch_json(path, {'flavors': ['gpu.h100'], 'force': True},
                          headers=ADMIN).status_int == 200
    # A note can change without forcing again.
    assert api.patch_json(path, {'note': 'moved'},
                          headers=ADMIN).status_int == 200


def test_a_window_takes_every_slot(api, flavors, now):
    _create(api, now + HOUR, now + 2 * HOUR)
    response = api.post_json('/v1/reservations', {
        'flavor_id': 'gpu.a100', 'start': iso(now + HOUR + HOUR / 2),
        'end': iso(now + 3 * HOUR)}, headers=MEMBER_A, expect_errors=True)
    assert_error(response, 409, 'reserve.maintenance')
    availability = api.get('/v1/flavors/availability?start=%s&end=%s' % (
        iso(now + HOUR), iso(now + 2 * HOUR)),
        headers=MEMBER_A).json['availability']
    assert {a['name']: a['available'] for a in availability} == {
        'gpu.a100': 0, 'gpu.h100': 2}


@pytest.mark.parametrize('body,words', [
    ({'flavors': None}, ["'flavors'", "'all_flavors'"]),
    ({'flavors': ['gpu.a100'], 'all_flavors': True}, ['exclude each other']),
    ({'flavors': []}, ['flavors', 'should be non-empty']),
    ({'flavors': ['gpu.z99']}, ['flavors', 'gpu.z99']),
    ({'start': 'later'}, ['start', 'not an ISO 8601']),
    ({'end': None}, ["missing required field 'end'"]),
    ({'start': '2099-01-02T00:00:00Z', 'end': '2099-01-01T00:00:00Z'},
     ['end', 'must be after start']),
    ({'start': '2020-01-01T00:00:00Z', 'end': '2020-01-02T00:00:00Z'},
     ['end', 'in the past']),
    ({'reason': 'x'}, ["unknown field 'reason'"]),
])
def test_create_invalid_is_400(api, flavors, body, words):
    full = {'start': '2099-01-01T00:00:00Z', 'end': '2099-01-02T00:00:00Z',
            'flavors': ['gpu.a100']}
    full.update(body)
    full = {k: v for k, v in full.items() if v is not None}
    response = api.post_json(URL, full, headers=ADMIN, expect_errors=True)
    assert_error(response, 400, 'reserve.invalid', words)
    assert api.get(URL, headers=ADMIN).json['maintenance_windows'] == []


def test_members_cannot_see_or_touch_windows(api, flavors, now):
    window = _create(api, now + HOUR, now + 2 * HOUR).json[
        'maintenance_window']
    path = '%s/%s' % (URL, window['id'])
    for response in (
            api.get(URL, headers=MEMBER_A, expect_errors=True),
            api.get(path, headers=MEMBER_A, expect_errors=True),
            api.post_json(URL, {'start': iso(now), 'end': iso(now + HOUR),
                                'all_flavors': True}, headers=MEMBER_A,
                          expect_errors=True),
            api.patch_json(path, {'note': 'x'}, headers=MEMBER_A,
                           expect_errors=True),
            api.delete(path, headers=MEMBER_A, expect_errors=True)):
        assert_error(response, 403, 'reserve.forbidden',
                     'reserve:maintenance:')
