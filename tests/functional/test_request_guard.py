"""What the API does with a request's shape: bodies are JSON, text is
storable."""
import json

import pytest

from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import roomy  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import make_flavor
from tests.functional.api_fixtures import MEMBER_A

FLAVOR = {'name': 'gpu.a100', 'nova_flavor_id': 'g1.a100', 'slots': 4}


def _post(api, content_type, body, status):
    return api.post('/v1/flavors', params=body, status=status,
                    headers=dict(ADMIN, **{'Content-Type': content_type}))


@pytest.mark.parametrize('content_type', [
    'application/json', 'application/json; charset=utf-8',
    # what curl -d sends unless told otherwise
    'application/x-www-form-urlencoded'])
def test_json_body_is_read_whatever_json_ish_type(api, roomy, content_type):
    response = _post(api, content_type, json.dumps(FLAVOR), 201)
    assert response.json['flavor']['name'] == 'gpu.a100'


@pytest.mark.parametrize('content_type', [
    'multipart/form-data', 'multipart/form-data; boundary=x',
    'text/plain', 'application/xml'])
def test_other_body_types_get_415_and_write_nothing(api, content_type):
    response = _post(api, content_type, json.dumps(FLAVOR), 415)
    assert_error(response, 415, 'reserve.unsupported_media_type',
                 detail_has='must be JSON')
    assert api.get('/v1/flavors', headers=ADMIN).json['flavors'] == []


@pytest.mark.parametrize('method', ['delete', 'get'])
def test_content_type_of_a_request_without_body_is_ignored(api, method):
    make_flavor()
    response = getattr(api, method)(
        '/v1/flavors/gpu.a100', status='*',
        headers=dict(ADMIN, **{'Content-Type': 'multipart/form-data'}))
    assert response.status_int in (200, 204), response.text


def test_patch_with_a_form_boundaryless_multipart_is_415(api):
    make_flavor()
    response = api.patch('/v1/flavors/gpu.a100', status=415,
                         params=json.dumps({'slots': 2}),
                         headers=dict(ADMIN, **{
                             'Content-Type': 'multipart/form-data'}))
    assert_error(response, 415)
    assert api.get('/v1/flavors/gpu.a100',
                   headers=ADMIN).json['flavor']['slots'] != 2


def _grant(api, project, status):
    return api.post('/v1/flavors/gpu.a100/projects',
                    params=json.dumps({'project_id': project}),
                    headers=dict(ADMIN, **{
                        'Content-Type': 'application/json'}),
                    status=status)


def test_created_location_of_an_odd_project_id_is_quoted(api):
    make_flavor(is_public=False)
    response = _grant(api, 'p\u00e9/x?#', 201)
    assert response.json['project']['project_id'] == 'p\u00e9/x?#'
    assert response.headers['Location'].endswith(
        '/projects/p%C3%A9/x%3F%23')


@pytest.mark.parametrize('project', ['p\ud929x', 'p\x00x'])
def test_text_no_database_can_store_is_refused(api, project):
    make_flavor(is_public=False)
    assert_error(_grant(api, project, 400), 400, 'reserve.invalid')
    assert api.get('/v1/flavors/gpu.a100/projects',
                   headers=ADMIN).json['projects'] == []


@pytest.mark.parametrize('url', ['/v1/flavors/a%00b',
                                 '/v1/reservations?status=%00',
                                 '/v1/flavors?name=x%00'])
def test_nul_in_the_url_is_400(api, url):
    assert_error(api.get(url, headers=ADMIN, status=400), 400,
                 detail_has='NUL')


def test_a_body_wrapped_in_an_object_is_told_to_be_flat(api):
    response = api.post_json('/v1/reservations', {'reservation': {
        'flavor_id': 'gpu.a100', 'start': '2099-01-01T00:00:00Z',
        'end': '2099-01-02T00:00:00Z'}}, headers=MEMBER_A,
        expect_errors=True)
    assert_error(response, 400, 'reserve.invalid',
                 ['not inside "reservation"', '"end": ...'])


def test_a_body_nested_a_thousand_deep_is_400(api):
    deep = '[' * 1000 + ']' * 1000
    response = api.post('/v1/reservations', '{"flavor_id": %s}' % deep,
                        headers=dict(MEMBER_A,
                                     **{'Content-Type': 'application/json'}),
                        expect_errors=True)
    assert_error(response, 400, 'reserve.invalid', 'nests deeper')


def test_a_huge_body_is_413(api):
    response = api.post_json('/v1/reservations', {
        'flavor_id': 'x' * (2 * 1024 * 1024)}, headers=MEMBER_A,
        expect_errors=True)
    assert_error(response, 413, 'reserve.body_too_large', 'max_body_bytes')


@pytest.mark.parametrize('date', ['9999-12-31T23:00:00Z',
                                  '0001-01-01T00:00:00Z',
                                  '1969-12-31T23:59:59Z'])
@pytest.mark.parametrize('method,path,body', [
    ('post', '/v1/reservations', {'flavor_id': 'gpu.a100',
                                  'start': '{d}', 'end': '{d}'}),
    ('get', '/v1/flavors/gpu.a100/free-slots?start={d}&end={d}', None),
    ('get', '/v1/flavors/availability?start={d}&end={d}', None),
    ('post', '/v1/maintenance-windows', {'start': '{d}', 'end': '{d}',
                                         'all_flavors': True}),
    ('post', '/v1/device-reservations', {'count': 1, 'end': '{d}'}),
])
def test_dates_out_of_range_are_400(api, roomy, date, method, path, body):
    make_flavor('gpu.a100')
    path = path.replace('{d}', date)
    if body is not None:
        body = {k: v.replace('{d}', date) if isinstance(v, str) else v
                for k, v in body.items()}
        response = api.post_json(path, body, headers=ADMIN,
                                 expect_errors=True)
    else:
        response = api.get(path, headers=ADMIN, expect_errors=True)
    assert_error(response, 400, 'reserve.invalid', 'out of range')
