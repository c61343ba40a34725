"""openstack reserve device ... and device reservation ... against the
all-in-one's libvirt test:/// GPU hosts."""
import datetime
import os
import shlex
import shutil
import time

import pytest

from reserveclient.tests.functional import base

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
    devices = cli.json('reserve', 'device', 'list', '--host', HOST,
                       '--model', MODEL)
    # More devices than the server's page size (2): every page is read.
    assert len(devices) >= 4
    assert {u['Host'] for u in devices} == {HOST}
    assert all(MODEL in u['Model'] for u in devices)
    assert set(devices[0]) == {'ID', 'Host', 'PCI Address', 'Model',
                               'NUMA Node', 'State'}
    device = devices[0]
    shown = cli.json('reserve', 'device', 'show', device['PCI Address'],
                     '--host', HOST)
    assert shown['id'] == device['ID']
    assert shown['pci_address'] == device['PCI Address']
    by_id = cli.json('reserve', 'device', 'show', device['ID'], '-c',
                     'model', '-c', 'numa_node')
    assert by_id == {'model': device['Model'],
                     'numa_node': device['NUMA Node']}
    on_node = cli('reserve', 'device', 'list', '--host', HOST, '--numa-node',
                  device['NUMA Node'], '-f', 'value', '-c', 'ID')
    assert device['ID'] in on_node.split()
    err = cli.fails('reserve', 'device', 'show', '0000:99:99.9')
    assert 'could not be found' in err


def test_device_reservation_lifecycle(cli):
    dry = cli.json('reserve', 'device', 'reservation', 'create',
                   '--count', '2', '--model', MODEL, '--host', HOST,
                   '--numa-local', '--dry-run')
    assert dry['fits'] is True
    assert len(dry['device_ids']) == 2
    assert len({u['numa_node'] for u in dry['devices']}) == 1

    created = cli.json('reserve', 'device', 'reservation', 'create',
                       '--count', '2', '--model', MODEL, '--host', HOST,
                       '--numa-local', '--domain', 'gpu-vm-2',
                       '--contract-ref', 'FN-1', '--reason', 'functional')
    rsv_id = created['id']
    assert created['status'] in ('pending', 'active')
    assert created['end'] is None
    assert created['contract_ref'] == 'FN-1'
    assert created['allowed_projects'] == ['noauth-project']
    assert len(created['device_ids']) == 2
    assert _wait(cli, rsv_id, ('active',)) == 'active'

    shown = cli.json('reserve', 'device', 'reservation', 'show', rsv_id)
    assert shown['domains'] == ['gpu-vm-2']
    assert {a['domain'] for a in shown['attachments']} == {'gpu-vm-2'}
    table = cli('reserve', 'device', 'reservation', 'show', rsv_id)
    assert '(NUMA %s)' % shown['devices'][0]['numa_node'] in table
    # The devices now show as reserved by it.
    reserved = cli.json('reserve', 'device', 'list', '--host', HOST,
                        '--state', 'reserved', '--long')
    assert {u['ID'] for u in reserved
            if u['Device Reservation ID'] == rsv_id} == \
        set(shown['device_ids'])
    # The names of API 1.0 when it is asked for.
    old = cli.json('--os-reserve-api-version', '1.0', 'reserve', 'device',
                   'reservation', 'show', rsv_id)
    assert old['unit_ids'] == shown['device_ids']
    assert 'device_ids' not in old

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
    # Within the project's default device-hours quota ([quota]
    # device_hours).
    return (datetime.date.today() + datetime.timedelta(days=21)).isoformat()


def test_device_reservation_affirm(server, cli):
    devices = cli.json('reserve', 'device', 'list', '--host', 'gpu-t4-01')
    device = devices[-1]
    created = cli.json('reserve', 'device', 'reservation', 'create',
                       '--device', device['PCI Address'], '--host',
                       'gpu-t4-01', '--end', _in_three_weeks())
    assert created['device_ids'] == [device['ID']]
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
    devices = cli.json('reserve', 'device', 'list', '--host', 'fn-rtx')
    assert devices and {u['Host'] for u in devices} == {'fn-rtx'}
    cli('reserve', 'host', 'delete', 'fn-rtx')


def test_a_refused_reservation_offers_the_command_that_reserves(cli):
    start, end = base.future(200, 6), base.future(200, 8)
    # As many as fit on the host then (a dry run says), all reserved.
    most = next(n for n in range(8, 0, -1) if cli.json(
        'reserve', 'device', 'reservation', 'create', '--count', str(n),
        '--model', MODEL, '--host', HOST, '--start', start, '--end', end,
        '--dry-run')['fits'])
    held = cli.json('reserve', 'device', 'reservation', 'create', '--count',
                    str(most), '--model', MODEL, '--host', HOST, '--start',
                    start, '--end', end)
    try:
        err = cli.fails('reserve', 'device', 'reservation', 'create',
                        '--count', '1', '--model', MODEL, '--host', HOST,
                        '--start', base.future(200, 7),
                        '--end', base.future(200, 9))
        assert err.startswith('No GPU devices fit: 1 device(s)'), err
        assert 'GET /v1/devices' not in err
        later = next(line for line in err.splitlines()
                     if line.startswith('  the later window: '))
        command = later.split(': ', 1)[1].split(' (HTTP')[0]
        assert command == (
            "openstack reserve device reservation create --count 1 "
            "--model 'A100 SXM4 80GB' --host %s --start %s --end %s" % (
                HOST, end, base.future(200, 10)))
        # The command, as offered, reserves.
        offered = cli.json(*shlex.split(command)[1:])
        assert offered['status'] == 'pending'
        cli('reserve', 'device', 'reservation', 'cancel', offered['id'])
    finally:
        cli('reserve', 'device', 'reservation', 'cancel', held['id'])
