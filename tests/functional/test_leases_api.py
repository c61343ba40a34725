"""/v1/leases through the whole WSGI stack."""
from reserve.common import states
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import iso
from tests.functional.api_fixtures import make_host
from tests.functional.api_fixtures import make_lease
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.functional.api_fixtures import READER_A

URL = '/v1/leases'


def test_show_lease_with_reservations_allocations_and_events(api):
    host = make_host('gpu7.example.org')
    lease = make_lease(host=host, amount=2)
    response = api.get('%s/%s' % (URL, lease.id), headers=READER_A)
    assert response.status_int == 200
    body = response.json['lease']
    assert body['id'] == lease.id
    assert body['name'] == lease.name
    assert body['project_id'] == 'project-a'
    assert body['user_id'] == 'reserve-bot'
    assert body['start'] == iso(lease.start)
    assert body['end'] == iso(lease.end)
    assert body['status'] == 'PENDING'
    assert body['status_reason'] is None
    assert body['degraded'] is False
    assert body['created_at'].endswith('Z')
    assert body['updated_at'].endswith('Z')

    [rsv] = body['reservations']
    rsv_id = lease.reservations[0].id
    assert rsv == {
        'id': rsv_id,
        'resource_type': 'flavor:instance',
        'status': 'pending',
        'amount': 2,
        'source_flavor_id': 'gpu.a100',
        'vcpus': 16,
        'memory_mb': 65536,
        'disk_gb': 100,
        'ephemeral_gb': 0,
        'extra_specs': {'pci_passthrough:alias': 'a100:1'},
        'resource_properties': '["==", "$gpu_model", "a100"]',
        'affinity': None,
        'flavor_id': rsv_id,
        'aggregate': rsv_id,
        'resource_class': 'CUSTOM_RESERVATION_' +
                          rsv_id.upper().replace('-', '_'),
        'allocations': [{'host_id': host.id, 'host': 'gpu7.example.org',
                         'count': 2}],
    }
    assert [(e['event_type'], e['status'], e['attempts'])
            for e in body['events']] == [
        ('start_lease', 'UNDONE', 0),
        ('before_end_lease', 'UNDONE', 0),
        ('end_lease', 'UNDONE', 0)]
    assert body['events'][0]['time'] == iso(lease.start)
    assert body['events'][2]['time'] == iso(lease.end)
    assert all(e['id'] and e['last_error'] is None for e in body['events'])


def test_list_leases(api):
    host = make_host()
    mine = make_lease(host=host)
    make_lease(project='project-b')
    listed = api.get(URL, headers=MEMBER_A).json
    assert [lease['id'] for lease in listed['leases']] == [mine.id]
    assert listed['leases'][0]['reservations'][0]['allocations'][0][
        'host'] == host.name
    assert listed['links'] == []


def test_other_project_gets_404_and_an_empty_list(api):
    lease = make_lease(project='project-a')
    assert_error(api.get('%s/%s' % (URL, lease.id), headers=MEMBER_B,
                         expect_errors=True), 404, 'reserve.not_found',
                 lease.id)
    assert api.get(URL, headers=MEMBER_B).json['leases'] == []


def test_all_projects_is_for_admins(api):
    a = make_lease(project='project-a')
    b = make_lease(project='project-b')
    assert_error(api.get(URL + '?all_projects=1', headers=MEMBER_A,
                         expect_errors=True), 403, 'reserve.forbidden',
                 'reserve:lease:list:all_projects')
    listed = api.get(URL + '?all_projects=1', headers=ADMIN).json
    assert {lease['id'] for lease in listed['leases']} == {a.id, b.id}
    shown = api.get('%s/%s' % (URL, b.id), headers=ADMIN).json
    assert shown['lease']['project_id'] == 'project-b'


def test_status_filter_and_paging(api):
    pending = [make_lease() for _ in range(3)]
    active = make_lease(status=states.Lease.ACTIVE)

    listed = api.get(URL + '?status=ACTIVE', headers=MEMBER_A).json
    assert [lease['id'] for lease in listed['leases']] == [active.id]

    first = api.get(URL + '?status=PENDING&limit=2', headers=MEMBER_A).json
    assert len(first['leases']) == 2
    [link] = first['links']
    assert link['rel'] == 'next'
    second = api.get(link['href'], headers=MEMBER_A).json
    assert len(second['leases']) == 1
    assert second['links'] == []
    assert {lease['id'] for lease in first['leases'] + second['leases']} \
        == {lease.id for lease in pending}


def test_invalid_lease_filters_are_400(api):
    for query, words in (('status=pending', 'status'),
                         ('limit=x', 'limit'),
                         ('marker=nope', 'marker'),
                         ('flavor_id=x', 'flavor_id')):
        assert_error(api.get('%s?%s' % (URL, query), headers=MEMBER_A,
                             expect_errors=True), 400, 'reserve.invalid',
                     words)


def test_unknown_lease_is_404(api):
    assert_error(api.get(URL + '/nope', headers=MEMBER_A,
                         expect_errors=True), 404, 'reserve.not_found')
