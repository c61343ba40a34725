"""openstack reserve device reservation release/reclaim and device list
--spot: API microversion 1.4, asked for these alone."""
import pytest

from reserveclient.osc.v1 import devices as device_cmds
from reserveclient.osc.v1 import spot as spot_cmds

SPOT = 'reserve 1.4'


def _reservation(api):
    return api.device_reservations.add(
        status='active', device_ids=['d1', 'd2'],
        devices=[{'id': 'd1', 'pci_address': '0000:17:00.0'},
                 {'id': 'd2', 'pci_address': '0000:31:00.0'}])


def test_release_by_id_or_pci_address(runner, api):
    rsv = _reservation(api)
    shown = runner.json(spot_cmds.ReleaseDevices,
                        [rsv['id'], 'd1', '0000:31:00.0'])
    assert shown['released_device_ids'] == ['d1', 'd2']
    request = api.requests[-1]
    assert request.method == 'POST'
    assert request.url.endswith('/v1/device-reservations/%s/release' %
                                rsv['id'])
    assert request.body == {'device_ids': ['d1', 'd2']}
    assert request.headers['OpenStack-API-Version'] == SPOT


def test_release_refuses_a_device_not_of_the_reservation(runner, api):
    rsv = _reservation(api)
    with pytest.raises(Exception, match='0000:99:00.0 is not a device'):
        runner.take(spot_cmds.ReleaseDevices, [rsv['id'], '0000:99:00.0'])
    assert all(r.method == 'GET' for r in api.requests)


def test_release_needs_a_device(runner):
    with pytest.raises(SystemExit):
        runner.parse(spot_cmds.ReleaseDevices, ['rsv-1'])


def test_reclaim_dry_run_then_for_real(runner, api):
    rsv = _reservation(api)
    runner.take(spot_cmds.ReleaseDevices, [rsv['id'], 'd1'])
    rows = runner.json(spot_cmds.ReclaimDevices, [rsv['id'], '--dry-run'])
    assert rows == [
        {'Device ID': 'd1', 'Domain': 'spot-vm',
         'Action': 'would terminate', 'Project or Reason': 'project-b'},
        {'Device ID': 'd9', 'Domain': 'vm-9', 'Action': 'would skip',
         'Project or Reason': 'changed owner'}]
    assert api.requests[-1].body == {'dry_run': True}
    assert api.requests[-1].headers['OpenStack-API-Version'] == SPOT
    columns, rows = runner.take(spot_cmds.ReclaimDevices,
                                [rsv['id'], '0000:17:00.0'])
    assert columns == ('Device ID', 'Domain', 'Action',
                       'Project or Reason')
    assert rows == [('d1', 'spot-vm', 'terminated', 'project-b')]
    assert api.requests[-1].body == {'dry_run': False,
                                     'device_ids': ['d1']}


def test_device_list_spot(runner, api):
    api.devices.add(host='h', pci_address='0000:17:00.0', state='spot')
    api.devices.add(host='h', pci_address='0000:31:00.0',
                    state='reserved')
    columns, rows = runner.take(device_cmds.ListDevice, ['--spot'])
    assert [r[2] for r in rows] == ['0000:17:00.0']
    request = api.requests[-1]
    assert request.params['spot'] == 'true'
    assert request.headers['OpenStack-API-Version'] == SPOT
    runner.take(device_cmds.ListDevice, [])
    assert 'spot' not in api.requests[-1].params
    # --spot asks for 1.4 whatever the version spoken otherwise.
    runner.pin('1.0')
    runner.take(device_cmds.ListDevice, [])
    assert api.requests[-1].headers['OpenStack-API-Version'] == \
        'reserve 1.0'
    runner.take(device_cmds.ListDevice, ['--spot'])
    assert api.requests[-1].headers['OpenStack-API-Version'] == SPOT


def test_device_list_takes_the_spot_state(runner):
    _, args = runner.parse(device_cmds.ListDevice, ['--state', 'spot'])
    assert args.state == 'spot'


def _spot_device(api):
    return api.devices.add(host='h', pci_address='0000:31:00.0',
                           node_device='pci_0000_31_00_0', state='spot')


def test_device_attach_then_detach(runner, api):
    device = _spot_device(api)
    shown = runner.json(spot_cmds.AttachSpotDevice,
                        ['0000:31:00.0', '--domain', 'spot-vm'])
    assert (shown['id'], shown['state']) == (device['id'], 'in-use')
    request = api.requests[-1]
    assert request.method == 'POST'
    assert request.url.endswith('/v1/devices/%s/attach' % device['id'])
    assert request.body == {'domain': 'spot-vm', 'tier': 'spot'}
    assert request.headers['OpenStack-API-Version'] == SPOT
    shown = runner.json(spot_cmds.DetachSpotDevice,
                        [device['id'], '--domain', 'spot-vm'])
    assert (shown['id'], shown['state']) == (device['id'], 'spot')
    # The device is looked up, then detached, both at 1.4: a device
    # lent out is seen by every project only there.
    lookup, request = api.requests[-2:]
    assert lookup.method == 'GET'
    assert lookup.headers['OpenStack-API-Version'] == SPOT
    assert request.method == 'POST'
    assert request.url.endswith('/v1/devices/%s/detach' % device['id'])
    assert request.body == {'domain': 'spot-vm'}
    assert request.headers['OpenStack-API-Version'] == SPOT


def test_device_detach_of_a_domain_that_does_not_hold_it(runner, api):
    device = _spot_device(api)
    runner.take(spot_cmds.AttachSpotDevice,
                ['pci_0000_31_00_0', '--domain', 'spot-vm'])
    with pytest.raises(Exception, match='not attached to domain other-vm'):
        runner.take(spot_cmds.DetachSpotDevice,
                    [device['id'], '--domain', 'other-vm'])
    assert api.spot_domains == {device['id']: 'spot-vm'}


def test_device_detach_needs_a_domain(runner):
    with pytest.raises(SystemExit):
        runner.parse(spot_cmds.DetachSpotDevice, ['d1'])
    _, args = runner.parse(spot_cmds.DetachSpotDevice,
                           ['0000:31:00.0', '--domain', 'vm', '--host', 'h'])
    assert (args.device, args.domain, args.host) == ('0000:31:00.0', 'vm',
                                                     'h')
