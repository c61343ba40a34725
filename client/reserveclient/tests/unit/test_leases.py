"""openstack reserve lease list/show against the API double."""
import pytest

from reserveclient import exceptions as rc_exceptions
from reserveclient.osc.v1 import leases


def _lease(api, **values):
    lease = dict(
        name='Reservation rsv-1', project_id='project-a', user_id='bot',
        start='2030-01-01T00:00:00Z', end='2030-01-02T00:00:00Z',
        status='PENDING', status_reason=None, degraded=False,
        created_at='2026-01-01T00:00:00Z', updated_at=None,
        reservations=[{
            'id': 'lr-1', 'resource_type': 'flavor:instance',
            'status': 'pending', 'amount': 2, 'source_flavor_id': 'gpu',
            'vcpus': 8, 'memory_mb': 65536, 'disk_gb': 40,
            'ephemeral_gb': 0, 'extra_specs': {'pci_passthrough:alias':
                                               'a100:1'},
            'resource_properties': None, 'affinity': None,
            'reserved_flavor_id': 'lr-1', 'aggregate': 'lr-1',
            'resource_class': 'CUSTOM_RESERVATION_LR_1',
            'allocations': [{'host_id': 'h1', 'host': 'gpu1', 'amount': 1},
                            {'host_id': 'h2', 'host': 'gpu2', 'amount': 1}]}],
        events=[
            {'id': 1, 'event_type': 'start_lease',
             'time': '2030-01-01T00:00:00Z', 'status': 'UNDONE',
             'attempts': 0, 'last_error': None},
            {'id': 3, 'event_type': 'end_lease',
             'time': '2030-01-02T00:00:00Z', 'status': 'UNDONE',
             'attempts': 0, 'last_error': None},
            {'id': 2, 'event_type': 'before_end_lease',
             'time': '2030-01-01T23:00:00Z', 'status': 'UNDONE',
             'attempts': 0, 'last_error': None}])
    lease.update(values)
    return api.leases.add(**lease)


def test_list(runner, api):
    lease = _lease(api)
    columns, rows = runner.take(leases.ListLease, [])
    assert columns == ('ID', 'Name', 'Start', 'End', 'Status')
    assert rows == [(lease['id'], 'Reservation rsv-1',
                     '2030-01-01T00:00:00Z', '2030-01-02T00:00:00Z',
                     'PENDING')]


def test_list_all_projects_and_filters(runner, api):
    _lease(api)
    columns, _ = runner.take(leases.ListLease, [
        '--all-projects', '--status', 'PENDING'])
    assert 'Project ID' in columns
    assert api.requests[-1].params == {'all_projects': 'true',
                                       'status': 'PENDING'}


def test_list_long_json_keeps_structure(runner, api):
    _lease(api)
    listed = runner.json(leases.ListLease, ['--long'])
    assert listed[0]['Reservations'][0]['id'] == 'lr-1'
    assert listed[0]['Degraded'] is False
    table = runner.output(leases.ListLease, ['--long'])
    assert '| lr-1 ' in table


def test_show_table_is_readable(runner, api):
    lease = _lease(api)
    table = runner.output(leases.ShowLease, [lease['id']])
    assert '| reservations  | id: lr-1' in table
    assert 'allocations: gpu1 x1, gpu2 x1' in table
    assert 'resource class: CUSTOM_RESERVATION_LR_1' in table
    lines = [line for line in table.splitlines() if '_lease ' in line]
    assert [line.split('|')[2].split()[0] for line in lines] == [
        'start_lease', 'before_end_lease', 'end_lease']


def test_show_json_keeps_structure(runner, api):
    lease = _lease(api)
    shown = runner.json(leases.ShowLease, [lease['id']])
    assert shown['reservations'][0]['allocations'][1]['host'] == 'gpu2'
    assert len(shown['events']) == 3
    assert list(shown)[:3] == ['id', 'name', 'project_id']


def test_show_by_name_or_reservation(runner, api):
    lease = _lease(api)
    for ref in ('Reservation rsv-1', 'rsv-1'):
        shown = runner.json(leases.ShowLease, [ref, '-c', 'id'])
        assert shown == {'id': lease['id']}


def test_show_missing(runner):
    with pytest.raises(rc_exceptions.NotFound):
        runner.take(leases.ShowLease, ['nope'])


def test_show_by_booking_id(runner, api):
    lease = _lease(api)
    booking = api.reservations.add(id='bk-1', status='ALLOCATED',
                                   lease_id=lease['id'])
    shown = runner.json(leases.ShowLease, [booking['id'], '-c', 'id'])
    assert shown == {'id': lease['id']}
    # The lease's own ID first (404), then the booking, then its lease.
    assert [(r.method, r.url) for r in api.requests] == [
        ('GET', '/v1'),
        ('GET', '/v1/leases/bk-1'), ('GET', '/v1/reservations/bk-1'),
        ('GET', '/v1/leases/%s' % lease['id'])]


def test_show_by_booking_id_before_its_lease(runner, api):
    api.reservations.add(id='bk-2', status='PENDING_CREATE', lease_id=None)
    with pytest.raises(rc_exceptions.ReserveClientError) as err:
        runner.take(leases.ShowLease, ['bk-2'])
    assert not isinstance(err.value, rc_exceptions.NotFound)
    assert str(err.value) == (
        'Reservation bk-2 has no lease yet: it is PENDING_CREATE, and its '
        'lease_id appears once it is ALLOCATED: openstack reserve '
        'reservation show bk-2')


def test_show_by_booking_id_in_error(runner, api):
    api.reservations.add(id='bk-3', status='ERROR', lease_id=None,
                         status_reason='No valid host')
    with pytest.raises(rc_exceptions.ReserveClientError) as err:
        runner.take(leases.ShowLease, ['bk-3'])
    assert str(err.value) == (
        'Reservation bk-3 has no lease (it is ERROR: No valid host).')


def test_show_by_the_name_a_booking_gives_its_lease(runner, api):
    # The server names a booking's lease reservation-<booking id>; the
    # booking itself may be gone (purged) while its lease is listed.
    lease = _lease(api, name='reservation-bk-4')
    shown = runner.json(leases.ShowLease, ['bk-4', '-c', 'id'])
    assert shown == {'id': lease['id']}


@pytest.mark.parametrize('version,flavor,amount', [
    ('1.4', 'reserved flavor', 'amount'), ('1.0', 'flavor', 'count')])
def test_show_names_of_the_version_spoken(runner, api, version, flavor,
                                          amount):
    runner.pin(version)
    lease = _lease(api)
    shown = runner.json(leases.ShowLease, [lease['id']])
    reservation = shown['reservations'][0]
    assert reservation['allocations'][0][amount] == 1
    table = runner.output(leases.ShowLease, [lease['id']])
    assert '|   %s: lr-1 ' % flavor in table
    assert 'allocations: gpu1 x1, gpu2 x1' in table
    if version == '1.0':
        assert 'reserved_flavor_id' not in reservation
        assert 'reserved flavor:' not in table
    else:
        assert 'flavor_id' not in reservation
