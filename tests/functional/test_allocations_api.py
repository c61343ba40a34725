"""/v1/allocations through the whole WSGI stack."""
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import iso
from tests.functional.api_fixtures import make_host
from tests.functional.api_fixtures import make_lease
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.functional.api_fixtures import READER_A

URL = '/v1/allocations'


def _ids(body):
    return {a['id'] for a in body['allocations']}


def test_allocation_shows_its_host_reservation_and_lease(api):
    host = make_host('gpu3.example.org')
    lease = make_lease(host=host, amount=3)
    [allocation] = api.get(URL, headers=READER_A).json['allocations']
    rsv = lease.reservations[0]
    assert allocation == {
        'id': rsv.allocations[0].id,
        'host_id': host.id,
        'host': 'gpu3.example.org',
        'reservation_id': rsv.id,
        # The lease was made here without a booking.
        'booking_id': None,
        'resource_type': 'flavor:instance',
        'lease_id': lease.id,
        'project_id': 'project-a',
        'count': 3,
        'start': iso(lease.start),
        'end': iso(lease.end),
        'status': 'PENDING',
        'created_at': allocation['created_at'],
        'updated_at': allocation['updated_at'],
    }
    assert allocation['created_at'].endswith('Z')
    shown = api.get('%s/%s' % (URL, allocation['id']),
                    headers=READER_A).json
    assert shown == {'allocation': allocation}


def test_projects_see_their_own_and_admins_every_one(api):
    host = make_host()
    a = make_lease(project='project-a', host=host)
    b = make_lease(project='project-b', host=host)
    a_id = a.reservations[0].allocations[0].id
    b_id = b.reservations[0].allocations[0].id
    assert _ids(api.get(URL, headers=MEMBER_A).json) == {a_id}
    assert _ids(api.get(URL, headers=MEMBER_B).json) == {b_id}
    assert _ids(api.get(URL, headers=ADMIN).json) == {a_id, b_id}
    assert _ids(api.get(URL + '?project_id=project-b',
                        headers=ADMIN).json) == {b_id}
    assert_error(api.get(URL + '?project_id=project-b', headers=MEMBER_A,
                         expect_errors=True), 403, 'reserve.forbidden',
                 'reserve:allocation:list:all_projects')
    # Another project's allocation does not exist for a project.
    assert_error(api.get('%s/%s' % (URL, b_id), headers=MEMBER_A,
                         expect_errors=True), 404, 'reserve.not_found',
                 b_id)
    assert api.get('%s/%s' % (URL, b_id), headers=ADMIN).json[
        'allocation']['project_id'] == 'project-b'


def test_filters_by_host_reservation_and_lease(api):
    gpu1 = make_host('gpu1.example.org')
    gpu2 = make_host('gpu2.example.org')
    on1 = make_lease(host=gpu1)
    on2 = make_lease(host=gpu2)
    make_lease()  # a lease without allocations lists nothing
    id1 = on1.reservations[0].allocations[0].id
    id2 = on2.reservations[0].allocations[0].id
    assert _ids(api.get(URL, headers=ADMIN).json) == {id1, id2}
    assert _ids(api.get(URL + '?host_id=%s' % gpu1.id,
                        headers=ADMIN).json) == {id1}
    # The host's name works as well as its id; an unknown host matches
    # nothing.
    assert _ids(api.get(URL + '?host_id=gpu2.example.org',
                        headers=ADMIN).json) == {id2}
    assert _ids(api.get(URL + '?host_id=nope', headers=ADMIN).json) == set()
    assert _ids(api.get(URL + '?lease_id=%s' % on2.id,
                        headers=ADMIN).json) == {id2}
    assert _ids(api.get(URL + '?reservation_id=%s' % on1.reservations[0].id,
                        headers=ADMIN).json) == {id1}
    assert _ids(api.get(URL + '?reservation_id=%s&lease_id=%s' % (
        on1.reservations[0].id, on2.id), headers=ADMIN).json) == set()


def test_paging(api):
    host = make_host()
    leases = [make_lease(host=host) for _ in range(3)]
    first = api.get(URL + '?limit=2', headers=MEMBER_A).json
    assert len(first['allocations']) == 2
    [link] = first['links']
    assert link['rel'] == 'next'
    second = api.get(link['href'], headers=MEMBER_A).json
    assert len(second['allocations']) == 1
    assert second['links'] == []
    assert _ids(first) | _ids(second) == {
        lease.reservations[0].allocations[0].id for lease in leases}


def test_invalid_queries_are_400_and_unknown_404(api):
    for query, words in (('limit=0', 'limit'), ('marker=nope', 'marker'),
                         ('status=ACTIVE', 'status')):
        assert_error(api.get('%s?%s' % (URL, query), headers=ADMIN,
                             expect_errors=True), 400, 'reserve.invalid',
                     words)
    assert_error(api.get(URL + '/nope', headers=ADMIN, expect_errors=True),
                 404, 'reserve.not_found', 'Allocation nope')
    assert_error(api.post_json(URL, {}, headers=ADMIN, expect_errors=True),
                 405, 'reserve.method_not_allowed')
