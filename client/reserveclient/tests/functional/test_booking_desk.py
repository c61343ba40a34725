"""openstack reserve flavor ..., maintenance window ..., limits show and
allocation list against the real API."""
import pytest

from reserveclient.tests.functional import base
from reserveclient.tests.functional import conftest

pytestmark = pytest.mark.functional


def test_flavor_create_needs_nova(cli):
    # The catalogue reads the nova flavor: without nova, a clear 503.
    err = cli.fails('reserve', 'flavor', 'create', base.unique('fn-flavor'),
                    '--nova-flavor', 'small', '--slots', '3')
    assert 'HTTP 503' in err
    assert '[nova]' in err


def test_flavor_show_list_set_delete(cli):
    name = base.unique('fn-flavor')
    created = base.create_flavor(
        cli, name, '--description', 'Three small', '--max-length-hours',
        '48', '--start', base.future(1), '--end', base.future(300),
        '--category', 'fn-cat', '--private', slots=3)
    cli('reserve', 'flavor', 'access', 'grant', name, 'fn-p1')
    created = cli.json('reserve', 'flavor', 'show', name)
    assert created['name'] == name
    assert created['slots'] == 3
    assert created['is_public'] is False
    assert created['active'] is True
    assert created['start'] == base.future(1)
    assert created['projects'] == ['fn-p1']

    # By name or id, the same flavor.
    assert cli.json('reserve', 'flavor', 'show', name) == \
        cli.json('reserve', 'flavor', 'show', created['id'])

    listed = cli('reserve', 'flavor', 'list', '--category', 'fn-cat',
                 '--private', '-f', 'value', '-c', 'Name')
    assert listed.split() == [name]

    cli('reserve', 'flavor', 'set', name, '--slots', '5', '--disable',
        '--no-max-length-hours', '--no-start', '--description', 'Five')
    shown = cli.json('reserve', 'flavor', 'show', created['id'])
    assert (shown['slots'], shown['active'], shown['max_length_hours'],
            shown['start'], shown['description']) == (5, False, None, None,
                                                      'Five')
    disabled = cli('reserve', 'flavor', 'list', '--disabled', '-f',
                   'value', '-c', 'ID')
    assert created['id'] in disabled.split()

    err = cli.fails('reserve', 'flavor', 'set', name, '--slots', '-2')
    assert "'-2' is not an integer of at least 0" in err

    assert cli('reserve', 'flavor', 'delete', name) == ''
    err = cli.fails('reserve', 'flavor', 'show', name)
    assert 'Flavor %s could not be found.' % name in err


def test_flavor_set_refused_by_the_api(cli):
    flavor = base.create_flavor(cli)
    other = base.create_flavor(cli)
    err = cli.fails('reserve', 'flavor', 'set', other['name'], '--name',
                    flavor['name'])
    assert 'A flavor named %s exists already' % flavor['name'] in err
    assert 'HTTP 409, reserve.flavor_exists' in err


def test_flavor_access(cli):
    flavor = base.create_flavor(cli, None, '--private')
    cli('reserve', 'flavor', 'access', 'grant', flavor['name'], 'fn-p1',
        'fn-p2')
    granted = cli.json('reserve', 'flavor', 'access', 'list',
                       flavor['name'])
    assert [(g['Flavor ID'], g['Project ID']) for g in granted] == [
        (flavor['id'], 'fn-p1'), (flavor['id'], 'fn-p2')]
    err = cli.fails('reserve', 'flavor', 'access', 'grant', flavor['id'],
                    'fn-p1')
    assert 'already granted' in err
    cli('reserve', 'flavor', 'access', 'revoke', flavor['id'], 'fn-p1')
    granted = cli('reserve', 'flavor', 'access', 'list', flavor['id'],
                  '-f', 'value', '-c', 'Project ID')
    assert granted.split() == ['fn-p2']


def test_free_slots_and_availability(server, cli):
    flavor = base.create_flavor(cli, slots=1)
    booking = cli.json('reserve', 'reservation', 'create', '--flavor',
                       flavor['name'], '--start', base.future(3),
                       '--end', base.future(4))
    # Nova is absent: the booking fails, and an ERROR booking frees its
    # slot. Make it live again so that it blocks the calendar.
    base.wait_status(cli, booking['id'], ('ERROR',))
    base.make_live(server, booking['id'])

    slots = cli.json('reserve', 'flavor', 'free-slots', flavor['name'],
                     '--start', base.future(2), '--end', base.future(6))
    # Two windows around the booking (the API keeps a guard gap of a
    # minute between bookings).
    assert len(slots) == 2
    assert slots[0]['Start'] == base.future(2)
    assert base.future(2, hour=23) < slots[0]['End'] <= base.future(3)
    assert base.future(4) <= slots[1]['Start'] < base.future(4, hour=1)
    assert slots[1]['End'] == base.future(6)

    err = cli.fails('reserve', 'reservation', 'create', '--flavor',
                    flavor['name'], '--start', base.future(3, hour=6),
                    '--end', base.future(3, hour=12))
    assert 'No capacity' in err and 'reserve.no_capacity' in err

    during = cli.json('reserve', 'flavor', 'availability', '--start',
                      base.future(3, hour=6), '--end',
                      base.future(3, hour=12), '--flavor', flavor['name'])
    # Spot: what a spot flavor may boot now; none for a booked flavor.
    assert during == [{'Flavor ID': flavor['id'], 'Name': flavor['name'],
                       'Total': 1, 'Available': 0, 'Spot': None}]
    now = cli.json('reserve', 'flavor', 'availability', '--long')
    row = [r for r in now if r['Flavor ID'] == flavor['id']][0]
    assert row['Available'] == 1
    assert row['Nova Flavor ID'] == 'small'

    err = cli.fails('reserve', 'flavor', 'availability', '--start', 'now')
    assert '--start and --end go together' in err

    # A flavor with reservations cannot go; the API says what to do.
    err = cli.fails('reserve', 'flavor', 'delete', flavor['name'])
    assert 'cannot be deleted' in err
    assert 'Failed to delete 1 of 1 flavors' in err


def test_maintenance_windows(cli):
    flavor = base.create_flavor(cli)
    window = cli.json('reserve', 'maintenance', 'window', 'create',
                      '--start', base.future(60), '--end', base.future(61),
                      '--flavor', flavor['name'], '--note', 'fn firmware')
    assert window['flavors'] == [flavor['id']]
    assert window['all_flavors'] is False
    assert window['note'] == 'fn firmware'

    listed = cli.json('reserve', 'maintenance', 'window', 'list',
                      '--flavor', flavor['name'])
    assert [w['ID'] for w in listed] == [window['id']]

    cli('reserve', 'maintenance', 'window', 'set', window['id'], '--end',
        base.future(62), '--all-flavors')
    shown = cli('reserve', 'maintenance', 'window', 'show', window['id'])
    assert '| flavors     | all' in shown
    assert '| end         | %s' % base.future(62) in shown

    cli('reserve', 'maintenance', 'window', 'delete', window['id'])
    err = cli.fails('reserve', 'maintenance', 'window', 'show',
                    window['id'])
    assert 'could not be found' in err


def test_limits(cli):
    rows = cli.json('reserve', 'limits', 'show')
    by_name = {r['Resource']: r for r in rows}
    assert by_name['reservations']['Limit'] == conftest.QUOTA_RESERVATIONS
    assert by_name['instance_hours']['Limit'] == -1
    assert by_name['reservations']['Project ID'] == 'noauth-project'
    table = cli('reserve', 'limits', 'show', '--project', 'fn-other')
    assert 'unlimited' in table and 'fn-other' in table


def test_allocation_list(server, cli):
    if server.has('allocations'):
        cli('reserve', 'allocation', 'list')
    else:
        err = cli.fails('reserve', 'allocation', 'list')
        assert 'The resource /v1/allocations could not be found.' in err
        assert 'HTTP 404' in err
