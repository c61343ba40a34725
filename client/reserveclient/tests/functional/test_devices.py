"""openstack reserve device ... and device reservation ... against the
all-in-one's libvirt test:/// GPU hosts."""
import datetime
import os
import shutil
import time

import pytest

pytestmark = pytest.mark.functional

HOST = 'gpu-a100-01'
MODEL = 'A100 SXM4 80GB'


def _wait(cli, rsv_id, wanted, timeout=60):
    deadline = time.monotonic() + timeout
    while True:
        status = cli('reserve', 'device', 'reservation', 'show', rsv_id,
                     '-f', 'value', '-c', 'status').strip()
        if status in wanted or time.monotonic() > deadline:
            return status
        time.sleep(0.5)


def test_device_list_and_show(cli):
    units = cli.json('reserve', 'device', 'list', '--host', HOST,
                     '--model', MODEL)
    # More units than the server's page size (2): every page is read.
    assert len(units) >= 4
    assert {u['Host'] for u in units} == {HOST}
    assert all(MODEL in u['Model'] for u in units)
    assert set(units[0]) == {'ID', 'Host', 'PCI Address', 'Model',
                             'NUMA Node', 'State'}
    unit = units[0]
    shown = cli.json('reserve', 'device', 'show', unit['PCI Address'],
                     '--host', HOST)
    assert shown['id'] == unit['ID']
    assert shown['pci_address'] == unit['PCI Address']
    by_id = cli.json('reserve', 'device', 'show', unit['ID'], '-c', 'model',
                     '-c', 'numa_node')
    assert by_id == {'model': unit['Model'], 'numa_node': unit['NUMA Node']}
    on_node = cli('reserve', 'device', 'list', '--host', HOST, '--numa-node',
                  unit['NUMA Node'], '-f', 'value', '-c', 'ID')
    assert unit['ID'] in on_node.split()
    err = cli.fails('reserve', 'device', 'show', '0000:99:99.9')
    assert 'could not be found' in err


def test_device_reservation_lifecycle(cli):
    dry = cli.json('reserve', 'device', 'reservation', 'create',
                   '--count', '2', '--model', MODEL, '--host', HOST,
                   '--numa-local', '--dry-run')
    assert dry['fits'] is True
    assert len(dry['unit_ids']) == 2
    assert len({u['numa_node'] for u in dry['units']}) == 1

    created = cli.json('reserve', 'device', 'reservation', 'create',
                       '--count', '2', '--model', MODEL, '--host', HOST,
                       '--numa-local', '--domain', 'gpu-vm-2',
                       '--contract-ref', 'FN-1', '--reason', 'functional')
    rsv_id = created['id']
    assert created['status'] in ('pending', 'active')
    assert created['end'] is None
    assert created['contract_ref'] == 'FN-1'
    assert created['allowed_projects'] == ['noauth-project']
    assert len(created['unit_ids']) == 2
    assert _wait(cli, rsv_id, ('active',)) == 'active'

    shown = cli.json('reserve', 'device', 'reservation', 'show', rsv_id)
    assert shown['domains'] == ['gpu-vm-2']
    assert {a['domain'] for a in shown['attachments']} == {'gpu-vm-2'}
    table = cli('reserve', 'device', 'reservation', 'show', rsv_id)
    assert '(NUMA %s)' % shown['units'][0]['numa_node'] in table
    # The units now show as reserved by it.
    reserved = cli.json('reserve', 'device', 'list', '--host', HOST,
                        '--state', 'reserved', '--long')
    assert {u['ID'] for u in reserved
            if u['Reservation ID'] == rsv_id} == set(shown['unit_ids'])

    listed = cli.json('reserve', 'device', 'reservation', 'list',
                      '--status', 'active', '--host', HOST)
    assert rsv_id in [r['ID'] for r in listed]

    updated = cli.json('reserve', 'device', 'reservation', 'set', rsv_id,
                       '--reason', 'functional, extended', '--end',
                       '2031-01-01', '--no-domain')
    assert updated['reason'] == 'functional, extended'
    assert updated['end'] == '2031-01-01T00:00:00Z'
    assert updated['domains'] == []

    cli('reserve', 'device', 'reservation', 'cancel', rsv_id)
    assert _wait(cli, rsv_id, ('cancelled',)) == 'cancelled'
    err = cli.fails('reserve', 'device', 'reservation', 'show', 'nope')
    assert 'could not be found' in err


def _in_three_weeks():
    # Within the project's default unit-hours quota ([quota] unit_hours).
    return (datetime.date.today() + datetime.timedelta(days=21)).isoformat()


def test_device_reservation_affirm(server, cli):
    units = cli.json('reserve', 'device', 'list', '--host', 'gpu-t4-01')
    unit = units[-1]
    created = cli.json('reserve', 'device', 'reservation', 'create',
                       '--device', unit['PCI Address'], '--host', 'gpu-t4-01',
                       '--end', _in_three_weeks())
    assert created['unit_ids'] == [unit['ID']]
    assert _wait(cli, created['id'], ('active',)) == 'active'
    # Only a reservation in needs-review can be affirmed.
    err = cli.fails('reserve', 'device', 'reservation', 'affirm',
                    created['id'])
    assert 'HTTP 409' in err
    server.sql("UPDATE device_reservations SET status = 'NEEDS_REVIEW' "
               "WHERE id = ?", created['id'])
    affirmed = cli.json('reserve', 'device', 'reservation', 'affirm',
                        created['id'])
    assert affirmed['status'] in ('pending', 'active')
    cli('reserve', 'device', 'reservation', 'cancel', created['id'])


def test_enroll_a_libvirt_host_by_uri(cli, tmp_path):
    source = os.path.join(os.path.dirname(__file__), *(
        [os.pardir] * 4 + ['etc', 'reserve', 'gpu-hosts',
                           'rtx-workstation.xml']))
    if not os.path.isfile(source):
        pytest.skip('needs the GPU host definitions of a source checkout')
    path = tmp_path / 'rtx-workstation.xml'
    shutil.copy(source, path)
    host = cli.json('reserve', 'host', 'create', 'fn-rtx', '--uri',
                    'test://%s' % path)
    assert host['kind'] == 'libvirt'
    assert host['uri'] == 'test://%s' % path
    units = cli.json('reserve', 'device', 'list', '--host', 'fn-rtx')
    assert units and {u['Host'] for u in units} == {'fn-rtx'}
    cli('reserve', 'host', 'delete', 'fn-rtx')
