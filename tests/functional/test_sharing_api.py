"""Shared reservations (since 1.9): POST /v1/reservations with
shared_project_ids, the list in the reservation's view, and
/v1/reservations/{id}/shared-projects while it lives; what a project it
is shared with reads, and what it cannot write."""
import pytest

from reserve.common import states
from reserve.db import sharing as sharing_db
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import casts  # noqa: F401
from tests.functional.api_fixtures import future
from tests.functional.api_fixtures import make_booking
from tests.functional.api_fixtures import make_flavor
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.functional.api_fixtures import persona
from tests.functional.api_fixtures import READER_A
from tests.functional.api_fixtures import roomy  # noqa: F401

URL = '/v1/reservations'
V19 = {'OpenStack-API-Version': 'reserve 1.9'}
SHARED = 'c0ffee00c0ffee00c0ffee00c0ffee00'
OTHER = '0e5b9b7a-7d54-4c62-9d3e-1a2b3c4d5e6f'
MEMBER_S = persona('sam', SHARED, 'member,reader')
READER_S = persona('sue', SHARED, 'reader')

pytestmark = pytest.mark.usefixtures('roomy', 'casts')


def _at(headers, version=V19):
    return dict(headers, **version)


@pytest.fixture
def flavor(api):
    return make_flavor('gpu.a100', slots=4)


def _book(api, shared, headers=MEMBER_A, version=V19):
    body = {'flavor_id': 'gpu.a100', 'start': future(24),
            'end': future(48)}
    if shared is not None:
        body['shared_project_ids'] = shared
    return api.post_json(URL, body, headers=_at(headers, version),
                         expect_errors=True)


def _shared(booking_id):
    return sharing_db.shares_of(admin_context(), booking_id)


def test_a_booking_is_shared_at_creation_and_shows_its_list(api, flavor,
                                                            casts):
    created = _book(api, [SHARED, OTHER])
    assert created.status_int == 201
    view = created.json['reservation']
    assert view['shared_project_ids'] == sorted([SHARED, OTHER])
    shown = api.get('%s/%s' % (URL, view['id']),
                    headers=_at(READER_A)).json['reservation']
    assert shown['shared_project_ids'] == sorted([SHARED, OTHER])
    # An administrator sees the whole list; below 1.9 nobody sees it.
    assert api.get('%s/%s' % (URL, view['id']), headers=_at(ADMIN)).json[
        'reservation']['shared_project_ids'] == sorted([SHARED, OTHER])
    assert 'shared_project_ids' not in api.get(
        '%s/%s' % (URL, view['id']), headers=MEMBER_A).json['reservation']
    assert [c['method'] for c in casts] == ['create_lease']


@pytest.mark.parametrize('shared, detail', [
    (['project-b'], "'project-b' is not a project id"),
    ([SHARED.upper()[:31]], 'is not a project id'),
    ([SHARED, SHARED], 'named twice'),
    # One project, however its id is written.
    (['0e5b9b7a7d544c629d3e1a2b3c4d5e6f', OTHER], 'named twice'),
    ([SHARED + '0'], 'is not a project id'),
])
def test_bad_lists_are_refused_and_nothing_is_written(api, flavor, shared,
                                                      detail):
    assert_error(_book(api, shared), 400, detail_has=detail)
    assert api.get(URL, headers=MEMBER_A).json['reservations'] == []


def test_the_owner_cannot_share_with_itself(api, flavor):
    owner = 'feedfacefeedfacefeedfacefeedface'
    member = persona('olga', owner, 'member,reader')
    assert_error(_book(api, [owner], headers=member), 400,
                 detail_has='owns the reservation')
    assert_error(_book(api, [owner.upper()], headers=member), 400,
                 detail_has='owns the reservation')


def test_at_most_100_projects(api, flavor):
    many = ['%032x' % n for n in range(1, 102)]
    assert_error(_book(api, many), 400, detail_has='at most 100 projects')
    assert api.get(URL, headers=MEMBER_A).json['reservations'] == []
    assert _book(api, many[:100]).status_int == 201


def test_not_before_1_7(api, flavor):
    assert_error(_book(api, [SHARED], version={}), 400,
                 detail_has='needs microversion 1.9')
    assert_error(_book(api, 'not-a-list'), 400,
                 detail_has='shared_project_ids')


def _rsv(api, shared=(SHARED,)):
    return _book(api, list(shared)).json['reservation']


def test_a_shared_project_reads_it_and_sees_itself_alone(api, flavor):
    rsv = _rsv(api, [SHARED, OTHER])
    for who in (MEMBER_S, READER_S):
        shown = api.get('%s/%s' % (URL, rsv['id']), headers=_at(who))
        assert shown.status_int == 200
        view = shown.json['reservation']
        assert view['shared_project_ids'] == [SHARED]
        assert view['reserved_flavor_id'] == rsv['reserved_flavor_id']
    # Not in its list, nor its diagnosis.
    assert api.get(URL, headers=_at(MEMBER_S)).json['reservations'] == []
    assert_error(api.get('%s/%s/diagnosis' % (URL, rsv['id']),
                         headers=_at(MEMBER_S), expect_errors=True), 404)


def test_a_shared_project_writes_nothing(api, flavor, casts):
    rsv = _rsv(api)
    item = '%s/%s' % (URL, rsv['id'])
    # Its members get the 404 of another project; its readers, the 403
    # of a reader.
    for who, status in ((MEMBER_S, 404), (READER_S, 403)):
        headers = _at(who)
        assert_error(api.patch_json(item, {'end': future(50)},
                                    headers=headers, expect_errors=True),
                     status)
        assert_error(api.delete(item, headers=headers, expect_errors=True),
                     status)
        assert_error(api.put_json(item + '/shared-projects',
                                  {'shared_project_ids': []},
                                  headers=headers, expect_errors=True),
                     status)
        assert_error(api.delete(item + '/shared-projects/' + SHARED,
                                headers=headers, expect_errors=True),
                     status)
    assert _shared(rsv['id']).shared == [SHARED]
    assert [c['method'] for c in casts] == ['create_lease']


def test_another_project_sees_nothing(api, flavor):
    rsv = _rsv(api)
    item = '%s/%s' % (URL, rsv['id'])
    assert_error(api.get(item, headers=_at(MEMBER_B), expect_errors=True),
                 404)
    assert_error(api.put(item + '/shared-projects/' + OTHER,
                         headers=_at(MEMBER_B), expect_errors=True), 404)
    # A share taken back is no read any more.
    api.delete(item + '/shared-projects/' + SHARED, headers=_at(MEMBER_A))
    assert_error(api.get(item, headers=_at(MEMBER_S), expect_errors=True),
                 404)


def test_the_owner_changes_the_list_while_it_lives(api, flavor, casts):
    rsv = _rsv(api)
    item = '%s/%s/shared-projects' % (URL, rsv['id'])
    added = api.put(item + '/' + OTHER, headers=_at(MEMBER_A))
    assert added.json == {'shared_project_ids': sorted([SHARED, OTHER])}
    # Twice is no error.
    assert api.put(item + '/' + OTHER, headers=_at(MEMBER_A)).json == \
        added.json
    assert api.delete(item + '/' + SHARED,
                      headers=_at(MEMBER_A)).status_int == 204
    assert _shared(rsv['id']) == ([OTHER], [SHARED])
    assert_error(api.delete(item + '/' + SHARED, headers=_at(MEMBER_A),
                            expect_errors=True), 404,
                 detail_has='not shared with project %s' % SHARED)
    replaced = api.put_json(item, {'shared_project_ids': [SHARED]},
                            headers=_at(MEMBER_A))
    assert replaced.json == {'shared_project_ids': [SHARED]}
    assert _shared(rsv['id']) == ([SHARED], [OTHER])
    assert [c['method'] for c in casts] == ['create_lease'] + \
        ['share_lease'] * 4
    assert {c['booking_id'] for c in casts} == {rsv['id']}
    # An administrator may too; the reader of the owner cannot.
    assert api.put_json(item, {'shared_project_ids': []},
                        headers=_at(ADMIN)).json == {'shared_project_ids': []}
    assert_error(api.put_json(item, {'shared_project_ids': [OTHER]},
                              headers=_at(READER_A), expect_errors=True),
                 403)


def test_a_change_is_checked_as_a_creation(api, flavor):
    rsv = _rsv(api)
    item = '%s/%s/shared-projects' % (URL, rsv['id'])
    many = ['%032x' % n for n in range(1, 102)]
    for body, detail in (({'shared_project_ids': many}, 'at most 100'),
                         ({'shared_project_ids': [SHARED, SHARED]},
                          'named twice'),
                         ({'shared_project_ids': ['project-a']},
                          'is not a project id'),
                         ({}, 'shared_project_ids'),
                         ({'shared_project_ids': [], 'x': 1}, 'x')):
        assert_error(api.put_json(item, body, headers=_at(MEMBER_A),
                                  expect_errors=True), 400, detail_has=detail)
    assert_error(api.put(item + '/nope', headers=_at(MEMBER_A),
                         expect_errors=True), 400,
                 detail_has="'nope' is not a project id")
    # The 101st project, one at a time.
    api.put_json(item, {'shared_project_ids': many[:100]},
                 headers=_at(MEMBER_A))
    assert_error(api.put(item + '/' + many[100], headers=_at(MEMBER_A),
                         expect_errors=True), 400, detail_has='at most 100')
    assert _shared(rsv['id']).shared == sorted(many[:100])


@pytest.mark.parametrize('status', [states.Booking.COMPLETE,
                                    states.Booking.ERROR])
def test_a_finished_booking_keeps_its_list(api, flavor, status):
    booking = make_booking(status=status)
    sharing_db.shares_add(admin_context(), booking.id, [SHARED])
    item = '%s/%s/shared-projects' % (URL, booking.id)
    assert_error(api.put_json(item, {'shared_project_ids': []},
                              headers=_at(MEMBER_A), expect_errors=True),
                 409, detail_has='only while it lives')
    assert_error(api.delete(item + '/' + SHARED, headers=_at(MEMBER_A),
                            expect_errors=True), 409)
    assert _shared(booking.id).shared == [SHARED]


def test_a_cancelled_booking_keeps_its_list(api, flavor):
    rsv = _rsv(api)
    api.delete('%s/%s' % (URL, rsv['id']), headers=MEMBER_A)
    item = '%s/%s/shared-projects/%s' % (URL, rsv['id'], OTHER)
    assert_error(api.put(item, headers=_at(MEMBER_A), expect_errors=True),
                 409)


def test_the_routes_exist_from_1_7(api, flavor):
    rsv = _rsv(api)
    item = '%s/%s/shared-projects' % (URL, rsv['id'])
    assert api.put_json(item, {'shared_project_ids': []},
                        headers=MEMBER_A, expect_errors=True).status_int \
        == 404
    assert api.get(item, headers=_at(MEMBER_A),
                   expect_errors=True).status_int == 405


def test_a_removed_booking_takes_its_list(api, flavor):
    booking = make_booking(status=states.Booking.COMPLETE)
    sharing_db.shares_add(admin_context(), booking.id, [SHARED])
    assert api.delete('%s/%s' % (URL, booking.id),
                      headers=MEMBER_A).status_int == 204
    assert _shared(booking.id) == ([], [])
