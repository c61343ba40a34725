"""openstack reserve calendar against the real API (microversion 1.5)."""
import itertools

import pytest

from reserveclient.tests.functional import base

pytestmark = pytest.mark.functional


def _cells(lines, label):
    row, = [line for line in lines if line.startswith(label + ' ')]
    return row[len('slot 1 '):]


def test_a_flavor_s_week(cli, server):
    flavor = base.seed_flavor(server, slots=3)
    mine = cli.json('reserve', 'reservation', 'create', '--flavor',
                    flavor['name'], '--start', base.future(2), '--end',
                    base.future(4), '--instance-count', '2')['id']
    status, doc = server.request('POST', '/v1/reservations', {
        'flavor_id': flavor['name'], 'start': base.future(4),
        'end': base.future(6)}, project='fn-other', roles='member,reader')
    assert status == 201, doc
    theirs = doc['reservation']['id']
    # Without nova they fail: make them live, ours active.
    for booking_id in (mine, theirs):
        base.wait_status(cli, booking_id, ('ALLOCATED', 'ERROR'))
        base.make_live(server, booking_id)
    server.sql("UPDATE bookings SET status = 'ACTIVE' WHERE id = ?", mine)

    out = cli('reserve', 'calendar', '--flavor', flavor['name'], '--start',
              base.future(1), '--end', base.future(8), '--width', '80')
    lines = out.splitlines()
    assert lines[0] == 'Flavor %s, 3 slots' % flavor['name']
    assert lines[1].startswith('%s 00:00 - %s 00:00 UTC (7 days)' % (
        base.future(1)[:10], base.future(8)[:10]))
    assert all(len(line) <= 80 for line in lines)
    assert '\x1b[' not in out   # not a terminal
    # 73 columns for 7 days: ours (two instances) on slots 1 and 2 from
    # the first day to the third, theirs on slot 3 from the third on.
    assert _cells(lines, 'slot 1') == _cells(lines, 'slot 2') == (
        '·' * 10 + '█' * 22 + '·' * 41)
    assert _cells(lines, 'slot 3') == '·' * 31 + '░' * 22 + '·' * 20
    free = _cells(lines, 'free  ')
    assert ''.join(k for k, _ in itertools.groupby(free)) == '31023'
    legend = ' '.join(lines[-3:])
    assert '█ yours, ACTIVE' in legend and "░ other projects'" in legend

    # No --width and no terminal: 100 columns, whatever COLUMNS says.
    out = cli.run('reserve', 'calendar', '--flavor', flavor['id'],
                  env={'COLUMNS': '140'}).stdout
    assert max(len(line) for line in out.splitlines()) == 100


def test_the_api_s_errors(cli, server):
    err = cli.fails('reserve', 'calendar', '--flavor', 'fn-no-such-flavor')
    assert 'fn-no-such-flavor could not be found' in err
    assert 'HTTP 404' in err
    flavor = base.seed_flavor(server, slots=1)
    err = cli.fails('reserve', 'calendar', '--flavor', flavor['name'],
                    '--start', base.future(1), '--end', base.future(200))
    assert 'at most 93 days' in err and 'HTTP 400' in err
    err = cli.fails('reserve', 'calendar')
    assert "'flavor_id'" in err and 'HTTP 400' in err
