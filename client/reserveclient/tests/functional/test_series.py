"""openstack reserve reservation create --recurrence and openstack reserve
series ... against the real API: a weekly series refused whole when one
week is full, booked as far as it fits when asked, one occurrence
cancelled alone and the rest from one on."""
import pytest

from reserveclient.tests.functional import base

pytestmark = pytest.mark.functional

WEEKLY = 'FREQ=WEEKLY;COUNT=4'


@pytest.fixture(scope='module')
def flavor(server, cli):
    """Two slots: a booking of both fills a week."""
    return base.seed_flavor(server, slots=2)


def _series(cli, flavor, *extra, **kwargs):
    return ('reserve', 'reservation', 'create', '--flavor', flavor['name'],
            '--start', base.future(10, hour=9),
            '--end', base.future(10, hour=11), '--recurrence', WEEKLY) + \
        extra


def test_commands_are_registered(cli):
    out = cli('command', 'list', '--group', 'openstack.reserve.v1',
              '-f', 'value')
    for name in ('reserve series show', 'reserve series list',
                 'reserve series delete'):
        assert name in out
    assert '--as-many-as-fit' in cli('help', 'reserve', 'reservation',
                                     'create')


def test_a_weekly_series(server, cli, flavor):
    # Both slots of the third week taken.
    cli.json('reserve', 'reservation', 'create', '--flavor', flavor['name'],
             '--start', base.future(24, hour=8),
             '--end', base.future(24, hour=10), '--instance-count', '2')
    err = cli.fails(*_series(cli, flavor))
    assert 'The series does not fit: 1 of its 4 occurrences' in err
    assert '  %s - %s: reserve.no_capacity' % (
        base.future(24, hour=9), base.future(24, hour=11)) in err
    assert 'add --as-many-as-fit' in err
    assert 'HTTP 409, reserve.series_does_not_fit' in err

    made = cli.json(*_series(cli, flavor, '--as-many-as-fit'))
    assert made['series_policy'] == 'as_many_as_fit'
    assert [o['start'] for o in made['occurrences']] == [
        base.future(days, hour=9) for days in (10, 17, 31)]
    [refused] = made['refused']
    assert refused['code'] == 'reserve.no_capacity'
    ids = [o['id'] for o in made['occurrences']]
    one = cli.json('reserve', 'reservation', 'show', ids[0])
    assert one['series_id'] == made['id']

    # One alone, then the rest from the second on.
    cli('reserve', 'reservation', 'delete', ids[0])
    cli('reserve', 'series', 'delete', made['id'], '--from', ids[1])
    shown = cli.json('reserve', 'series', 'show', made['id'])
    assert [o['status'] for o in shown['occurrences']] == ['COMPLETE'] * 3
    table = cli('reserve', 'series', 'show', made['id'])
    assert '%s - %s  COMPLETE  %s' % (base.future(17, hour=9),
                                      base.future(17, hour=11),
                                      ids[1]) in table
    listed = cli.json('reserve', 'series', 'list')
    assert made['id'] in [row['ID'] for row in listed]
