"""openstack reserve limits show, openstack reserve allocation list."""
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
    assert columns == ('Host', 'Booking ID', 'Lease ID', 'Count',
                       'Start', 'End', 'Status')
    assert [row[:3] for row in rows] == [('gpu1', 'b1', 'l1'),
                                         ('gpu2', None, 'l2')]
    columns, rows = runner.take(allocations.ListAllocation, ['--long'])
    assert columns[:7] == ('Host', 'Booking ID', 'Lease ID', 'Count',
                           'Start', 'End', 'Status')
    assert 'Host ID' in columns
    assert rows[0][columns.index('Reservation ID')] == 'r1'
    listed = runner.json(allocations.ListAllocation, ['--host', 'gpu1'])
    assert [r['Booking ID'] for r in listed] == ['b1']
    assert api.requests[-1].params == {'host_id': host['id']}
    runner.take(allocations.ListAllocation, ['--reservation-id', 'r2',
                                             '--lease', 'l2'])
    assert api.requests[-1].params == {'reservation_id': 'r2',
                                       'lease_id': 'l2'}


def test_allocations_of_an_older_server(runner, api):
    # No booking_id in its answers: the column is empty.
    api.allocations.add(host_id='h1', host='gpu1',
                        lease_reservation_id='r1', lease_id='l1', amount=1)
    listed = runner.json(allocations.ListAllocation, [])
    assert listed[0]['Booking ID'] is None
