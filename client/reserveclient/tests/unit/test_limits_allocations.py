"""openstack reserve limits show, openstack reserve allocation list."""
import pytest

from reserveclient.osc.v1 import allocations
from reserveclient.osc.v1 import limits


def test_limits(runner, api):
    api.limits['project-a'] = {
        'reservations': {'limit': 10, 'in_use': 3},
        'instance_hours': {'limit': -1, 'in_use': 96}}
    listed = runner.json(limits.ShowLimits, [])
    assert listed == [
        {'Resource': 'instance_hours', 'Limit': -1, 'In Use': 96,
         'Remaining': -1, 'Project ID': 'project-a'},
        {'Resource': 'reservations', 'Limit': 10, 'In Use': 3,
         'Remaining': 7, 'Project ID': 'project-a'}]
    table = runner.output(limits.ShowLimits, [])
    assert '| instance_hours | unlimited |     96 | unlimited |' in table
    assert api.requests[-1].params == {}


@pytest.mark.parametrize('version,names', [
    ('1.4', ['device_hours', 'device_reservations']),
    ('1.0', ['unit_hours', 'unit_reservations'])])
def test_limits_of_the_device_reservations(runner, api, version, names):
    runner.pin(version)
    api.limits['project-a'] = {
        'device_reservations': {'limit': 4, 'in_use': 1},
        'device_hours': {'limit': 1440, 'in_use': 96}}
    listed = runner.json(limits.ShowLimits, [])
    assert [r['Resource'] for r in listed] == names
    assert listed[1]['Remaining'] == 3


def test_limits_of_another_project(runner, api):
    api.limits['p2'] = {'reservations': {'limit': 5, 'in_use': 5}}
    listed = runner.json(limits.ShowLimits, ['--project', 'p2'])
    assert listed[0]['Remaining'] == 0
    assert api.requests[-1].params == {'project_id': 'p2'}


def test_allocations(runner, api):
    host = api.hosts.add(name='gpu1')
    api.allocations.add(host_id=host['id'], host='gpu1',
                        lease_reservation_id='r1', booking_id='b1',
                        lease_id='l1', amount=2)
    api.allocations.add(host_id='h2', host='gpu2', lease_reservation_id='r2',
                        booking_id=None, lease_id='l2', amount=1)
    columns, rows = runner.take(allocations.ListAllocation, [])
    # The booking ID the user holds, not the lease reservation's.
    assert columns == ('Host', 'Booking ID', 'Lease ID', 'Amount',
                       'Start', 'End', 'Status')
    assert [row[:4] for row in rows] == [('gpu1', 'b1', 'l1', 2),
                                         ('gpu2', None, 'l2', 1)]
    columns, rows = runner.take(allocations.ListAllocation, ['--long'])
    assert columns[:7] == ('Host', 'Booking ID', 'Lease ID', 'Amount',
                           'Start', 'End', 'Status')
    assert 'Host ID' in columns
    assert rows[0][columns.index('Lease Reservation ID')] == 'r1'
    assert not {'Reservation ID', 'Count'} & set(columns)
    listed = runner.json(allocations.ListAllocation, ['--host', 'gpu1'])
    assert [r['Booking ID'] for r in listed] == ['b1']
    assert api.requests[-1].params == {'host_id': host['id']}
    listed = runner.json(allocations.ListAllocation, [
        '--reservation-id', 'r2', '--lease', 'l2'])
    assert api.requests[-1].params == {'lease_reservation_id': 'r2',
                                       'lease_id': 'l2'}
    assert [r['Host'] for r in listed] == ['gpu2']


@pytest.mark.parametrize('server,pinned', [('1.0', None), ('1.4', '1.0'),
                                           ('1.4', '1.1')])
def test_allocations_before_1_2(runner, api, server, pinned):
    api.max_version = server
    if pinned:
        runner.pin(pinned)
    api.allocations.add(host_id='h1', host='gpu1', lease_reservation_id='r1',
                        booking_id='b1', lease_id='l1', amount=2)
    api.allocations.add(host_id='h2', host='gpu2', lease_reservation_id='r2',
                        booking_id=None, lease_id='l2', amount=1)
    columns, rows = runner.take(allocations.ListAllocation, ['--long'])
    assert columns[:7] == ('Host', 'Booking ID', 'Lease ID', 'Count',
                           'Start', 'End', 'Status')
    assert rows[0][columns.index('Reservation ID')] == 'r1'
    assert rows[0][3] == 2
    listed = runner.json(allocations.ListAllocation,
                         ['--reservation-id', 'r2'])
    assert api.requests[-1].params == {'reservation_id': 'r2'}
    assert [r['Host'] for r in listed] == ['gpu2']


def test_allocations_of_an_older_server(runner, api):
    # No booking_id in its answers: the column is empty.
    api.allocations.add(host_id='h1', host='gpu1',
                        lease_reservation_id='r1', lease_id='l1', amount=1)
    listed = runner.json(allocations.ListAllocation, [])
    assert listed[0]['Booking ID'] is None
