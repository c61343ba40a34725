"""openstack reserve reservation ... and lease ... against the real API."""
import datetime
import json
import re
import time
import uuid

import pytest

from reserveclient.tests.functional import base

pytestmark = pytest.mark.functional

OTHER_PROJECT = 'functional-other'
_future = base.future


@pytest.fixture(scope='module')
def flavor(server, cli):
    """A public catalogue flavor, booked by name (written into the
    database: without nova the API refuses to create one)."""
    created = base.seed_flavor(server)
    return {'ref': created['name'], 'id': created['id']}


def _create(cli, flavor, *extra, start=10, end=11):
    return cli.json('reserve', 'reservation', 'create',
                    '--flavor', flavor['ref'], '--start', _future(start),
                    '--end', _future(end), *extra)


def test_plugin_commands_are_registered(cli):
    out = cli('command', 'list', '--group', 'openstack.reserve.v1',
              '-f', 'value')
    for name in ('reserve reservation create', 'reserve reservation list',
                 'reserve lease show', 'reserve host set',
                 'reserve flavor free-slots', 'reserve flavor access grant',
                 'reserve maintenance window create', 'reserve limits show',
                 'reserve allocation list', 'reserve device list',
                 'reserve device show', 'reserve device reservation create',
                 'reserve device reservation affirm',
                 'reserve device reservation cancel'):
        assert name in out
    help_text = cli('help', 'reserve', 'reservation', 'create')
    assert '--instance-count' in help_text
    assert 'midnight UTC' in help_text


def test_create_show_set_delete(server, cli, flavor):
    created = _create(cli, flavor, '--instance-count', '2')
    assert created['status'] == 'PENDING_CREATE'
    assert created['instance_count'] == 2
    assert created['flavor_id'] == flavor['id']
    assert created['start'] == _future(10)
    assert created['end'] == _future(11)
    booking_id = created['id']

    shown = cli.json('reserve', 'reservation', 'show', booking_id)
    assert shown['id'] == booking_id
    assert list(shown)[:4] == ['id', 'project_id', 'user_id', 'flavor_id']

    # Its lease is built (nova's objects wait for its start).
    assert base.wait_status(cli, booking_id, ('ALLOCATED',)) == 'ALLOCATED'
    server.sql("UPDATE bookings SET status = 'ERROR', status_reason = "
               "'functional: failed' WHERE id = ?", booking_id)
    reason = cli('reserve', 'reservation', 'show', booking_id, '-f',
                 'value', '-c', 'status_reason')
    assert reason.strip() == 'functional: failed'

    # An ERROR booking cannot be changed: the API's words reach the user.
    err = cli.fails('reserve', 'reservation', 'set', booking_id,
                    '--end', _future(12))
    assert 'can be changed' in err
    assert 'HTTP 409' in err and 'request req-' in err

    base.make_live(server, booking_id)
    assert cli('reserve', 'reservation', 'set', booking_id,
               '--end', _future(12, hour=6)) == ''
    end = cli('reserve', 'reservation', 'show', booking_id, '-f', 'value',
              '-c', 'end').strip()
    assert end == _future(12, hour=6)

    # A live booking is cancelled: it stays, COMPLETE.
    base.make_live(server, booking_id)
    assert cli('reserve', 'reservation', 'delete', booking_id) == ''
    cancelled = cli.json('reserve', 'reservation', 'show', booking_id)
    assert cancelled['status'] == 'COMPLETE'
    assert 'Cancelled' in cancelled['status_reason']

    # Not while its lease is being torn down: its allocations still
    # hold the hosts. Once the lease is over, it is removed.
    err = cli.fails('reserve', 'reservation', 'delete', booking_id)
    assert 'still being torn down' in err and 'HTTP 409' in err
    server.sql("UPDATE leases SET status = 'TERMINATED' WHERE id = ?",
               cancelled['lease_id'])
    cli('reserve', 'reservation', 'delete', booking_id)
    err = cli.fails('reserve', 'reservation', 'show', booking_id)
    assert 'Reservation %s could not be found.' % booking_id in err
    assert '(HTTP 404, reserve.not_found, request req-' in err


def test_create_hints_or_waits(cli, flavor):
    result = cli.run('reserve', 'reservation', 'create', '--flavor',
                     flavor['ref'], '--start', _future(60), '--end',
                     _future(61), '-f', 'value', '-c', 'id')
    booking_id = result.stdout.strip()
    assert result.stderr == (
        'lease_id and reserved_flavor_id appear once it is ALLOCATED: '
        'openstack reserve reservation show %s\n' % booking_id)
    result = cli.run('reserve', 'reservation', 'create', '--flavor',
                     flavor['ref'], '--start', _future(62), '--end',
                     _future(63), '--wait', '--wait-timeout', '60',
                     '-f', 'json')
    waited = json.loads(result.stdout)
    assert waited['status'] == 'ALLOCATED'
    assert waited['lease_id'] and waited['reserved_flavor_id']
    assert 'compute_flavor' not in waited
    lines = result.stderr.splitlines()
    assert lines[0] == ('Reservation %s: PENDING_CREATE, waiting for its '
                        'lease (0s)' % waited['id'])
    assert lines[-1].startswith('Reservation %s: ALLOCATED after '
                                % waited['id'])
    # Its lease, by the booking's ID.
    shown = cli.json('reserve', 'lease', 'show', waited['id'], '-c', 'id',
                     '-c', 'name')
    assert shown == {'id': waited['lease_id'],
                     'name': 'reservation-%s' % waited['id']}
    # Its allocations show the booking's ID.
    rows = cli.json('reserve', 'allocation', 'list', '--lease',
                    waited['lease_id'])
    assert rows and {r['Booking ID'] for r in rows} == {waited['id']}


def test_missing_environment_says_what_to_set(cli):
    env = {k: v for k, v in cli.env.items()
           if k not in ('OS_AUTH_TYPE', 'OS_RESERVE_URL')}
    saved, cli.env = cli.env, env
    try:
        err = cli.fails('reserve', 'reservation', 'list')
    finally:
        cli.env = saved
    assert ('export OS_AUTH_TYPE=none OS_RESERVE_URL=http://127.0.0.1:8785'
            in err)
    assert 'Missing value auth-url' not in err


def test_dates_are_normalised_to_utc(cli, flavor):
    day = (datetime.date.today() + datetime.timedelta(days=20)).isoformat()
    created = cli.json('reserve', 'reservation', 'create',
                       '--flavor', flavor['ref'], '--start', day,
                       '--end', '%sT14:30:00+02:00' % day)
    assert created['start'] == '%sT00:00:00Z' % day
    assert created['end'] == '%sT12:30:00Z' % day


def test_bad_input_is_refused_before_any_request(cli):
    result = cli.run('reserve', 'reservation', 'create', '--flavor', 'x',
                     '--start', 'next tuesday', '--end', '2030-01-01',
                     check=False)
    assert result.returncode == 2
    assert "argument --start: 'next tuesday' is not a date" in result.stderr


def test_past_window_is_refused_by_the_api(cli, flavor):
    err = cli.fails('reserve', 'reservation', 'create', '--flavor',
                    flavor['ref'], '--start', '2001-01-01',
                    '--end', '2001-01-02')
    assert 'is in the past' in err
    assert 'HTTP 400' in err


def test_list_filters_projects_and_pages(server, cli, flavor):
    mine = [_create(cli, flavor, start=30 + i, end=31 + i)['id']
            for i in range(3)]
    status, body = server.request('POST', '/v1/reservations', {
        'flavor_id': flavor['id'], 'start': _future(40),
        'end': _future(41)}, project=OTHER_PROJECT, roles='member,reader')
    assert status == 201, body
    theirs = body['reservation']['id']

    own = cli('reserve', 'reservation', 'list', '-f', 'value', '-c', 'ID')
    assert set(mine) <= set(own.split())
    assert theirs not in own.split()

    every = cli.json('reserve', 'reservation', 'list', '--all-projects')
    ids = [row['ID'] for row in every]
    assert set(mine) | {theirs} <= set(ids)
    assert len(ids) == len(set(ids))
    assert 'Project ID' in every[0]
    # The server's page size is 2 (max_limit): every page was followed.
    assert len(ids) > 2

    other = cli.json('reserve', 'reservation', 'list', '--project',
                     OTHER_PROJECT)
    assert [row['ID'] for row in other] == [theirs]
    assert other[0]['Project ID'] == OTHER_PROJECT

    by_flavor = cli('reserve', 'reservation', 'list', '--all-projects',
                    '--flavor', flavor['ref'], '-f', 'value', '-c', 'ID')
    assert set(mine) | {theirs} <= set(by_flavor.split())

    # Once the worker is done with it, make sure it is live.
    assert base.wait_status(cli, mine[0], ('ALLOCATED', 'ERROR')) in (
        'ALLOCATED', 'ERROR')
    base.make_live(server, mine[0])
    active = cli.json('reserve', 'reservation', 'list', '--status',
                      'ALLOCATED')
    assert mine[0] in [row['ID'] for row in active]
    assert all(row['Status'] == 'ALLOCATED' for row in active)

    first = cli.json('reserve', 'reservation', 'list', '--all-projects',
                     '--limit', '1')
    assert [row['ID'] for row in first] == ids[:1]
    three = cli.json('reserve', 'reservation', 'list', '--all-projects',
                     '--limit', '3')
    assert [row['ID'] for row in three] == ids[:3]
    after = cli.json('reserve', 'reservation', 'list', '--all-projects',
                     '--limit', '2', '--marker', ids[0])
    assert [row['ID'] for row in after] == ids[1:3]


def test_output_formats(cli, flavor):
    booking = _create(cli, flavor, start=50, end=51)
    value = cli('reserve', 'reservation', 'show', booking['id'], '-f',
                'value', '-c', 'id', '-c', 'start')
    assert value.split() == [booking['id'], _future(50)]
    yaml_out = cli('reserve', 'reservation', 'show', booking['id'],
                   '-f', 'yaml', '-c', 'id')
    assert yaml_out.strip() == 'id: %s' % booking['id']
    shell = cli('reserve', 'reservation', 'show', booking['id'],
                '-f', 'shell', '-c', 'instance_count')
    assert shell.strip() == 'instance_count="1"'
    table = cli('reserve', 'reservation', 'show', booking['id'])
    assert '| Field' in table
    assert re.search(r'\| instance_count +\| 1 ', table)
    listed = cli('reserve', 'reservation', 'list', '--long', '-f', 'csv',
                 '-c', 'ID', '-c', 'Reserved Flavor ID')
    assert listed.splitlines()[0] == '"ID","Reserved Flavor ID"'
    assert listed.count(booking['id']) == 1
    # The names of API 1.0 when it is asked for.
    old = cli('--os-reserve-api-version', '1.0', 'reserve', 'reservation',
              'list', '--long', '-f', 'csv', '-c', 'ID', '-c',
              'Compute Flavor')
    assert old.splitlines()[0] == '"ID","Compute Flavor"'
    listing = cli('reserve', 'reservation', 'list', '--long')
    assert '| Status Reason' in listing


def test_api_version_option(cli):
    assert cli.run('--os-reserve-api-version', '1.0', 'reserve',
                   'reservation', 'list').returncode == 0
    err = cli.fails('--os-reserve-api-version', '1.999', 'reserve',
                    'reservation', 'list')
    assert 'version 1.999 of the reserve API is not supported' in err
    assert 'HTTP 406' in err
    err = cli.fails('--os-reserve-api-version', 'two', 'reserve',
                    'reservation', 'list')
    assert "--os-reserve-api-version 'two' is not a version" in err


def test_endpoint_selection(server, cli):
    # --os-reserve-url wins over the environment.
    assert cli.run('--os-reserve-url', server.url, 'reserve', 'reservation',
                   'list', env={'OS_RESERVE_URL': 'http://127.0.0.1:9'}
                   ).returncode == 0
    # The none plugin's own endpoint option works too.
    env = dict(cli.env)
    env.pop('OS_RESERVE_URL')
    env['OS_ENDPOINT'] = server.url
    saved, cli.env = cli.env, env
    try:
        assert cli.run('reserve', 'reservation', 'list').returncode == 0
        env.pop('OS_ENDPOINT')
        err = cli.fails('reserve', 'reservation', 'list')
        assert 'No endpoint for the reserve API' in err
        assert 'OS_RESERVE_URL' in err
    finally:
        cli.env = saved
    err = cli.fails('reserve', 'reservation', 'list',
                    env={'OS_RESERVE_URL': 'http://127.0.0.1:9'})
    assert 'Unable to reach the reserve API at http://127.0.0.1:9' in err


# -- leases -----------------------------------------------------------------

@pytest.fixture(scope='module')
def seeded_lease(server):
    """A lease with a reservation on two hosts and its three events.

    Without nova the lease engine builds none, so the rows are written
    into the server's database; they lie years ahead, out of reach of the
    event loop.
    """
    now = '2026-01-01 00:00:00.000000'  # as SQLAlchemy writes it
    lease_id = str(uuid.uuid4())
    rsv_id = str(uuid.uuid4())
    host_ids = []
    for name in ('fn-lease-gpu1', 'fn-lease-gpu2'):
        host_id = str(uuid.uuid4())
        host_ids.append(host_id)
        server.sql(
            'INSERT INTO hosts (id, kind, name, service_name, vcpus, '
            'memory_mb, local_gb, reservable, created_at, updated_at) '
            "VALUES (?, 'nova', ?, ?, 64, 524288, 1800, 1, ?, ?)",
            host_id, name, name, now, now)
    server.sql(
        'INSERT INTO leases (id, name, project_id, user_id, start, '
        'end, status, degraded, created_at, updated_at) VALUES '
        "(?, ?, 'noauth-project', 'functional', '2035-01-01 00:00:00.000000', "
        "'2035-01-02 00:00:00.000000', 'PENDING', 0, ?, ?)",
        lease_id, 'Reservation fn-%s' % lease_id[:8], now, now)
    server.sql(
        'INSERT INTO lease_reservations (id, lease_id, resource_type, '
        'status, amount, source_flavor_id, vcpus, memory_mb, disk_gb, '
        'ephemeral_gb, swap_mb, extra_specs, created_at, updated_at) '
        "VALUES (?, ?, 'flavor:instance', 'PENDING', 2, 'gpu.a100', 8, "
        "65536, 40, 0, 0, ?, ?, ?)",
        rsv_id, lease_id, '{"pci_passthrough:alias": "a100:1"}', now, now)
    for host_id in host_ids:
        server.sql(
            'INSERT INTO allocations (id, lease_reservation_id, host_id, '
            'amount, start, end, created_at, updated_at) VALUES '
            "(?, ?, ?, 1, '2035-01-01 00:00:00.000000', "
            "'2035-01-02 00:00:00.000000', ?, ?)",
            str(uuid.uuid4()), rsv_id, host_id, now, now)
    for event_type, when in (
            ('start_lease', '2035-01-01 00:00:00.000000'),
            ('before_end_lease', '2035-01-01 23:00:00.000000'),
            ('end_lease', '2035-01-02 00:00:00.000000')):
        server.sql(
            'INSERT INTO events (id, lease_id, event_type, time, status, '
            "attempts, created_at, updated_at) VALUES (?, ?, ?, ?, "
            "'UNDONE', 0, ?, ?)",
            str(uuid.uuid4()), lease_id, event_type, when, now, now)
    return {'id': lease_id, 'reservation_id': rsv_id,
            'name': 'Reservation fn-%s' % lease_id[:8]}


def test_lease_list(cli, seeded_lease):
    leases = cli.json('reserve', 'lease', 'list', '--all-projects')
    row = [r for r in leases if r['ID'] == seeded_lease['id']][0]
    assert row['Name'] == seeded_lease['name']
    assert row['Status'] == 'PENDING'
    assert row['Start'] == '2035-01-01T00:00:00Z'
    assert 'Project ID' in row
    pending = cli('reserve', 'lease', 'list', '--status', 'PENDING',
                  '-f', 'value', '-c', 'ID')
    assert seeded_lease['id'] in pending.split()
    long_rows = cli.json('reserve', 'lease', 'list', '--long')
    row = [r for r in long_rows if r['ID'] == seeded_lease['id']][0]
    assert row['Reservations'][0]['id'] == seeded_lease['reservation_id']


def test_lease_show_readable(cli, seeded_lease):
    table = cli('reserve', 'lease', 'show', seeded_lease['id'])
    rsv = seeded_lease['reservation_id']
    assert '| reservations  | id: %s' % rsv in table
    assert 'allocations: fn-lease-gpu1 x1, fn-lease-gpu2 x1' in table
    assert ('resource class: CUSTOM_RESERVATION_%s' %
            rsv.upper().replace('-', '_')) in table
    assert "extra specs: pci_passthrough:alias='a100:1'" in table
    events = [line.split('|')[2].strip() for line in table.splitlines()
              if '_lease 2035' in line]
    assert events == ['start_lease 2035-01-01T00:00:00Z UNDONE',
                      'before_end_lease 2035-01-01T23:00:00Z UNDONE',
                      'end_lease 2035-01-02T00:00:00Z UNDONE']


def test_lease_show_json_and_by_name(cli, seeded_lease):
    shown = cli.json('reserve', 'lease', 'show', seeded_lease['name'])
    assert shown['id'] == seeded_lease['id']
    allocations = shown['reservations'][0]['allocations']
    assert sorted(a['host'] for a in allocations) == ['fn-lease-gpu1',
                                                      'fn-lease-gpu2']
    assert [e['event_type'] for e in shown['events']] == [
        'start_lease', 'before_end_lease', 'end_lease']
    by_rsv = cli.json('reserve', 'lease', 'show',
                      seeded_lease['reservation_id'], '-c', 'id')
    assert by_rsv == {'id': seeded_lease['id']}
    err = cli.fails('reserve', 'lease', 'show', 'no-such-lease')
    assert 'could not be found' in err


def test_lease_show_by_booking(server, cli, flavor, seeded_lease):
    booking = _create(cli, flavor, start=70, end=71)
    assert base.wait_status(cli, booking['id'], ('ALLOCATED', 'ERROR')) in (
        'ALLOCATED', 'ERROR')
    server.sql('UPDATE bookings SET lease_id = ? WHERE id = ?',
               seeded_lease['id'], booking['id'])
    shown = cli.json('reserve', 'lease', 'show', booking['id'], '-c', 'id',
                     '-c', 'status')
    assert shown == {'id': seeded_lease['id'], 'status': 'PENDING'}


def test_allocation_list_filters(cli, seeded_lease):
    rows = cli.json('reserve', 'allocation', 'list', '--lease',
                    seeded_lease['id'])
    assert sorted(r['Host'] for r in rows) == ['fn-lease-gpu1',
                                               'fn-lease-gpu2']
    # Seeded without a booking; the lease reservation is under --long.
    assert {r['Booking ID'] for r in rows} == {None}
    assert 'Lease Reservation ID' not in rows[0]
    rows = cli.json('reserve', 'allocation', 'list', '--lease',
                    seeded_lease['id'], '--long')
    assert {r['Lease Reservation ID'] for r in rows} == {
        seeded_lease['reservation_id']}
    assert {r['Amount'] for r in rows} == {1}
    on_one = cli.json('reserve', 'allocation', 'list', '--host',
                      'fn-lease-gpu1', '--reservation-id',
                      seeded_lease['reservation_id'])
    assert [r['Host'] for r in on_one] == ['fn-lease-gpu1']
    assert on_one[0]['Lease ID'] == seeded_lease['id']
    assert on_one[0]['Status'] == 'PENDING'


def test_a_standby_is_admitted_when_a_cancel_frees_room(server, cli):
    one = base.seed_flavor(server, slots=1)
    flavor = {'ref': one['name'], 'id': one['id']}
    held = _create(cli, flavor, start=20, end=22)
    assert held['status'] == 'PENDING_CREATE'
    refused = cli.fails('reserve', 'reservation', 'create', '--flavor',
                        flavor['ref'], '--start', _future(21), '--end',
                        _future(23))
    assert refused.startswith('No capacity')
    result = cli.run('reserve', 'reservation', 'create', '--flavor',
                     flavor['ref'], '--start', _future(21), '--end',
                     _future(23), '--standby', '-f', 'json')
    waiting = json.loads(result.stdout)
    assert waiting['status'] == 'STANDBY'
    assert waiting['standby_since']
    assert result.stderr.startswith(
        'No room now: the reservation waits on standby until %s'
        % _future(21))
    listed = cli.json('reserve', 'reservation', 'list', '--status',
                      'STANDBY')
    assert [r['ID'] for r in listed] == [waiting['id']]
    cli('reserve', 'reservation', 'delete', held['id'])
    # The cancel asks the worker for a pass at once: admitted well
    # within one [booking] standby_interval (10 s).
    deadline = time.monotonic() + 10
    while True:
        shown = cli.json('reserve', 'reservation', 'show', waiting['id'])
        if shown['status'] != 'STANDBY' or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert shown['status'] in ('PENDING_CREATE', 'ALLOCATED')
    assert shown['standby_since'] == waiting['standby_since']
