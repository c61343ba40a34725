"""/v1/flavors: the catalogue and its grants; its free slots and
availability are test_flavor_availability_api.py's."""
import datetime

import pytest

from reserve.common import states
from reserve.db import flavors as flavors_db
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import roomy  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import catalogue  # noqa: F401
from tests.functional.api_fixtures import casts  # noqa: F401
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
