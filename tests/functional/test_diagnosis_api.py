"""GET /v1/reservations/{id}/diagnosis and the doctor (GET /v1/diagnoses)
through the WSGI stack and the real lease manager on the fake
transport: who may ask, what older microversions see, and a manager
that does not answer. What each layer finds is
tests/unit/diagnosis's."""
import pytest

from reserve.common import rpc
from reserve.manager import manager
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import casts  # noqa: F401
from tests.functional.api_fixtures import future
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.functional.api_fixtures import READER_A
from tests.functional.api_fixtures import roomy  # noqa: F401
from tests.functional.api_fixtures import short_rpc_timeout  # noqa: F401

V13 = {'OpenStack-API-Version': 'reserve 1.3'}

pytestmark = pytest.mark.usefixtures('roomy', 'casts')


@pytest.fixture
def lease_manager(api):  # noqa: F811
    server = rpc.get_server(rpc.MANAGER_TOPIC, '1.1',
                            [manager.LeaseManager()])
    server.start()
    yield
    server.stop()
    server.wait()


@pytest.fixture
def booking(api):  # noqa: F811
    api.post_json('/v1/flavors', {
        'name': 'gpu.a100', 'nova_flavor_id': 'g1.a100', 'slots': 4},
        headers=ADMIN)
    return api.post_json('/v1/reservations', {
        'flavor_id': 'gpu.a100', 'start': future(24), 'end': future(48)},
        headers=MEMBER_A).json['reservation']


def _get(api, path, headers, **kwargs):  # noqa: F811
    return api.get(path, headers=dict(headers, **V13), **kwargs)


@pytest.mark.usefixtures('lease_manager')
def test_a_reader_of_the_project_diagnoses_its_reservation(api,  # noqa: F811
                                                           booking):
    diagnosis = _get(api, '/v1/reservations/%s/diagnosis' % booking['id'],
                     READER_A).json['diagnosis']
    assert diagnosis['reservation_id'] == booking['id']
    assert diagnosis['kind'] == 'reservation'
    assert diagnosis['layers'][0]['layer'] == 'booking'
    assert diagnosis['layers'][0]['found']['status'] == 'PENDING_CREATE'
    # Just booked, its lease on its way: nothing disagrees yet.
    assert diagnosis['mismatch'] is None


@pytest.mark.usefixtures('lease_manager')
def test_another_project_gets_the_404_of_get(api, booking):  # noqa: F811
    url = '/v1/reservations/%s' % booking['id']
    shown = api.get(url, headers=MEMBER_B, expect_errors=True)
    diagnosed = _get(api, url + '/diagnosis', MEMBER_B, expect_errors=True)
    assert assert_error(diagnosed, 404)['detail'] == \
        assert_error(shown, 404)['detail']
    assert_error(_get(api, '/v1/reservations/nope/diagnosis', MEMBER_A,
                      expect_errors=True), 404, 'reserve.not_found')
    assert _get(api, url + '/diagnosis', ADMIN).status_int == 200
    # Only GET, and nothing below it.
    assert_error(api.post_json(url + '/diagnosis', {},
                               headers=dict(MEMBER_A, **V13),
                               expect_errors=True), 405)
    assert_error(_get(api, url + '/diagnosis/more', MEMBER_A,
                      expect_errors=True), 404)


def test_below_1_3_the_routes_do_not_exist(api, booking):  # noqa: F811
    for path in ('/v1/reservations/%s/diagnosis' % booking['id'],
                 '/v1/device-reservations/x/diagnosis', '/v1/diagnoses'):
        for version in ('1.0', '1.2'):
            assert_error(api.get(path, headers=dict(
                ADMIN, **{'OpenStack-API-Version': 'reserve ' + version}),
                expect_errors=True), 404, 'reserve.not_found',
                'The resource %s could not be found.' % path)


@pytest.mark.usefixtures('lease_manager')
def test_the_doctor_is_for_administrators(api, booking):  # noqa: F811
    for persona in (MEMBER_A, READER_A):
        assert_error(_get(api, '/v1/diagnoses', persona,
                          expect_errors=True), 403)
    report = _get(api, '/v1/diagnoses', ADMIN).json
    assert report == {'checked': 1, 'reservations': []}
    assert _get(api, '/v1/diagnoses?kind=device_reservation', ADMIN).json[
        'checked'] == 0
    assert_error(_get(api, '/v1/diagnoses?kind=lease', ADMIN,
                      expect_errors=True), 400, detail_has='kind')
    assert_error(_get(api, '/v1/diagnoses?all=1', ADMIN,
                      expect_errors=True), 400)


@pytest.mark.usefixtures('short_rpc_timeout')
def test_a_manager_that_does_not_answer_is_503(api, booking):  # noqa: F811
    for path in ('/v1/reservations/%s/diagnosis' % booking['id'],
                 '/v1/diagnoses'):
        assert_error(_get(api, path, ADMIN, expect_errors=True), 503,
                     'reserve.service_unavailable',
                     'check that reserve-manager is running')
