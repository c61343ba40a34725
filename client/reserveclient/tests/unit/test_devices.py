"""openstack reserve device ... and device reservation ..."""
import pytest

from reserveclient.osc.v1 import device_reservations as rsv_cmds
from reserveclient.osc.v1 import devices as device_cmds


def _unit(api, pci, host='gpu-a100-01', **values):
    values.setdefault('model', 'A100 SXM4 80GB')
    values.setdefault('numa_node', 0)
    values.setdefault('state', 'available')
    return api.devices.add(
        host=host, host_id='h-' + host, pci_address=pci,
        node_device='pci_' + pci.replace(':', '_').replace('.', '_'),
        **values)


def test_device_list_filters_and_columns(runner, api):
    _unit(api, '0000:3b:00.0')
    _unit(api, '0000:3c:00.0', numa_node=1, state='reserved',
          device_reservation_id='r1')
    columns, rows = runner.take(device_cmds.ListDevice, [])
    assert columns == ('ID', 'Host', 'PCI Address', 'Model', 'NUMA Node',
                       'State')
    assert [r[2] for r in rows] == ['0000:3b:00.0', '0000:3c:00.0']
    listed = runner.json(device_cmds.ListDevice, [
        '--host', 'gpu-a100-01', '--model', 'A100 SXM4 80GB', '--state',
        'reserved', '--numa-node', '1', '--long'])
    assert [r['PCI Address'] for r in listed] == ['0000:3c:00.0']
    assert listed[0]['Device Reservation ID'] == 'r1'
    assert 'Reservation ID' not in listed[0]
    assert api.requests[-1].params == {
        'host': 'gpu-a100-01', 'model': 'A100 SXM4 80GB',
        'state': 'reserved', 'numa_node': 1}
    shown = runner.json(device_cmds.ShowDevice, [listed[0]['ID']])
    assert shown['device_reservation_id'] == 'r1'
    assert 'reservation_id' not in shown


@pytest.mark.parametrize('version', ['1.0', '1.1'])
def test_device_holder_before_1_2(runner, api, version):
    runner.pin(version)
    _unit(api, '0000:3c:00.0', state='reserved', device_reservation_id='r1')
    listed = runner.json(device_cmds.ListDevice, ['--long'])
    assert listed[0]['Reservation ID'] == 'r1'
    assert 'Device Reservation ID' not in listed[0]
    shown = runner.json(device_cmds.ShowDevice, [listed[0]['ID']])
    assert shown['reservation_id'] == 'r1'
    # 1.1 names it both ways, in the order of the later name.
    assert ('device_reservation_id' in shown) == (version == '1.1')
    assert list(shown).index('reservation_id') == \
        list(shown).index('state') + 1 + (version == '1.1')


def test_device_list_refuses_an_unknown_state(runner):
    with pytest.raises(SystemExit):
        runner.parse(device_cmds.ListDevice, ['--state', 'free'])


def test_device_show_by_id_pci_address_or_node_device(runner, api):
    unit = _unit(api, '0000:3b:00.0')
    _unit(api, '0000:3b:00.0', host='gpu-a100-02')
    shown = runner.json(device_cmds.ShowDevice, [unit['id']])
    assert shown['id'] == unit['id']
    assert list(shown)[:3] == ['id', 'host', 'host_id']
    shown = runner.json(device_cmds.ShowDevice, [
        'pci_0000_3b_00_0', '--host', 'gpu-a100-01'])
    assert shown['id'] == unit['id']
    assert api.requests[-1].params == {'host': 'gpu-a100-01',
                                       'include_vfs': 'true'}
    with pytest.raises(Exception, match='give the host or use the ID'):
        runner.take(device_cmds.ShowDevice, ['0000:3b:00.0'])
    with pytest.raises(Exception, match='could not be found'):
        runner.take(device_cmds.ShowDevice, ['0000:99:00.0'])


def test_create_by_count_and_model(runner, api):
    shown = runner.json(rsv_cmds.CreateDeviceReservation, [
        '--count', '2', '--model', 'A100 SXM4 80GB', '--host',
        'gpu-a100-01', '--numa-local', '--domain', 'gpu-vm-2',
        '--allowed-project', 'p1', '--allowed-project', 'p2',
        '--managing-project', 'ops', '--start', '2030-01-07',
        '--end', '2030-01-07T18:00', '--contract-ref', 'C-17',
        '--reason', 'training run'])
    assert api.requests[-1].method == 'POST'
    assert api.requests[-1].body == {
        'device_count': 2, 'model': 'A100 SXM4 80GB', 'host': 'gpu-a100-01',
        'numa_local': True, 'domains': ['gpu-vm-2'],
        'allowed_projects': ['p1', 'p2'], 'managing_projects': ['ops'],
        'start': '2030-01-07T00:00:00Z', 'end': '2030-01-07T18:00:00Z',
        'contract_ref': 'C-17', 'reason': 'training run'}
    assert shown['status'] == 'pending'
    assert list(shown)[:3] == ['id', 'status', 'status_reason']
    assert shown['request']['device_count'] == 2
    assert 'unit_ids' not in shown and 'device_ids' in shown


def test_create_by_devices_resolves_pci_addresses(runner, api):
    unit = _unit(api, '0000:3b:00.0')
    shown = runner.json(rsv_cmds.CreateDeviceReservation, [
        '--device', '0000:3b:00.0', '--device', unit['id']])
    assert api.requests[-1].body == {'device_ids': [unit['id'], unit['id']]}
    assert shown['device_ids'] == [unit['id'], unit['id']]


@pytest.mark.parametrize('server,pinned', [('1.0', None), ('1.4', '1.0'),
                                           ('1.4', '1.1')])
def test_create_before_1_2_sends_the_earlier_names(runner, api, server,
                                                   pinned):
    api.max_version = server
    if pinned:
        runner.pin(pinned)
    unit = _unit(api, '0000:3b:00.0')
    shown = runner.json(rsv_cmds.CreateDeviceReservation,
                        ['--device', unit['id']])
    assert api.requests[-1].body == {'unit_ids': [unit['id']]}
    assert shown['unit_ids'] == [unit['id']]
    assert 'device_ids' not in shown
    runner.take(rsv_cmds.CreateDeviceReservation,
                ['--count', '2', '--model', 'T4'])
    assert api.requests[-1].body == {'count': 2, 'model': 'T4'}
    dry = runner.json(rsv_cmds.CreateDeviceReservation,
                      ['--count', '1', '--model', 'T4', '--dry-run'])
    assert list(dry)[:6] == ['fits', 'host', 'host_id', 'unit_ids',
                             'units', 'start']


def test_create_checks_its_options(runner):
    with pytest.raises(SystemExit):
        runner.parse(rsv_cmds.CreateDeviceReservation, [])
    with pytest.raises(SystemExit):
        runner.parse(rsv_cmds.CreateDeviceReservation,
                     ['--device', 'u1', '--count', '1'])
    with pytest.raises(Exception, match='--count needs --model'):
        runner.take(rsv_cmds.CreateDeviceReservation, ['--count', '1'])
    with pytest.raises(Exception, match='go with --count'):
        runner.take(rsv_cmds.CreateDeviceReservation,
                    ['--device', 'u1', '--numa-local'])


def test_create_dry_run_reserves_nothing(runner, api):
    shown = runner.json(rsv_cmds.CreateDeviceReservation, [
        '--count', '1', '--model', 'T4', '--dry-run'])
    assert shown['fits'] is True
    assert list(shown)[:5] == ['fits', 'host', 'host_id', 'device_ids',
                               'devices']
    assert api.requests[-1].params == {'dry_run': 'true'}
    assert api.requests[-1].body == {'device_count': 1, 'model': 'T4'}
    assert api.device_reservations.items == []
    table = runner.output(rsv_cmds.CreateDeviceReservation, [
        '--count', '1', '--model', 'T4', '--dry-run'])
    assert '0000:3b:00.0 T4 (NUMA 0)' in table


def test_list_and_show(runner, api):
    mine = api.device_reservations.add(
        host='gpu-a100-01', device_ids=['u1', 'u2'], start='s', end=None,
        status='active', project_id='project-a', domains=['vm1'],
        devices=[{'id': 'u1', 'pci_address': '0000:3b:00.0',
                  'model': 'A100', 'numa_node': 0}],
        attachments=[{'domain': 'vm1', 'pci_address': '0000:3b:00.0',
                      'kind': 'pci', 'state': 'attached'}])
    columns, rows = runner.take(rsv_cmds.ListDeviceReservation, [])
    assert columns == ('ID', 'Host', 'Device IDs', 'Start', 'End',
                       'Status')
    table = runner.output(rsv_cmds.ListDeviceReservation, [])
    assert 'u1, u2' in table
    runner.take(rsv_cmds.ListDeviceReservation, [
        '--all-projects', '--status', 'active', '--host', 'gpu-a100-01',
        '--project', 'project-a'])
    assert api.requests[-1].params == {
        'all_projects': 'true', 'status': 'active', 'host': 'gpu-a100-01',
        'project_id': 'project-a'}
    shown = runner.json(rsv_cmds.ShowDeviceReservation, [mine['id']])
    assert shown['devices'][0]['pci_address'] == '0000:3b:00.0'
    assert shown['device_ids'] == ['u1', 'u2']
    assert not {'units', 'unit_ids'} & set(shown)
    # What 1.3 and 1.4 add.
    assert shown['missing_capacity'] == []
    assert shown['released_device_ids'] == []
    assert list(shown)[:4] == ['id', 'status', 'missing_capacity',
                               'host']
    table = runner.output(rsv_cmds.ShowDeviceReservation, [mine['id']])
    assert '0000:3b:00.0 A100 (NUMA 0)' in table
    assert 'vm1: 0000:3b:00.0 pci attached' in table


@pytest.mark.parametrize('version', ['1.0', '1.1'])
def test_list_and_show_before_1_2(runner, api, version):
    runner.pin(version)
    mine = api.device_reservations.add(
        host='gpu-a100-01', device_ids=['u1'], status='active',
        devices=[{'id': 'u1', 'pci_address': '0000:3b:00.0',
                  'model': 'A100', 'numa_node': 0}],
        attachments=[{'domain': 'vm1', 'device_id': 'u1',
                      'pci_address': '0000:3b:00.0', 'kind': 'pci',
                      'state': 'attached'}],
        request={'device_ids': ['u1']})
    columns, rows = runner.take(rsv_cmds.ListDeviceReservation, [])
    assert columns == ('ID', 'Host', 'Units', 'Start', 'End', 'Status')
    assert 'u1' in runner.output(rsv_cmds.ListDeviceReservation, [])
    shown = runner.json(rsv_cmds.ShowDeviceReservation, [mine['id']])
    assert shown['unit_ids'] == ['u1']
    assert shown['units'][0]['pci_address'] == '0000:3b:00.0'
    assert shown['attachments'][0]['unit_id'] == 'u1'
    assert shown['request'] == {'unit_ids': ['u1']}
    assert not {'device_ids', 'devices', 'missing_capacity',
                'released_device_ids'} & set(shown)
    assert list(shown)[:5] == ['id', 'status', 'host', 'unit_ids', 'units']
    table = runner.output(rsv_cmds.ShowDeviceReservation, [mine['id']])
    assert '0000:3b:00.0 A100 (NUMA 0)' in table


def test_set_sends_domains_on_their_own(runner, api):
    item = api.device_reservations.add(status='active', end='x',
                                       domains=[])
    runner.take(rsv_cmds.SetDeviceReservation, [
        item['id'], '--no-end', '--reason', 'extended', '--domain', 'vm1',
        '--domain', 'vm2'])
    patches = [r.body for r in api.requests if r.method == 'PATCH']
    assert patches == [{'end': None, 'reason': 'extended'},
                       {'domains': ['vm1', 'vm2']}]
    runner.take(rsv_cmds.SetDeviceReservation, [item['id'], '--no-domain'])
    assert api.requests[-1].body == {'domains': []}
    runner.take(rsv_cmds.SetDeviceReservation, [
        item['id'], '--end', '2030-02-01', '--allowed-project', 'p9'])
    assert api.requests[-1].body == {'end': '2030-02-01T00:00:00Z',
                                     'allowed_projects': ['p9']}
    with pytest.raises(Exception, match='Nothing to change'):
        runner.take(rsv_cmds.SetDeviceReservation, [item['id']])


def test_affirm_and_cancel(runner, api):
    review = api.device_reservations.add(status='needs-review')
    other = api.device_reservations.add(status='pending')
    shown = runner.json(rsv_cmds.AffirmDeviceReservation, [review['id']])
    assert shown['status'] == 'active'
    assert api.requests[-1].url.endswith('/%s/affirm' % review['id'])
    with pytest.raises(Exception, match='is pending'):
        runner.take(rsv_cmds.AffirmDeviceReservation, [other['id']])
    runner.take(rsv_cmds.CancelDeviceReservation, [review['id'],
                                                   other['id']])
    assert api.device_reservations.items == []
    with pytest.raises(Exception, match='Failed to delete 1 of 1'):
        runner.take(rsv_cmds.CancelDeviceReservation, ['nope'])
