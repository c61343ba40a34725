"""/v1/flavors: the catalogue, its grants, free slots and availability."""
import datetime
import urllib.parse

import pytest

from reserve.common import states
from reserve.common import timeutils
from reserve.db import flavors as flavors_db
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import roomy  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import casts  # noqa: F401
from tests.functional.api_fixtures import iso
from tests.functional.api_fixtures import make_booking
from tests.functional.api_fixtures import make_flavor
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.functional.api_fixtures import READER_A

URL = '/v1/flavors'
HOUR = datetime.timedelta(hours=1)
GUARD = datetime.timedelta(seconds=60)

pytestmark = pytest.mark.usefixtures('roomy')


def _create(api, headers=ADMIN, **body):
    body = dict({'name': 'gpu.a100', 'nova_flavor_id': 'nova-a100',
                 'slots': 4}, **body)
    return api.post_json(URL, body, headers=headers, expect_errors=True)


def _names(api, headers, query=''):
    listed = api.get(URL + query, headers=headers).json['flavors']
    return [f['name'] for f in listed]


# Create, show, change, delete ------------------------------------------------

def test_create_and_show(api):
    response = _create(api, description='A100 80GB', max_length_hours=72,
                       start='2099-01-01T00:00:00+01:00',
                       end='2099-06-01T00:00:00Z', category='gpu',
                       availability_zone='az1', is_public=False,
                       projects=['project-a'])
    assert response.status_int == 201
    flavor = response.json['flavor']
    assert response.headers['Location'] == \
        'http://localhost/v1/flavors/%s' % flavor['id']
    assert flavor == dict(flavor, name='gpu.a100',
                          nova_flavor_id='nova-a100', slots=4,
                          description='A100 80GB', max_length_hours=72,
                          active=True, is_public=False,
                          start='2098-12-31T23:00:00Z',
                          end='2099-06-01T00:00:00Z', category='gpu',
                          availability_zone='az1', projects=['project-a'])
    assert api.get(response.headers['Location'],
                   headers=ADMIN).json['flavor'] == flavor
    # By name as well.
    assert api.get(URL + '/gpu.a100', headers=ADMIN).json['flavor'] == \
        flavor


def test_defaults(api):
    flavor = _create(api).json['flavor']
    assert flavor['active'] is True
    assert flavor['is_public'] is True
    assert flavor['max_length_hours'] == 168   # [booking]
    assert flavor['start'] is None and flavor['end'] is None
    no_limit = _create(api, name='gpu.free',
                       max_length_hours=None).json['flavor']
    assert no_limit['max_length_hours'] is None


def test_update(api):
    flavor = _create(api).json['flavor']
    response = api.patch_json('%s/%s' % (URL, flavor['id']), {
        'slots': 8, 'active': False, 'end': '2099-01-01T00:00:00Z',
        'name': 'gpu.a100-80'}, headers=ADMIN)
    changed = response.json['flavor']
    assert (changed['slots'], changed['active'], changed['end'],
            changed['name']) == (8, False, '2099-01-01T00:00:00Z',
                                 'gpu.a100-80')
    cleared = api.patch_json('%s/%s' % (URL, flavor['id']),
                             {'end': None}, headers=ADMIN).json['flavor']
    assert cleared['end'] is None


def test_delete(api):
    flavor = _create(api).json['flavor']
    path = '%s/%s' % (URL, flavor['id'])
    assert api.delete(path, headers=ADMIN).status_int == 204
    assert_error(api.get(path, headers=ADMIN, expect_errors=True), 404)


def test_delete_of_a_booked_flavor_is_409(api):
    flavor = _create(api).json['flavor']
    make_booking(flavor_id=flavor['id'], status=states.Booking.COMPLETE)
    response = api.delete('%s/%s' % (URL, flavor['id']), headers=ADMIN,
                          expect_errors=True)
    assert_error(response, 409, 'reserve.flavor_in_use',
                 ['1 reservation', 'active to false'])
    assert api.get('%s/%s' % (URL, flavor['id']),
                   headers=ADMIN).status_int == 200


def test_duplicate_name_is_409(api):
    first = _create(api).json['flavor']
    assert_error(_create(api), 409, 'reserve.flavor_exists',
                 ['gpu.a100', first['id']])
    other = _create(api, name='gpu.h100').json['flavor']
    response = api.patch_json('%s/%s' % (URL, other['id']),
                              {'name': 'gpu.a100'}, headers=ADMIN,
                              expect_errors=True)
    assert_error(response, 409, 'reserve.flavor_exists')


@pytest.mark.parametrize('body,words', [
    ({'name': None}, ["missing required field 'name'"]),
    ({'slots': None}, ["missing required field 'slots'"]),
    ({'nova_flavor_id': None}, ["missing required field 'nova_flavor_id'"]),
    ({'slots': -1}, ['slots', 'minimum']),
    ({'slots': 'four'}, ['slots', 'not of type']),
    ({'max_length_hours': 0}, ['max_length_hours', 'minimum']),
    ({'name': ' padded '}, ['name', 'does not match']),
    ({'name': '0b1c0e34-8d25-4f0e-9d5b-a1a2b3c4d5e6'},
     ['name', 'looks like a UUID']),
    ({'name': 'availability'}, ['name', 'reserved']),
    ({'start': 'tomorrow'}, ['start', 'not an ISO 8601']),
    ({'end': '2099-01-01T00:00:00'}, ['end', 'no timezone']),
    ({'start': '2099-02-01T00:00:00Z', 'end': '2099-01-01T00:00:00Z'},
     ['end', 'must be after start']),
    ({'projects': ['p', 'p']}, ['projects', 'non-unique']),
    ({'color': 'green'}, ["unknown field 'color'"]),
])
def test_create_invalid_is_400(api, body, words):
    full = {'name': 'gpu.a100', 'nova_flavor_id': 'n', 'slots': 1}
    full.update(body)
    full = {k: v for k, v in full.items()
            if v is not None or k not in ('name', 'slots',
                                          'nova_flavor_id')}
    response = api.post_json(URL, full, headers=ADMIN, expect_errors=True)
    assert_error(response, 400, 'reserve.invalid', words)
    assert api.get(URL, headers=ADMIN).json['flavors'] == []


@pytest.mark.parametrize('body,words', [
    ({}, ['at least one of']),
    ({'end': '2000-01-01T00:00:00Z'}, ['end', 'must be after start']),
    ({'projects': ['x']}, ["unknown field 'projects'"]),
])
def test_update_invalid_is_400(api, body, words):
    flavor = _create(api, start='2001-01-01T00:00:00Z').json['flavor']
    response = api.patch_json('%s/%s' % (URL, flavor['id']), body,
                              headers=ADMIN, expect_errors=True)
    assert_error(response, 400, 'reserve.invalid', words)


@pytest.mark.parametrize('method,path,body', [
    ('post', URL, {'name': 'x', 'nova_flavor_id': 'x', 'slots': 1}),
    ('patch', URL + '/gpu.a100', {'slots': 9}),
    ('delete', URL + '/gpu.a100', None),
    ('get', URL + '/gpu.a100/projects', None),
    ('post', URL + '/gpu.a100/projects', {'project_id': 'project-a'}),
    ('delete', URL + '/gpu.a100/projects/project-a', None),
])
def test_writes_are_for_administrators(api, method, path, body):
    make_flavor('gpu.a100')
    kwargs = {'headers': MEMBER_A, 'expect_errors': True}
    if body is not None:
        response = getattr(api, method + '_json')(path, body, **kwargs)
    else:
        response = getattr(api, method)(path, **kwargs)
    assert_error(response, 403, 'reserve.forbidden', 'reserve:flavor:')
    assert flavors_db.flavor_get(admin_context(), 'gpu.a100').slots == 10


def test_method_not_allowed(api):
    make_flavor('gpu.a100')
    response = api.put_json(URL + '/gpu.a100', {}, headers=ADMIN,
                            expect_errors=True)
    assert_error(response, 405)
    assert response.headers['Allow'] == 'GET, PATCH, DELETE'


# Who sees what ---------------------------------------------------------------

@pytest.fixture
def catalogue(api):
    make_flavor('a-public')
    make_flavor('b-inactive', active=False)
    make_flavor('c-private-a', is_public=False, projects=['project-a'])
    make_flavor('d-private-b', is_public=False, projects=['project-b'])
    make_flavor('e-private-none', is_public=False)


def test_users_see_active_public_or_granted_flavors(api, catalogue):
    assert _names(api, MEMBER_A) == ['a-public', 'c-private-a']
    assert _names(api, READER_A) == ['a-public', 'c-private-a']
    assert _names(api, MEMBER_B) == ['a-public', 'd-private-b']
    assert _names(api, ADMIN) == ['a-public', 'b-inactive', 'c-private-a',
                                  'd-private-b', 'e-private-none']


def test_users_never_see_the_grants(api, catalogue):
    for flavor in api.get(URL, headers=MEMBER_A).json['flavors']:
        assert 'projects' not in flavor
    shown = api.get(URL + '/c-private-a', headers=MEMBER_A).json['flavor']
    assert 'projects' not in shown


@pytest.mark.parametrize('name', ['b-inactive', 'd-private-b',
                                  'e-private-none', 'no-such'])
def test_invisible_flavors_are_404(api, catalogue, name):
    flavor_id = (flavors_db.flavor_find_id(admin_context(), name) or name)
    for ref in (name, flavor_id):
        for path in ('%s/%s', '%s/%s/free-slots'):
            response = api.get(path % (URL, ref), headers=MEMBER_A,
                               expect_errors=True)
            assert_error(response, 404, 'reserve.not_found', ref)


def test_list_filters_and_paging(api):
    for i in range(5):
        make_flavor('gpu-%d' % i, category='gpu' if i % 2 else 'vgpu',
                    availability_zone='az%d' % (i % 2))
    assert _names(api, MEMBER_A, '?category=gpu') == ['gpu-1', 'gpu-3']
    assert _names(api, MEMBER_A, '?availability_zone=az0') == [
        'gpu-0', 'gpu-2', 'gpu-4']
    seen, url = [], URL + '?limit=2'
    while url:
        page = api.get(url, headers=MEMBER_A).json
        seen += [f['name'] for f in page['flavors']]
        url = next((link['href'] for link in page['links']
                    if link['rel'] == 'next'), None)
    assert seen == ['gpu-%d' % i for i in range(5)]
    assert_error(api.get(URL + '?colour=red', headers=MEMBER_A,
                         expect_errors=True), 400, 'reserve.invalid',
                 'colour')


def test_admin_filters_on_state(api, catalogue):
    assert _names(api, ADMIN, '?active=false') == ['b-inactive']
    assert _names(api, ADMIN, '?is_public=false') == [
        'c-private-a', 'd-private-b', 'e-private-none']


# Grants ----------------------------------------------------------------------

def test_grant_and_revoke(api):
    flavor = make_flavor('gpu.secret', is_public=False)
    path = '%s/%s/projects' % (URL, flavor.id)
    assert _names(api, MEMBER_A) == []
    response = api.post_json(path, {'project_id': 'project-a'},
                             headers=ADMIN)
    assert response.status_int == 201
    assert response.headers['Location'].endswith(
        '/projects/project-a')
    assert api.get(path, headers=ADMIN).json == {
        'projects': [{'project_id': 'project-a'}]}
    assert _names(api, MEMBER_A) == ['gpu.secret']
    assert_error(api.post_json(path, {'project_id': 'project-a'},
                               headers=ADMIN, expect_errors=True), 409,
                 'reserve.grant_exists')
    assert api.delete(path + '/project-a', headers=ADMIN).status_int == 204
    assert _names(api, MEMBER_A) == []
    assert_error(api.delete(path + '/project-a', headers=ADMIN,
                            expect_errors=True), 404)
    assert_error(api.get(URL + '/no-such/projects', headers=ADMIN,
                         expect_errors=True), 404)


# Free slots ------------------------------------------------------------------

def _free(api, flavor, start, end, count=None, headers=MEMBER_A):
    query = {'start': iso(start), 'end': iso(end)}
    if count:
        query['instance_count'] = count
    path = '%s/%s/free-slots?%s' % (URL, flavor,
                                    urllib.parse.urlencode(query))
    return api.get(path, headers=headers, expect_errors=True)


def test_free_slots(api, casts):
    flavor = make_flavor('gpu.a100', slots=3)
    now = timeutils.utcnow()
    make_booking(flavor_id='gpu.a100', instance_count=2,
                 start_date=now + 2 * HOUR, end_date=now + 4 * HOUR)
    make_booking(flavor_id='gpu.a100', instance_count=1,
                 start_date=now + 3 * HOUR, end_date=now + 5 * HOUR,
                 status=states.Booking.ACTIVE)
    # Finished bookings hold nothing.
    make_booking(flavor_id='gpu.a100', instance_count=3,
                 start_date=now + HOUR, end_date=now + 6 * HOUR,
                 status=states.Booking.ERROR)
    start, end = now + HOUR, now + 6 * HOUR
    one = _free(api, 'gpu.a100', start, end).json
    assert one['flavor_id'] == flavor.id
    assert one['instance_count'] == 1
    assert one['free_slots'] == [
        {'start': iso(start), 'end': iso(now + 3 * HOUR - GUARD)},
        {'start': iso(now + 4 * HOUR + GUARD), 'end': iso(end)}]
    # Two fit while at most one instance is held.
    two = _free(api, flavor.id, start, end, count=2).json['free_slots']
    assert two == [
        {'start': iso(start), 'end': iso(now + 2 * HOUR - GUARD)},
        {'start': iso(now + 4 * HOUR + GUARD), 'end': iso(end)}]
    three = _free(api, flavor.id, start, end, count=3).json['free_slots']
    assert three == [
        {'start': iso(start), 'end': iso(now + 2 * HOUR - GUARD)},
        {'start': iso(now + 5 * HOUR + GUARD), 'end': iso(end)}]
    assert _free(api, 'gpu.a100', start, end,
                 count=4).json['free_slots'] == []


def test_free_slots_start_no_earlier_than_now_and_the_flavor(api):
    now = timeutils.utcnow()
    make_flavor('gpu.a100', start_date=now + 2 * HOUR,
                end_date=now + 3 * HOUR)
    gaps = _free(api, 'gpu.a100', now - 5 * HOUR,
                 now + 9 * HOUR).json['free_slots']
    assert gaps == [{'start': iso(now + 2 * HOUR),
                     'end': iso(now + 3 * HOUR)}]
    make_flavor('gpu.open')
    gaps = _free(api, 'gpu.open', now - 5 * HOUR,
                 now + HOUR).json['free_slots']
    assert gaps[0]['start'] >= iso(now)


def test_free_slots_defaults(api):
    make_flavor('gpu.a100')
    answer = api.get(URL + '/gpu.a100/free-slots', headers=MEMBER_A).json
    start = datetime.datetime.fromisoformat(answer['start'][:-1])
    end = datetime.datetime.fromisoformat(answer['end'][:-1])
    assert end - start == datetime.timedelta(days=30)
    assert answer['instance_count'] == 1
    assert answer['free_slots'] == [{'start': answer['start'],
                                     'end': answer['end']}]


@pytest.mark.parametrize('query,words', [
    ('instance_count=0', ['instance_count', 'positive integer']),
    ('instance_count=two', ['instance_count']),
    ('start=2099-01-02T00:00:00Z&end=2099-01-01T00:00:00Z',
     ["'end'", "after 'start'"]),
    ('start=2099-01-01T00:00:00Z&end=2109-01-01T00:00:00Z',
     ['longer than 731 days']),
    ('start=soon', ['start', 'not an ISO 8601']),
    ('flavor=x', ["unknown query parameter 'flavor'"]),
])
def test_free_slots_invalid_is_400(api, query, words):
    make_flavor('gpu.a100')
    response = api.get(URL + '/gpu.a100/free-slots?' + query,
                       headers=MEMBER_A, expect_errors=True)
    assert_error(response, 400, 'reserve.invalid', words)


def test_free_slots_of_an_inactive_flavor_are_none(api):
    make_flavor('gpu.a100', active=False)
    now = timeutils.utcnow()
    assert _free(api, 'gpu.a100', now, now + HOUR,
                 headers=ADMIN).json['free_slots'] == []


def test_free_slots_show_maintenance_unless_the_caller_bypasses_it(api):
    make_flavor('gpu.a100')
    now = timeutils.utcnow()
    api.post_json('/v1/maintenance-windows', {
        'start': iso(now + 2 * HOUR), 'end': iso(now + 3 * HOUR),
        'flavors': ['gpu.a100']}, headers=ADMIN)
    start, end = now + HOUR, now + 4 * HOUR
    assert _free(api, 'gpu.a100', start, end).json['free_slots'] == [
        {'start': iso(start), 'end': iso(now + 2 * HOUR - GUARD)},
        {'start': iso(now + 3 * HOUR + GUARD), 'end': iso(end)}]
    assert _free(api, 'gpu.a100', start, end,
                 headers=ADMIN).json['free_slots'] == [
        {'start': iso(start), 'end': iso(end)}]


# Availability ----------------------------------------------------------------

def _availability(api, headers=MEMBER_A, **query):
    path = URL + '/availability'
    if query:
        path += '?' + urllib.parse.urlencode(
            {k: iso(v) if isinstance(v, datetime.datetime) else v
             for k, v in query.items()})
    return api.get(path, headers=headers, expect_errors=True)


def test_availability_now_and_over_a_window(api, catalogue):
    now = timeutils.utcnow()
    a100 = make_flavor('gpu.a100', slots=4, category='gpu')
    make_booking(flavor_id='gpu.a100', instance_count=3,
                 start_date=now - HOUR, end_date=now + HOUR,
                 status=states.Booking.ACTIVE)
    make_booking(flavor_id='gpu.a100', instance_count=2,
                 start_date=now + 2 * HOUR, end_date=now + 3 * HOUR)
    make_booking(flavor_id='gpu.a100', instance_count=4,
                 start_date=now - HOUR, end_date=now + 3 * HOUR,
                 status=states.Booking.COMPLETE)

    answer = _availability(api).json
    assert (answer['start'], answer['end']) == (None, None)
    by_name = {a['name']: a for a in answer['availability']}
    # Exactly the flavors project-a may book.
    assert sorted(by_name) == ['a-public', 'c-private-a', 'gpu.a100']
    assert by_name['gpu.a100'] == {
        'flavor_id': a100.id, 'name': 'gpu.a100',
        'nova_flavor_id': 'gpu.a100', 'category': 'gpu',
        'availability_zone': None, 'active': True, 'slots': 4,
        'gpus': None, 'total': 4, 'available': 1}
    assert by_name['a-public']['available'] == 10

    def available(start, end):
        listed = _availability(api, start=start, end=end,
                               category='gpu').json['availability']
        assert [a['name'] for a in listed] == ['gpu.a100']
        return listed[0]['available']

    assert available(now + HOUR + HOUR / 2, now + 2 * HOUR) == 4
    assert available(now, now + 3 * HOUR) == 1        # the worst instant
    assert available(now + 2 * HOUR, now + 4 * HOUR) == 2
    # Within the guard after the end, the slots are still held.
    assert available(now + HOUR, now + HOUR + GUARD) == 1
    assert available(now + HOUR + GUARD, now + 2 * HOUR) == 4


def test_availability_counts_maintenance_as_full(api):
    now = timeutils.utcnow()
    make_flavor('gpu.a100', slots=4)
    api.post_json('/v1/maintenance-windows', {
        'start': iso(now + HOUR), 'end': iso(now + 2 * HOUR),
        'all_flavors': True}, headers=ADMIN)
    listed = _availability(api, start=now + HOUR / 2,
                           end=now + HOUR).json['availability']
    assert listed[0]['available'] == 4
    listed = _availability(api, start=now + HOUR / 2,
                           end=now + 3 * HOUR).json['availability']
    assert listed[0]['available'] == 0


def test_availability_is_live(api):
    """No cache: a booking shows at once, its cancellation too."""
    now = timeutils.utcnow()
    make_flavor('gpu.a100', slots=2)

    def available():
        return _availability(api, start=now + HOUR,
                             end=now + 2 * HOUR).json['availability'][0][
            'available']

    assert available() == 2
    booking = make_booking(flavor_id='gpu.a100', instance_count=2,
                           start_date=now + HOUR, end_date=now + 2 * HOUR)
    assert available() == 0
    api.delete('/v1/reservations/%s' % booking.id, headers=MEMBER_A)
    assert available() == 2


def test_availability_of_administrators_lists_every_flavor(api, catalogue):
    names = [a['name'] for a in _availability(
        api, headers=ADMIN).json['availability']]
    assert names == ['a-public', 'b-inactive', 'c-private-a', 'd-private-b',
                     'e-private-none']


@pytest.mark.parametrize('query,words', [
    ({'start': '2099-01-01T00:00:00Z'}, ['go together']),
    ({'start': '2099-01-02T00:00:00Z', 'end': '2099-01-01T00:00:00Z'},
     ['after']),
    ({'when': 'now'}, ["unknown query parameter 'when'"]),
])
def test_availability_invalid_is_400(api, query, words):
    assert_error(_availability(api, **query), 400, 'reserve.invalid', words)
