"""/v1/reservations through the whole WSGI stack: listing, changing
and deleting."""
import datetime
import urllib.parse

from oslo_config import cfg
import pytest

from reserve.common import states
from reserve.common import timeutils
from reserve.db import bookings as bookings_db
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import roomy  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import casts  # noqa: F401
from tests.functional.api_fixtures import future
from tests.functional.api_fixtures import iso
from tests.functional.api_fixtures import make_booking
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import READER_A
from tests.functional.reservation_requests import a100  # noqa: F401
from tests.functional.reservation_requests import booking_rows
from tests.functional.reservation_requests import create
from tests.functional.reservation_requests import URL

CONF = cfg.CONF

pytestmark = pytest.mark.usefixtures('roomy')


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
    new_end = iso(booking.end + datetime.timedelta(hours=12))
    response = api.patch_json('%s/%s' % (URL, booking.id), {'end': new_end},
                              headers=MEMBER_A)
    assert response.status_int == 200
    assert response.json['reservation']['end'] == new_end
    assert response.json['reservation']['status'] == 'ALLOCATED'
    row = bookings_db.booking_get(admin_context(), booking.id)
    assert timeutils.isoformat(row.end) == new_end
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
    assert row.end == booking.end
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
        body = {'end': iso(booking.start -
                           datetime.timedelta(minutes=1))}
    response = api.patch_json('%s/%s' % (URL, booking.id), body,
                              headers=MEMBER_A, expect_errors=True)
    assert_error(response, 400, 'reserve.invalid', words)
    assert bookings_db.booking_get(admin_context(),
                                   booking.id).end == booking.end
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
    # Its lease deleted, and the standby list's pass asked for at once.
    assert casts == [{'method': 'delete_lease', 'booking_id': booking.id,
                      'lease_id': 'lease-9', 'project_id': 'project-a',
                      'user_id': 'alice'},
                     {'method': 'promote_standby', 'booking_id': booking.id,
                      'project_id': 'project-a', 'user_id': 'alice'}]
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
    assert booking_rows() == []
    # Only the booking that had a lease asks the worker to remove it, with
    # the lease id since the row is gone.
    assert casts == [{'method': 'delete_lease',
                      'booking_id': with_lease.id, 'lease_id': 'lease-7',
                      'project_id': 'project-a', 'user_id': 'alice'}]
    assert_error(api.delete('%s/%s' % (URL, without.id), headers=MEMBER_A,
                            expect_errors=True), 404)


def test_cancel_then_delete_removes_the_row(api, casts):
    rsv = create(api).json['reservation']
    path = '%s/%s' % (URL, rsv['id'])
    assert api.delete(path, headers=MEMBER_A).status_int == 204
    assert len(booking_rows()) == 1
    assert api.delete(path, headers=MEMBER_A).status_int == 204
    assert booking_rows() == []


def test_cancel_does_not_overwrite_a_concurrent_change(api, casts,
                                                       monkeypatch):
    booking = make_booking(status=states.Booking.ACTIVE)
    real_get = bookings_db.booking_get

    def get_then_race(context, booking_id, project_id=None):
        row = real_get(context, booking_id, project_id=project_id)
        # The manager finishes the booking meanwhile.
        bookings_db.booking_move(admin_context(), booking_id,
                                 states.Booking.ERROR, states.Booking.LIVE,
                                 status_reason='lease failed')
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
    assert len(booking_rows()) == 1
