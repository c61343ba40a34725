"""Version documents, microversions, the error shape, request ids,
healthcheck and authentication of the API."""
from oslo_config import cfg
from oslo_db import exception as db_exc
import pytest
import webtest

from reserve.api import app as api_app
from reserve.api import microversion
from tests.fixtures import database
from tests.fixtures import placement
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import make_flavor
from tests.functional.api_fixtures import MEMBER_A

CONF = cfg.CONF
HEADER = 'OpenStack-API-Version'
NEWEST = str(microversion.MAX_VERSION)
BEYOND = '%d.%d' % (microversion.MAX_VERSION.major,
                    microversion.MAX_VERSION.minor + 1)


def _check_version_doc(doc):
    assert doc['id'] == 'v1.0'
    assert doc['status'] == 'CURRENT'
    assert doc['min_version'] == '1.0'
    assert doc['max_version'] == NEWEST
    assert {'rel': 'self', 'href': 'http://localhost/v1'} in doc['links']


def test_root_lists_versions(api):
    response = api.get('/')
    assert response.status_int == 200
    versions = response.json['versions']
    assert len(versions) == 1
    _check_version_doc(versions[0])


@pytest.mark.parametrize('path', ['/v1', '/v1/'])
def test_v1_document(api, path):
    response = api.get(path)
    assert response.status_int == 200
    _check_version_doc(response.json['version'])


def test_versioned_answers_carry_the_version_headers(api):
    response = api.get('/v1/reservations', headers=MEMBER_A)
    assert response.headers[HEADER] == 'reserve 1.0'
    assert HEADER in response.headers['Vary']


@pytest.mark.parametrize('value,served', [
    ('reserve 1.0', '1.0'), ('reserve 1.1', '1.1'), ('reserve 1.2', '1.2'),
    ('reserve 1.3', '1.3'), ('reserve 1.4', '1.4'), ('reserve 1.5', '1.5'),
    ('reserve 1.6', '1.6'), ('reserve 1.7', '1.7'),
    ('reserve latest', NEWEST),
    ('RESERVE 1.0', '1.0'), ('compute 2.90, reserve 1.0', '1.0'),
    ('compute 2.1', '1.0')])
def test_accepted_microversions(api, value, served):
    response = api.get('/v1/reservations',
                       headers=dict(MEMBER_A, **{HEADER: value}))
    assert response.status_int == 200
    assert response.headers[HEADER] == 'reserve ' + served


@pytest.mark.parametrize('value', ['reserve 0.9', 'reserve ' + BEYOND,
                                   'reserve 2.0'])
def test_unsupported_microversion_is_406(api, value):
    response = api.get('/v1/reservations', expect_errors=True,
                       headers=dict(MEMBER_A, **{HEADER: value}))
    error = assert_error(response, 406, 'reserve.not_acceptable',
                         ['not supported', '1.0 to ' + NEWEST])
    assert value.split()[1] in error['detail']
    assert HEADER in response.headers['Vary']


@pytest.mark.parametrize('value', ['reserve one', 'reserve 1', 'reserve',
                                   'reserve 1.0.0', 'reserve 1.01'])
def test_malformed_microversion_is_400(api, value):
    response = api.get('/v1/reservations', expect_errors=True,
                       headers=dict(MEMBER_A, **{HEADER: value}))
    assert_error(response, 400, 'reserve.invalid', HEADER)


def test_unknown_url_is_404_in_the_error_shape(api):
    response = api.get('/v1/nothing-here', headers=MEMBER_A,
                       expect_errors=True)
    assert_error(response, 404, 'reserve.not_found', '/v1/nothing-here')
    assert response.headers[HEADER] == 'reserve 1.0'


def test_unknown_top_level_url_is_404(api):
    assert_error(api.get('/v2', expect_errors=True), 404,
                 'reserve.not_found')


@pytest.mark.parametrize('method,path', [
    ('put', '/v1/reservations'),
    ('put', '/v1/leases'),
    ('post', '/v1/leases'),
    ('delete', '/v1/leases/some-id'),
    ('post', '/'),
    ('delete', '/v1'),
    ('patch', '/v1/reservations'),
    ('delete', '/v1/reservations'),
    ('post', '/v1/reservations/some-id'),
    ('patch', '/v1/hosts'),
    ('delete', '/v1/hosts'),
    ('post', '/v1/hosts/gpu1'),
])
def test_wrong_method_is_405_in_the_error_shape(api, method, path):
    response = getattr(api, method)(path, headers=MEMBER_A,
                                    expect_errors=True)
    error = assert_error(response, 405, 'reserve.method_not_allowed')
    assert method.upper() in error['detail']


def test_every_answer_carries_a_request_id(api):
    responses = [
        api.get('/'),
        api.get('/v1/reservations', headers=MEMBER_A),
        api.get('/v1/reservations/nope', headers=MEMBER_A,
                expect_errors=True),
        api.post('/v1/reservations', 'not json', headers=MEMBER_A,
                 expect_errors=True),
        api.get('/healthcheck'),
    ]
    ids = [r.headers['x-openstack-request-id'] for r in responses]
    assert all(i.startswith('req-') for i in ids)
    assert len(set(ids)) == len(ids)


def test_healthcheck(api):
    response = api.get('/healthcheck')
    assert response.status_int == 200
    assert response.headers['x-openstack-request-id'].startswith('req-')
    response = api.get('/healthcheck',
                       headers={'Accept': 'application/json'})
    assert response.status_int == 200
    assert response.json['detailed'] is False


def test_unexpected_error_is_500_without_traceback(api, monkeypatch):
    from reserve.db import bookings as bookings_db

    def broken(*args, **kwargs):
        raise RuntimeError('secret internal detail')

    monkeypatch.setattr(bookings_db, 'booking_list', broken)
    response = api.get('/v1/reservations', headers=MEMBER_A,
                       expect_errors=True)
    error = assert_error(response, 500, 'reserve.internal_error')
    assert 'secret internal detail' not in response.text
    assert 'request id' in error['detail']


def test_noauth_fills_in_the_development_identity(api):
    make_flavor('gpu.a100')
    response = api.post_json('/v1/reservations', {
        'flavor_id': 'gpu.a100', 'start': '2099-01-01T00:00:00Z',
        'end': '2099-01-02T00:00:00Z'})
    body = response.json['reservation']
    assert body['user_id'] == 'noauth-user'
    assert body['project_id'] == 'noauth-project'
    # noauth defaults to an admin: cross-project listing is allowed.
    assert api.get('/v1/reservations?all_projects=true').status_int == 200


@pytest.fixture
def keystone_api(api):
    CONF.set_override('auth_strategy', 'keystone', group='api')
    CONF.set_override('www_authenticate_uri', 'http://keystone.test/v3',
                      group='keystone_authtoken')
    yield webtest.TestApp(api_app.setup_app())
    CONF.clear_override('www_authenticate_uri', group='keystone_authtoken')
    CONF.clear_override('auth_strategy', group='api')


def test_keystone_versions_are_public(keystone_api):
    assert keystone_api.get('/').status_int == 200
    assert keystone_api.get('/v1').status_int == 200
    assert keystone_api.get('/healthcheck').status_int == 200


def test_keystone_without_token_is_401_in_the_error_shape(keystone_api):
    response = keystone_api.get('/v1/reservations', headers=MEMBER_A,
                                expect_errors=True)
    assert_error(response, 401, 'reserve.unauthorized')
    assert response.headers['WWW-Authenticate'] == \
        'Keystone uri="http://keystone.test/v3"'


@pytest.mark.parametrize('error', [
    db_exc.DBConnectionError('(2003, "Can\'t connect to MySQL server")'),
    db_exc.DBDeadlock('Deadlock found when trying to get lock')])
def test_a_database_that_is_away_is_a_503_not_a_500(api, monkeypatch,
                                                    caplog, error):
    """The database restarting (or a deadlock past its retries): the
    client gets a 503 it may retry, and the log one line."""
    from reserve.db import flavors as flavors_db

    def away(*args, **kwargs):
        raise error

    monkeypatch.setattr(flavors_db, 'flavor_list', away)
    resp = api.get('/v1/flavors', headers=MEMBER_A, status=503)
    assert resp.headers['Retry-After'] == '5'
    assert resp.json['errors'][0]['code'] == 'reserve.service_unavailable'
    assert 'nothing was changed' in resp.json['errors'][0]['detail']
    assert 'Traceback' not in caplog.text


def test_a_postgresql_that_refuses_connections_is_a_503(api, caplog):
    """While PostgreSQL restarts, a new connection is refused ("the
    database system is shutting down", then "Connection refused"):
    oslo.db leaves that error unwrapped, and it is a 503 all the same."""
    # Nothing listens on a free port once its socket is closed.
    port = placement.free_port()
    used = CONF.database.connection
    CONF.set_override('connection', 'postgresql+psycopg2://reserve@'
                      '127.0.0.1:%d/reserve' % port, group='database')
    database.reset_engine()
    try:
        resp = api.get('/v1/flavors', headers=MEMBER_A, status=503)
    finally:
        CONF.set_override('connection', used, group='database')
        database.reset_engine()
    assert resp.headers['Retry-After'] == '5'
    assert resp.json['errors'][0]['code'] == 'reserve.service_unavailable'
    assert 'Traceback' not in caplog.text
