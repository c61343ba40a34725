"""openstack reserve reservation create --recurrence, and openstack
reserve series show/list/delete, against the API double."""
import pytest
from osc_lib import exceptions

from reserveclient import exceptions as rc_exceptions
from reserveclient.osc.v1 import reservations
from reserveclient.osc.v1 import series as series_cmd
from reserveclient.tests.unit import fakes
from reserveclient.v1 import series

START = ['--flavor', 'gpu.a100', '--start', '2030-01-07T09:00',
         '--end', '2030-01-07T11:00']


@pytest.fixture
def flavor(api):
    """Two slots: what the double admits."""
    return api.flavors.add(id='f1', name='gpu.a100', slots=2)


def _create(runner, *more):
    return runner.json(reservations.CreateReservation,
                       START + ['--recurrence', 'FREQ=WEEKLY;COUNT=4'] +
                       list(more))


def _series_post(api):
    return [r for r in api.requests
            if r.method == 'POST' and r.url == series.PATH]


def test_create_books_every_occurrence(runner, api, flavor):
    shown = _create(runner, '--instance-count', '2')
    [post] = _series_post(api)
    assert post.body == {'flavor_id': 'gpu.a100',
                         'start': '2030-01-07T09:00:00Z',
                         'end': '2030-01-07T11:00:00Z',
                         'recurrence': 'FREQ=WEEKLY;COUNT=4',
                         'instance_count': 2}
    # A series exists from 1.7: asked for whatever is negotiated.
    assert post.headers['OpenStack-API-Version'] == 'reserve %s' % (
        series.SERIES_VERSION)
    assert shown['recurrence'] == 'FREQ=WEEKLY;COUNT=4'
    assert shown['series_policy'] == 'all_or_nothing'
    assert [o['start'] for o in shown['occurrences']] == [
        '2030-01-%02dT09:00:00Z' % day for day in (7, 14, 21, 28)]
    assert shown['refused'] == []
    assert list(shown)[:3] == ['id', 'project_id', 'user_id']
    # Each occurrence is a reservation, with its series.
    assert [r['series_id'] for r in api.reservations.items] == [
        shown['id']] * 4


def _human(runner, argv, column):
    """How a table shows ``column`` of the command's answer."""
    keys, values = runner.take(reservations.CreateReservation, argv)
    return values[keys.index(column)].human_readable()


def test_the_occurrences_one_a_line(runner, api, flavor):
    lines = _human(runner, START + ['--recurrence', 'FREQ=DAILY;COUNT=2'],
                   'occurrences').splitlines()
    assert len(lines) == 2
    assert lines[0].startswith('2030-01-07T09:00:00Z - 2030-01-07T11:00:00Z'
                               '  PENDING_CREATE  ')
    assert lines[1].startswith('2030-01-08T09:00:00Z')


def _full_week(api):
    api.reservations.add(flavor_id='f1', instance_count=2,
                         start='2030-01-21T08:00:00Z',
                         end='2030-01-21T10:00:00Z', status='ACTIVE',
                         project_id='project-b')


def test_all_or_nothing_refused_names_the_occurrences(runner, api, flavor):
    _full_week(api)
    with pytest.raises(exceptions.CommandError) as err:
        _create(runner)
    message = str(err.value)
    assert 'The series does not fit' in message
    assert '  2030-01-21T09:00:00Z - 2030-01-21T11:00:00Z: ' \
        'reserve.no_capacity' in message
    assert 'add --as-many-as-fit' in message
    assert 'HTTP 409, reserve.series_does_not_fit' in message
    assert len(api.reservations.items) == 1


def test_as_many_as_fit(runner, api, flavor):
    _full_week(api)
    shown = _create(runner, '--as-many-as-fit')
    [post] = _series_post(api)
    assert post.body['series_policy'] == 'as_many_as_fit'
    assert [o['start'][:10] for o in shown['occurrences']] == [
        '2030-01-07', '2030-01-14', '2030-01-28']
    [refused] = shown['refused']
    assert refused['start'] == '2030-01-21T09:00:00Z'
    assert refused['code'] == 'reserve.no_capacity'
    assert _human(runner, START + [
        '--recurrence', 'FREQ=WEEKLY;COUNT=4', '--as-many-as-fit',
        '--start', '2030-02-04T09:00', '--end', '2030-02-04T11:00'],
        'refused') == ''
    assert _human(runner, START + [
        '--recurrence', 'FREQ=WEEKLY;COUNT=4', '--as-many-as-fit'],
        'refused').startswith(
            '2030-01-21T09:00:00Z - 2030-01-21T11:00:00Z  '
            'reserve.no_capacity: No capacity')


def test_a_bad_rule_is_the_servers_400(runner, api, flavor):
    with pytest.raises(rc_exceptions.BadRequest) as err:
        runner.take(reservations.CreateReservation, START + [
            '--recurrence', 'FREQ=MONTHLY;COUNT=3'])
    assert 'FREQ=MONTHLY is not supported' in str(err.value)
    assert not api.reservations.items and not api.series.items


@pytest.mark.parametrize('argv,words', [
    (['--as-many-as-fit'], 'give --recurrence too'),
    (['--recurrence', 'FREQ=DAILY;COUNT=2', '--wait'], '--wait is for one'),
])
def test_options_that_do_not_go_together(runner, api, flavor, argv, words):
    with pytest.raises(exceptions.CommandError, match=words):
        runner.take(reservations.CreateReservation, START + argv)
    assert not api.requests or not _series_post(api)


def test_show_and_list(runner, api, flavor):
    made = _create(runner)
    api.reservations.items[1]['status'] = 'COMPLETE'
    shown = runner.json(series_cmd.ShowSeries, [made['id']])
    assert [o['status'] for o in shown['occurrences']] == [
        'PENDING_CREATE', 'COMPLETE', 'PENDING_CREATE', 'PENDING_CREATE']
    rows = runner.json(series_cmd.ListSeries, [])
    assert rows == [{'ID': made['id'], 'Flavor ID': 'f1',
                     'Instance Count': 1,
                     'Recurrence': 'FREQ=WEEKLY;COUNT=4',
                     'Start': '2030-01-07T09:00:00Z', 'Occurrences': 4,
                     'Refused': 0}]
    with pytest.raises(rc_exceptions.NotFound):
        runner.take(series_cmd.ShowSeries, ['nope'])


def test_delete_the_rest_or_from_one_on(runner, api, flavor):
    made = _create(runner)
    ids = [o['id'] for o in made['occurrences']]
    runner.take(series_cmd.DeleteSeries, [made['id'], '--from', ids[2]])
    delete = api.requests[-1]
    assert delete.method == 'DELETE'
    assert delete.url == '%s/%s' % (series.PATH, made['id'])
    assert delete.params == {'from': ids[2]}
    assert [r['status'] for r in api.reservations.items] == [
        'PENDING_CREATE'] * 2 + ['COMPLETE'] * 2
    runner.take(series_cmd.DeleteSeries, [made['id']])
    assert api.requests[-1].params in ({}, None)
    assert [r['status'] for r in api.reservations.items] == ['COMPLETE'] * 4


def test_a_server_before_1_7_is_told_so(runner, flavor):
    old = fakes.FakeReserveAPI(max_version='1.6')
    old.flavors.add(id='f1', name='gpu.a100', slots=2)
    runner.api = old
    runner.pin('1')
    with pytest.raises(rc_exceptions.UnsupportedVersion) as err:
        runner.take(reservations.CreateReservation, START + [
            '--recurrence', 'FREQ=DAILY;COUNT=2'])
    assert 'does not serve recurring reservations (needs 1.7, it serves ' \
        'up to 1.6)' in str(err.value)
    assert not old.reservations.items
