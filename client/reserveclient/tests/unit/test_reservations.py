"""openstack reserve reservation ... against the API double."""
import pytest
from osc_lib import exceptions

from reserveclient import exceptions as rc_exceptions
from reserveclient.osc.v1 import reservations


def _booking(api, **values):
    values.setdefault('flavor_id', 'f1')
    values.setdefault('instance_count', 1)
    values.setdefault('start', '2030-01-01T00:00:00Z')
    values.setdefault('end', '2030-01-02T00:00:00Z')
    values.setdefault('status', 'ALLOCATED')
    values.setdefault('project_id', 'project-a')
    return api.reservations.add(**values)


class TestCreate:

    def test_body_and_output(self, runner, api):
        api.flavors.add(id='f1', name='gpu.a100')
        shown = runner.json(reservations.CreateReservation, [
            '--flavor', 'gpu.a100', '--start', '2030-01-01',
            '--end', '2030-01-03T12:00', '--instance-count', '2'])
        post = [r for r in api.requests if r.method == 'POST'][0]
        assert post.url == '/v1/reservations'
        # The name goes to the API, which finds the flavor.
        assert post.body == {'flavor_id': 'gpu.a100',
                             'start': '2030-01-01T00:00:00Z',
                             'end': '2030-01-03T12:00:00Z',
                             'instance_count': 2}
        assert shown['status'] == 'PENDING_CREATE'
        assert shown['flavor_id'] == 'f1'
        assert list(shown)[:6] == ['id', 'project_id', 'user_id',
                                   'flavor_id', 'instance_count', 'start']

    def test_instance_count_optional(self, runner, api):
        api.flavors.add(id='f1', name='gpu.a100')
        runner.take(reservations.CreateReservation, [
            '--flavor', 'f1', '--start', '2030-01-01', '--end',
            '2030-01-02'])
        post = [r for r in api.requests if r.method == 'POST'][0]
        assert 'instance_count' not in post.body

    def test_unknown_flavor(self, runner, api):
        api.flavors.add(id='f1', name='gpu.a100')
        with pytest.raises(rc_exceptions.BadRequest) as err:
            runner.take(reservations.CreateReservation, [
                '--flavor', 'gpu.h100', '--start', '2030-01-01', '--end',
                '2030-01-02'])
        assert 'gpu.h100' in str(err.value)
        assert not api.reservations.items

    @pytest.mark.parametrize('argv', [
        ['--start', '2030-01-01', '--end', '2030-01-02'],
        ['--flavor', 'f', '--end', '2030-01-02'],
        ['--flavor', 'f', '--start', '2030-01-01'],
        ['--flavor', 'f', '--start', 'soon', '--end', '2030-01-02'],
        ['--flavor', 'f', '--start', '2030-01-01', '--end', '2030-01-02',
         '--instance-count', '0'],
    ])
    def test_bad_arguments(self, runner, argv, capsys):
        with pytest.raises(SystemExit) as exc:
            runner.parse(reservations.CreateReservation, argv)
        assert exc.value.code == 2

    def test_bad_date_message(self, runner, capsys):
        with pytest.raises(SystemExit):
            runner.parse(reservations.CreateReservation, [
                '--flavor', 'f', '--start', '2030-02-30', '--end',
                '2030-03-01'])
        assert "argument --start: '2030-02-30' is not a date" in \
            capsys.readouterr().err


class TestList:

    def test_default_columns(self, runner, api):
        booking = _booking(api)
        columns, rows = runner.take(reservations.ListReservation, [])
        assert columns == ('ID', 'Flavor ID', 'Instance Count', 'Start',
                           'End', 'Status')
        assert rows == [(booking['id'], 'f1', 1, '2030-01-01T00:00:00Z',
                         '2030-01-02T00:00:00Z', 'ALLOCATED')]
        assert api.requests[-1].params == {}

    def test_all_projects_adds_project_column(self, runner, api):
        _booking(api)
        columns, _ = runner.take(reservations.ListReservation,
                                 ['--all-projects'])
        assert 'Project ID' in columns
        assert api.requests[-1].params == {'all_projects': 'true'}

    def test_filters(self, runner, api):
        api.flavors.add(id='f1', name='gpu.a100')
        _booking(api, status='ACTIVE', project_id='p2')
        _booking(api, status='ERROR', project_id='p2')
        _booking(api, status='ACTIVE', project_id='p3')
        _columns, rows = runner.take(reservations.ListReservation, [
            '--project', 'p2', '--flavor', 'gpu.a100', '--status',
            'ACTIVE'])
        assert len(rows) == 1
        assert api.requests[-1].params == {
            'project_id': 'p2', 'flavor_id': 'gpu.a100',
            'status': 'ACTIVE'}

    def test_status_choices(self, runner):
        with pytest.raises(SystemExit):
            runner.parse(reservations.ListReservation,
                         ['--status', 'active'])

    def test_long(self, runner, api):
        _booking(api, status='ERROR', status_reason='No capacity',
                 lease_id=None, compute_flavor=None)
        listed = runner.json(reservations.ListReservation, ['--long'])
        assert listed[0]['Status Reason'] == 'No capacity'
        assert set(listed[0]) >= {'Project ID', 'Lease ID',
                                  'Compute Flavor'}

    def test_follows_pages_unless_limited(self, runner, api):
        api.max_limit = 2
        for i in range(5):
            _booking(api, id='r%d' % i)
        _columns, rows = runner.take(reservations.ListReservation, [])
        assert [r[0] for r in rows] == ['r0', 'r1', 'r2', 'r3', 'r4']
        _columns, rows = runner.take(reservations.ListReservation,
                                     ['--limit', '2', '--marker', 'r1'])
        assert [r[0] for r in rows] == ['r2', 'r3']

    def test_formats(self, runner, api):
        booking = _booking(api)
        value = runner.output(reservations.ListReservation,
                              ['-f', 'value', '-c', 'ID', '-c', 'Status'])
        assert value == '%s ALLOCATED\n' % booking['id']
        csv = runner.output(reservations.ListReservation,
                            ['-f', 'csv', '-c', 'ID'])
        assert csv.splitlines() == ['"ID"', '"%s"' % booking['id']]
        table = runner.output(reservations.ListReservation, [])
        assert '| ID ' in table and booking['id'] in table
        yaml = runner.output(reservations.ListReservation, ['-f', 'yaml'])
        assert "- End: '2030-01-02T00:00:00Z'" in yaml


class TestShow:

    def test_show(self, runner, api):
        booking = _booking(api, lease_id='l1', compute_flavor='c1',
                           status_reason=None)
        shown = runner.json(reservations.ShowReservation, [booking['id']])
        assert shown['lease_id'] == 'l1'
        assert shown['compute_flavor'] == 'c1'

    def test_columns(self, runner, api):
        booking = _booking(api, lease_id='l1', compute_flavor='c1')
        out = runner.output(reservations.ShowReservation, [
            booking['id'], '-f', 'value', '-c', 'status', '-c', 'lease_id',
            '-c', 'compute_flavor'])
        assert out.splitlines() == ['ALLOCATED', 'l1', 'c1']

    def test_missing(self, runner):
        with pytest.raises(rc_exceptions.NotFound) as err:
            runner.take(reservations.ShowReservation, ['nope'])
        assert 'Reservation nope could not be found.' in str(err.value)
        assert 'req-fake' in str(err.value)


class TestSet:

    def test_end(self, runner, api):
        booking = _booking(api)
        assert runner.output(reservations.SetReservation, [
            booking['id'], '--end', '2030-01-05']) == ''
        patch = api.requests[-1]
        assert patch.method == 'PATCH'
        assert patch.url == '/v1/reservations/%s' % booking['id']
        assert patch.body == {'end': '2030-01-05T00:00:00Z'}

    def test_nothing_to_set(self, runner, api):
        booking = _booking(api)
        with pytest.raises(exceptions.CommandError) as err:
            runner.take(reservations.SetReservation, [booking['id']])
        assert '--end' in str(err.value)


class TestDelete:

    def test_delete_several(self, runner, api):
        one, two = _booking(api), _booking(api)
        runner.take(reservations.DeleteReservation, [one['id'], two['id']])
        assert api.reservations.items == []

    def test_partial_failure(self, runner, api, caplog):
        one = _booking(api)
        with pytest.raises(exceptions.CommandError) as err:
            runner.take(reservations.DeleteReservation, ['nope', one['id']])
        assert str(err.value) == 'Failed to delete 1 of 2 reservations'
        assert api.reservations.items == []
        assert 'Reservation nope could not be found' in caplog.text
