"""/v1/reservations through the whole WSGI stack."""
import datetime
import urllib.parse

from oslo_config import cfg
import pytest

from reserve.common import states
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import bookings as bookings_db
from reserve.db import models
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import roomy  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import casts  # noqa: F401
from tests.functional.api_fixtures import future
from tests.functional.api_fixtures import iso
from tests.functional.api_fixtures import make_booking
from tests.functional.api_fixtures import make_flavor
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.functional.api_fixtures import READER_A

CONF = cfg.CONF
URL = '/v1/reservations'

pytestmark = pytest.mark.usefixtures('roomy')


@pytest.fixture(autouse=True)
def a100(api):
    """The catalogue flavor the reservations below book."""
    return make_flavor('gpu.a100')


def _body(**changes):
    body = {'flavor_id': 'gpu.a100', 'start': future(24),
            'end': future(72), 'instance_count': 2}
    body.update(changes)
    return {k: v for k, v in body.items() if v is not None}


def _rows():
    engine = db_api.get_engine()
    with engine.connect() as connection:
        return connection.execute(models.Booking.__table__.select()).all()


def _create(api, headers=MEMBER_A, **changes):
    return api.post_json(URL, _body(**changes), headers=headers)


# Create --------------------------------------------------------------------

def test_create(api, casts, a100):
    body = _body(start='2099-03-01T10:00:00+02:00',
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
    assert row.start_date == datetime.datetime(2099, 3, 1, 8, 0)
    assert row.end_date == datetime.datetime(2099, 3, 3, 10, 0)

    assert casts == [{'method': 'create_lease', 'booking_id': rsv['id'],
                      'project_id': 'project-a', 'user_id': 'alice'}]

    shown = api.get(response.headers['Location'], headers=MEMBER_A)
    assert shown.json['reservation'] == rsv


def test_create_defaults_to_one_instance(api, casts):
    response = _create(api, instance_count=None)
    assert response.json['reservation']['instance_count'] == 1


def test_create_may_start_within_the_past_tolerance(api, casts):
    start = iso(timeutils.utcnow() - datetime.timedelta(seconds=60))
    assert _create(api, start=start).status_int == 201


def test_create_answers_even_when_the_cast_fails(api, monkeypatch):
    from reserve.worker import rpcapi

    def lost(self, context, booking_id):
        raise RuntimeError('bus down')

    monkeypatch.setattr(rpcapi.WorkerAPI, 'create_lease', lost)
    response = _create(api)
    # The row is the truth; the reconciler casts again.
    assert response.status_int == 201
    assert len(_rows()) == 1


@pytest.mark.parametrize('body,field,words', [
    (_body(flavor_id=None), 'flavor_id', ['missing required field']),
    (_body(start=None), 'start', ['missing required field']),
    (_body(end=None), 'end', ['missing required field']),
    (dict(_body(), color='blue'), 'color', ['unknown field']),
    (_body(flavor_id=''), 'flavor_id', []),
    (_body(flavor_id=42), 'flavor_id', ['not of type']),
    (_body(start='next tuesday'), 'start', ['not an ISO 8601']),
    (_body(end='2099-13-45T00:00:00Z'), 'end', ['not an ISO 8601']),
    (_body(start='2099-03-01T10:00:00'), 'start', ['no timezone']),
    (_body(start=20990301), 'start', ['not of type']),
    (_body(start='2099-03-05T00:00:00Z', end='2099-03-04T00:00:00Z'),
     'end', ['must be after start']),
    (_body(start='2099-03-05T00:00:00Z', end='2099-03-05T00:00:00Z'),
     'end', ['must be after start']),
    (_body(start='2020-01-01T00:00:00Z'), 'start', ['in the past']),
    (_body(instance_count=0), 'instance_count', ['minimum of 1']),
    (_body(instance_count=-3), 'instance_count', ['minimum of 1']),
    (_body(instance_count='2'), 'instance_count', ['not of type']),
    (_body(instance_count=1.5), 'instance_count', ['not of type']),
])
def test_create_invalid_is_400_naming_the_field(api, casts, body, field,
                                                words):
    response = api.post_json(URL, body, headers=MEMBER_A,
                             expect_errors=True)
    assert_error(response, 400, 'reserve.invalid', [field] + words)
    assert _rows() == []
    assert casts == []


def test_create_start_just_beyond_tolerance_is_400(api, casts):
    CONF.set_override('past_tolerance', 10, group='api')
    try:
        start = iso(timeutils.utcnow() - datetime.timedelta(seconds=60))
        response = api.post_json(URL, _body(start=start), headers=MEMBER_A,
                                 expect_errors=True)
    finally:
        CONF.clear_override('past_tolerance', group='api')
    assert_error(response, 400, 'reserve.invalid', ['start', 'in the past'])
    assert _rows() == []


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
    assert _rows() == []
    assert casts == []


def test_reader_cannot_create(api, casts):
    response = api.post_json(URL, _body(), headers=READER_A,
                             expect_errors=True)
    assert_error(response, 403, 'reserve.forbidden',
                 'reserve:reservation:create')
    assert _rows() == []


# Project isolation ---------------------------------------------------------

def test_other_project_sees_nothing(api, casts):
    rsv = _create(api).json['reservation']
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
    assert timeutils.isoformat(row.end_date) == rsv['end']
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


# List filters and paging ---------------------------------------------------

def test_list_filters(api):
    a100 = make_booking(flavor_id='gpu.a100')
    h100 = make_booking(flavor_id='gpu.h100')
    done = make_booking(flavor_id='gpu.a100',
                        status=states.Booking.COMPLETE)

    def ids(query):
        listed = api.get('%s?%s' % (URL, query), headers=MEMBER_A).json
        return {r['id'] for r in listed['reservations']}

    assert ids('flavor_id=gpu.a100') == {a100.id, done.id}
    assert ids('flavor_id=gpu.h100') == {h100.id}
    assert ids('status=COMPLETE') == {done.id}
    assert ids('status=PENDING_CREATE&flavor_id=gpu.a100') == {a100.id}
    assert ids('flavor_id=none') == set()
    assert ids('all_projects=false') == {a100.id, h100.id, done.id}


@pytest.mark.parametrize('query,words', [
    ('status=BOGUS', ['status', 'BOGUS']),
    ('limit=0', ['limit']),
    ('limit=-1', ['limit']),
    ('limit=ten', ['limit']),
    ('all_projects=maybe', ['all_projects']),
    ('marker=no-such-id', ['marker', 'no-such-id']),
    ('sort=name', ["unknown query parameter 'sort'"]),
    ('status=ACTIVE&status=ERROR', ['status', 'more than once']),
])
def test_list_invalid_filters_are_400(api, query, words):
    response = api.get('%s?%s' % (URL, query), headers=MEMBER_A,
                       expect_errors=True)
    assert_error(response, 400, 'reserve.invalid', words)


def test_marker_of_another_project_is_400(api):
    foreign = make_booking(project='project-b')
    response = api.get('%s?marker=%s' % (URL, foreign.id),
                       headers=MEMBER_A, expect_errors=True)
    assert_error(response, 400, 'reserve.invalid', 'marker')


def test_paging_with_limit_marker_and_next_link(api):
    created = [make_booking(flavor_id='gpu.a100') for _ in range(5)]
    make_booking(project='project-b')
    expected = [b.id for b in sorted(created,
                                     key=lambda b: (b.created_at, b.id))]
    seen = []
    url = URL + '?limit=2&flavor_id=gpu.a100'
    pages = 0
    while url:
        page = api.get(url, headers=MEMBER_A).json
        pages += 1
        seen.extend(r['id'] for r in page['reservations'])
        nexts = [link['href'] for link in page['links']
                 if link['rel'] == 'next']
        if len(page['reservations']) < 2:
            assert nexts == []
        url = nexts[0] if nexts else None
        if url:
            query = urllib.parse.parse_qs(urllib.parse.urlparse(url).query)
            assert query['limit'] == ['2']
            assert query['flavor_id'] == ['gpu.a100']
            assert query['marker'] == [seen[-1]]
    assert seen == expected
    assert pages == 3


def test_limit_is_capped_by_max_limit(api):
    for _ in range(3):
        make_booking()
    CONF.set_override('max_limit', 2, group='api')
    try:
        page = api.get(URL + '?limit=50', headers=MEMBER_A).json
    finally:
        CONF.clear_override('max_limit', group='api')
    assert len(page['reservations']) == 2
    assert 'limit=2' in page['links'][0]['href']


# Update --------------------------------------------------------------------

def test_update_end(api, casts):
    booking = make_booking(status=states.Booking.ALLOCATED,
                           lease_id='lease-1')
    new_end = iso(booking.end_date + datetime.timedelta(hours=12))
    response = api.patch_json('%s/%s' % (URL, booking.id), {'end': new_end},
                              headers=MEMBER_A)
    assert response.status_int == 200
    assert response.json['reservation']['end'] == new_end
    assert response.json['reservation']['status'] == 'ALLOCATED'
    row = bookings_db.booking_get(admin_context(), booking.id)
    assert timeutils.isoformat(row.end_date) == new_end
    assert casts == [{'method': 'update_lease', 'booking_id': booking.id,
                      'project_id': 'project-a', 'user_id': 'alice'}]


@pytest.mark.parametrize('status', [states.Booking.COMPLETE,
                                    states.Booking.ERROR])
def test_update_of_a_finished_booking_is_409(api, casts, status):
    booking = make_booking(status=status)
    response = api.patch_json('%s/%s' % (URL, booking.id),
                              {'end': future(200)}, headers=MEMBER_A,
                              expect_errors=True)
    assert_error(response, 409, 'reserve.invalid_state', status)
    row = bookings_db.booking_get(admin_context(), booking.id)
    assert row.end_date == booking.end_date
    assert casts == []


@pytest.mark.parametrize('body,words', [
    ({'end': 'BEFORE'}, ['end', 'must be after the start']),
    ({'end': '2020-01-01T00:00:00Z'}, ['end', 'must be after the start']),
    ({'end': '2099-01-01T00:00:00'}, ['end', 'no timezone']),
    ({}, ["missing required field 'end'"]),
    ({'end': future(100), 'start': future(1)}, ["unknown field 'start'"]),
    ({'end': 'soon'}, ['end', 'not an ISO 8601']),
])
def test_update_invalid_is_400(api, casts, body, words):
    booking = make_booking(status=states.Booking.ACTIVE, start_hours=-1)
    if body.get('end') == 'BEFORE':
        body = {'end': iso(booking.start_date -
                           datetime.timedelta(minutes=1))}
    response = api.patch_json('%s/%s' % (URL, booking.id), body,
                              headers=MEMBER_A, expect_errors=True)
    assert_error(response, 400, 'reserve.invalid', words)
    assert bookings_db.booking_get(admin_context(),
                                   booking.id).end_date == booking.end_date
    assert casts == []


def test_update_end_in_the_past_is_400(api, casts):
    # Started two days ago: an end after the start can still be over.
    booking = make_booking(status=states.Booking.ACTIVE, start_hours=-48,
                           hours=72)
    response = api.patch_json(
        '%s/%s' % (URL, booking.id),
        {'end': iso(timeutils.utcnow() - datetime.timedelta(hours=1))},
        headers=MEMBER_A, expect_errors=True)
    assert_error(response, 400, 'reserve.invalid', ['end', 'in the past'])


def test_reader_cannot_update(api, casts):
    booking = make_booking()
    response = api.patch_json('%s/%s' % (URL, booking.id),
                              {'end': future(200)}, headers=READER_A,
                              expect_errors=True)
    assert_error(response, 403, 'reserve.forbidden')


# Delete --------------------------------------------------------------------

@pytest.mark.parametrize('status', states.Booking.LIVE)
def test_delete_live_booking_cancels_and_keeps_the_row(api, casts, status):
    booking = make_booking(status=status, lease_id='lease-9')
    # Clients that ask for JSON everywhere get their 204 too.
    response = api.delete('%s/%s' % (URL, booking.id),
                          headers=dict(MEMBER_A, Accept='application/json'))
    assert response.status_int == 204
    assert response.body == b''
    row = bookings_db.booking_get(admin_context(), booking.id)
    assert row.status == states.Booking.COMPLETE
    assert row.status_reason.startswith('Cancelled by alice at ')
    assert row.status_reason.endswith('Z')
    assert casts == [{'method': 'delete_lease', 'booking_id': booking.id,
                      'lease_id': 'lease-9', 'project_id': 'project-a',
                      'user_id': 'alice'}]
    shown = api.get('%s/%s' % (URL, booking.id), headers=MEMBER_A).json
    assert shown['reservation']['status'] == 'COMPLETE'


@pytest.mark.parametrize('status', [states.Booking.COMPLETE,
                                    states.Booking.ERROR])
def test_delete_finished_booking_removes_the_row(api, casts, status):
    with_lease = make_booking(status=status, lease_id='lease-7')
    without = make_booking(status=status)
    for booking in (with_lease, without):
        response = api.delete('%s/%s' % (URL, booking.id), headers=MEMBER_A)
        assert response.status_int == 204
    assert _rows() == []
    # Only the booking that had a lease asks the worker to remove it, with
    # the lease id since the row is gone.
    assert casts == [{'method': 'delete_lease',
                      'booking_id': with_lease.id, 'lease_id': 'lease-7',
                      'project_id': 'project-a', 'user_id': 'alice'}]
    assert_error(api.delete('%s/%s' % (URL, without.id), headers=MEMBER_A,
                            expect_errors=True), 404)


def test_cancel_then_delete_removes_the_row(api, casts):
    rsv = _create(api).json['reservation']
    path = '%s/%s' % (URL, rsv['id'])
    assert api.delete(path, headers=MEMBER_A).status_int == 204
    assert len(_rows()) == 1
    assert api.delete(path, headers=MEMBER_A).status_int == 204
    assert _rows() == []


def test_cancel_does_not_overwrite_a_concurrent_change(api, casts,
                                                       monkeypatch):
    booking = make_booking(status=states.Booking.ACTIVE)
    real_get = bookings_db.booking_get

    def get_then_race(context, booking_id, project_id=None):
        row = real_get(context, booking_id, project_id=project_id)
        # The notification daemon finishes the booking meanwhile.
        bookings_db.booking_update(admin_context(), booking_id,
                                   {'status': states.Booking.ERROR,
                                    'status_reason': 'lease failed'})
        monkeypatch.setattr(bookings_db, 'booking_get', real_get)
        return row

    monkeypatch.setattr(bookings_db, 'booking_get', get_then_race)
    response = api.delete('%s/%s' % (URL, booking.id), headers=MEMBER_A,
                          expect_errors=True)
    assert_error(response, 409, 'reserve.invalid_state', 'ERROR')
    row = real_get(admin_context(), booking.id)
    assert row.status == states.Booking.ERROR
    assert row.status_reason == 'lease failed'
    assert casts == []


def test_reader_cannot_delete(api, casts):
    booking = make_booking()
    assert_error(api.delete('%s/%s' % (URL, booking.id), headers=READER_A,
                            expect_errors=True), 403)
    assert len(_rows()) == 1
