"""/v1/reservations through the whole WSGI stack: creating one, and
who sees it; listing, changing and deleting are
test_reservation_changes_api.py's."""
import datetime

from oslo_config import cfg
import pytest

from reserve.common import states
from reserve.common import timeutils
from reserve.db import bookings as bookings_db
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import roomy  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import casts  # noqa: F401
from tests.functional.api_fixtures import future
from tests.functional.api_fixtures import iso
from tests.functional.api_fixtures import make_booking
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.functional.api_fixtures import READER_A
from tests.functional.reservation_requests import a100  # noqa: F401
from tests.functional.reservation_requests import booking_rows
from tests.functional.reservation_requests import create
from tests.functional.reservation_requests import request_body
from tests.functional.reservation_requests import URL

CONF = cfg.CONF

pytestmark = pytest.mark.usefixtures('roomy')


# Create --------------------------------------------------------------------

def test_create(api, casts, a100):
    body = request_body(start='2099-03-01T10:00:00+02:00',
                        end='2099-03-03T10:00:00Z')
    response = api.post_json(URL, body, headers=MEMBER_A)
    assert response.status_int == 201
    rsv = response.json['reservation']
    assert response.headers['Location'] == \
        'http://localhost/v1/reservations/%s' % rsv['id']
    assert rsv['project_id'] == 'project-a'
    assert rsv['user_id'] == 'alice'
    # The catalogue entry named in the request, by its id.
    assert rsv['flavor_id'] == a100.id
    assert rsv['instance_count'] == 2
    # Answered in UTC, whatever offset the client used.
    assert rsv['start'] == '2099-03-01T08:00:00Z'
    assert rsv['end'] == '2099-03-03T10:00:00Z'
    assert rsv['status'] == 'PENDING_CREATE'
    assert rsv['status_reason'] is None
    assert rsv['lease_id'] is None
    assert rsv['compute_flavor'] is None
    assert rsv['created_at'].endswith('Z')
    assert set(rsv) == {
        'id', 'project_id', 'user_id', 'flavor_id', 'instance_count',
        'start', 'end', 'status', 'status_reason', 'lease_id',
        'compute_flavor', 'created_at', 'updated_at'}

    row = bookings_db.booking_get(admin_context(), rsv['id'])
    assert row.status == states.Booking.PENDING_CREATE
    assert row.project_id == 'project-a'
    assert row.start == datetime.datetime(2099, 3, 1, 8, 0)
    assert row.end == datetime.datetime(2099, 3, 3, 10, 0)

    assert casts == [{'method': 'create_lease', 'booking_id': rsv['id'],
                      'project_id': 'project-a', 'user_id': 'alice'}]

    shown = api.get(response.headers['Location'], headers=MEMBER_A)
    assert shown.json['reservation'] == rsv


def test_create_defaults_to_one_instance(api, casts):
    response = create(api, instance_count=None)
    assert response.json['reservation']['instance_count'] == 1


def test_create_may_start_within_the_past_tolerance(api, casts):
    start = iso(timeutils.utcnow() - datetime.timedelta(seconds=60))
    assert create(api, start=start).status_int == 201


def test_create_answers_even_when_the_cast_fails(api, monkeypatch):
    from reserve.worker import rpcapi

    def lost(self, context, booking_id):
        raise RuntimeError('bus down')

    monkeypatch.setattr(rpcapi.WorkerAPI, 'create_lease', lost)
    response = create(api)
    # The row is the truth; the reconciler casts again.
    assert response.status_int == 201
    assert len(booking_rows()) == 1


@pytest.mark.parametrize('body,field,words', [
    (request_body(flavor_id=None), 'flavor_id', ['missing required field']),
    (request_body(start=None), 'start', ['missing required field']),
    (request_body(end=None), 'end', ['missing required field']),
    (dict(request_body(), color='blue'), 'color', ['unknown field']),
    (request_body(flavor_id=''), 'flavor_id', []),
    (request_body(flavor_id=42), 'flavor_id', ['not of type']),
    (request_body(start='next tuesday'), 'start', ['not an ISO 8601']),
    (request_body(end='2099-13-45T00:00:00Z'), 'end', ['not an ISO 8601']),
    (request_body(start='2099-03-01T10:00:00'), 'start', ['no timezone']),
    (request_body(start=20990301), 'start', ['not of type']),
    (request_body(start='2099-03-05T00:00:00Z', end='2099-03-04T00:00:00Z'),
     'end', ['must be after start']),
    (request_body(start='2099-03-05T00:00:00Z', end='2099-03-05T00:00:00Z'),
     'end', ['must be after start']),
    (request_body(start='2020-01-01T00:00:00Z'), 'start', ['in the past']),
    (request_body(instance_count=0), 'instance_count', ['minimum of 1']),
    (request_body(instance_count=-3), 'instance_count', ['minimum of 1']),
    (request_body(instance_count='2'), 'instance_count', ['not of type']),
    (request_body(instance_count=1.5), 'instance_count', ['not of type']),
])
def test_create_invalid_is_400_naming_the_field(api, casts, body, field,
                                                words):
    response = api.post_json(URL, body, headers=MEMBER_A,
                             expect_errors=True)
    assert_error(response, 400, 'reserve.invalid', [field] + words)
    assert booking_rows() == []
    assert casts == []


def test_create_start_just_beyond_tolerance_is_400(api, casts):
    CONF.set_override('past_tolerance', 10, group='api')
    try:
        start = iso(timeutils.utcnow() - datetime.timedelta(seconds=60))
        response = api.post_json(URL, request_body(start=start),
                                 headers=MEMBER_A, expect_errors=True)
    finally:
        CONF.clear_override('past_tolerance', group='api')
    assert_error(response, 400, 'reserve.invalid', ['start', 'in the past'])
    assert booking_rows() == []


@pytest.mark.parametrize('raw,words', [
    ('{"flavor_id": "gpu.a100",', 'not valid JSON'),
    ('', 'body is empty'),
    ('[1, 2]', 'must be a JSON object'),
    ('"text"', 'must be a JSON object'),
])
def test_create_bad_json_is_400(api, casts, raw, words):
    response = api.post(URL, raw, headers=dict(
        MEMBER_A, **{'Content-Type': 'application/json'}),
        expect_errors=True)
    assert_error(response, 400, 'reserve.invalid', words)
    assert booking_rows() == []
    assert casts == []


def test_reader_cannot_create(api, casts):
    response = api.post_json(URL, request_body(), headers=READER_A,
                             expect_errors=True)
    assert_error(response, 403, 'reserve.forbidden',
                 'reserve:reservation:create')
    assert booking_rows() == []


# Project isolation ---------------------------------------------------------

def test_other_project_sees_nothing(api, casts):
    rsv = create(api).json['reservation']
    path = '%s/%s' % (URL, rsv['id'])

    assert_error(api.get(path, headers=MEMBER_B, expect_errors=True), 404,
                 'reserve.not_found', rsv['id'])
    assert api.get(URL, headers=MEMBER_B).json['reservations'] == []
    assert_error(api.patch_json(path, {'end': future(100)},
                                headers=MEMBER_B, expect_errors=True), 404)
    assert_error(api.delete(path, headers=MEMBER_B, expect_errors=True),
                 404)
    # Untouched.
    row = bookings_db.booking_get(admin_context(), rsv['id'])
    assert row.status == states.Booking.PENDING_CREATE
    assert timeutils.isoformat(row.end) == rsv['end']
    assert [c['method'] for c in casts] == ['create_lease']


def test_member_asking_for_all_projects_is_403(api):
    for query in ('all_projects=true', 'project_id=project-b'):
        response = api.get('%s?%s' % (URL, query), headers=MEMBER_A,
                           expect_errors=True)
        assert_error(response, 403, 'reserve.forbidden',
                     'reserve:reservation:list:all_projects')


def test_member_may_name_its_own_project(api):
    make_booking(project='project-a')
    response = api.get(URL + '?project_id=project-a', headers=MEMBER_A)
    assert len(response.json['reservations']) == 1


def test_admin_sees_all_projects(api):
    a = make_booking(project='project-a')
    b = make_booking(project='project-b', user='bob')
    listed = api.get(URL + '?all_projects=true', headers=ADMIN).json
    assert {r['id'] for r in listed['reservations']} == {a.id, b.id}
    only_b = api.get(URL + '?project_id=project-b', headers=ADMIN).json
    assert [r['id'] for r in only_b['reservations']] == [b.id]
    # Without all_projects an admin lists its own project, like nova.
    assert api.get(URL, headers=ADMIN).json['reservations'] == []
    # But shows any row.
    shown = api.get('%s/%s' % (URL, a.id), headers=ADMIN).json
    assert shown['reservation']['project_id'] == 'project-a'


def test_reader_can_list_and_show_its_project(api):
    booking = make_booking(project='project-a')
    assert len(api.get(URL, headers=READER_A).json['reservations']) == 1
    shown = api.get('%s/%s' % (URL, booking.id), headers=READER_A).json
    assert shown['reservation']['id'] == booking.id


def test_show_unknown_is_404(api):
    assert_error(api.get(URL + '/no-such-id', headers=MEMBER_A,
                         expect_errors=True), 404, 'reserve.not_found',
                 'no-such-id')
