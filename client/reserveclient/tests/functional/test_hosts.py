"""openstack reserve host ... against the real API."""
import re
import uuid

import pytest

pytestmark = pytest.mark.functional


@pytest.fixture
def host(server):
    """An enrolled host. Enrolling asks nova, which is absent here, so the
    row is written into the server's database."""
    host_id = str(uuid.uuid4())
    name = 'fn-host-%s' % host_id[:8]
    now = '2026-01-01 00:00:00.000000'  # as SQLAlchemy writes it
    server.sql(
        'INSERT INTO hosts (id, kind, name, service_name, provider_uuid, '
        'vcpus, memory_mb, local_gb, reservable, created_at, updated_at) '
        "VALUES (?, 'nova', ?, ?, ?, 64, 524288, 1800, 1, ?, ?)",
        host_id, name, name, str(uuid.uuid4()), now, now)
    server.sql(
        'INSERT INTO host_capabilities (host_id, key, value, created_at, '
        "updated_at) VALUES (?, 'gpu', 'a100', ?, ?)", host_id, now, now)
    return {'id': host_id, 'name': name}


def test_create_reports_the_cloud_error(cli):
    # The all-in-one under test has no nova: the error says what to set.
    err = cli.fails('reserve', 'host', 'create', 'fn-no-such-hypervisor',
                    '--property', 'gpu=a100')
    assert 'nova is not configured here' in err
    assert '[nova]' in err
    assert 'HTTP 503, reserve.service_unavailable, request req-' in err


def test_create_refuses_bad_properties(cli):
    result = cli.run('reserve', 'host', 'create', 'x', '--property', 'gpu',
                     check=False)
    assert result.returncode == 2
    assert "'gpu' is not of the form <key>=<value>" in result.stderr


def test_list_and_show(cli, host):
    rows = cli.json('reserve', 'host', 'list')
    row = [r for r in rows if r['ID'] == host['id']][0]
    assert row['Name'] == host['name']
    assert row['Reservable'] is True
    assert row['vCPUs'] == 64
    long_rows = cli.json('reserve', 'host', 'list', '--long')
    row = [r for r in long_rows if r['ID'] == host['id']][0]
    assert row['Properties'] == {'gpu': 'a100'}

    by_name = cli.json('reserve', 'host', 'show', host['name'])
    by_id = cli.json('reserve', 'host', 'show', host['id'])
    assert by_name == by_id
    assert by_name['properties'] == {'gpu': 'a100'}
    table = cli('reserve', 'host', 'show', host['name'])
    # The column is as wide as the longest field name.
    assert re.search(r"\| properties +\| gpu='a100'", table), table


def test_set_and_filters(cli, host):
    assert cli('reserve', 'host', 'set', host['name'], '--property',
               'rack=r7', '--property', 'gpu=h100', '--not-reservable') == ''
    shown = cli.json('reserve', 'host', 'show', host['name'])
    assert shown['properties'] == {'gpu': 'h100', 'rack': 'r7'}
    assert shown['reservable'] is False

    off = cli('reserve', 'host', 'list', '--not-reservable', '-f', 'value',
              '-c', 'Name')
    assert host['name'] in off.split()
    on = cli('reserve', 'host', 'list', '--reservable', '-f', 'value',
             '-c', 'Name')
    assert host['name'] not in on.split()

    cli('reserve', 'host', 'set', host['id'], '--unset-property', 'rack',
        '--reservable')
    shown = cli.json('reserve', 'host', 'show', host['id'])
    assert shown['properties'] == {'gpu': 'h100'}
    assert shown['reservable'] is True

    err = cli.fails('reserve', 'host', 'set', host['name'])
    assert 'Nothing to change' in err


def test_delete(cli, host):
    assert cli('reserve', 'host', 'delete', host['name']) == ''
    err = cli.fails('reserve', 'host', 'show', host['name'])
    assert 'could not be found' in err
    err = cli.fails('reserve', 'host', 'delete', host['name'], 'fn-nope')
    assert 'Failed to delete 2 of 2 hosts' in err
