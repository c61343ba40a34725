"""openstack reserve reservation ... against the API double."""
import io

from keystoneauth1 import exceptions as ks_exceptions
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

    @pytest.mark.parametrize('argv,missing', [
        (['--start', '2030-01-01', '--end', '2030-01-02'], '--flavor'),
        (['--flavor', 'f', '--end', '2030-01-02'], '--start'),
        (['--flavor', 'f', '--start', '2030-01-01'], '--end'),
    ])
    def test_a_shape_or_an_offer(self, runner, api, argv, missing):
        with pytest.raises(exceptions.CommandError) as err:
            runner.take(reservations.CreateReservation, argv)
        assert str(err.value) == (
            'Give %s (or --offer, an offer of openstack reserve offer '
            'list)' % missing)
        assert not api.requests[1:]

    @pytest.mark.parametrize('argv', [
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


class TestRefusal:
    """A booking that does not fit: the API's counter offer (1.6), as
    commands to run."""

    def _refused(self, runner, api, *extra, slots=2, booked=2):
        """The message of a refusal: a flavor of ``slots`` with
        ``booked`` of them taken from 05:00 to 07:00, asked from 06:00
        to 08:00."""
        api.flavors.add(id='f1', name='gpu a100', slots=slots)
        _booking(api, instance_count=booked, start='2030-01-01T05:00:00Z',
                 end='2030-01-01T07:00:00Z')
        with pytest.raises(exceptions.CommandError) as err:
            runner.take(reservations.CreateReservation, [
                '--flavor', 'gpu a100', '--start', '2030-01-01T06:00',
                '--end', '2030-01-01T08:00'] + list(extra))
        return str(err.value)

    def test_the_windows_offered_as_commands(self, runner, api):
        message = self._refused(runner, api)
        lines = message.splitlines()
        assert lines[0].startswith('No capacity: 1 instance(s) of flavor')
        assert 'GET /v1/flavors' not in message
        assert lines[1] == (
            "  the later window: openstack reserve reservation create "
            "--flavor 'gpu a100' --start 2030-01-01T07:01:00Z "
            "--end 2030-01-01T09:01:00Z")
        assert lines[2].startswith(
            "  every window that fits: openstack reserve flavor free-slots "
            "'gpu a100'")
        assert lines[-1].endswith(
            '(HTTP 409, reserve.no_capacity, request req-fake)')
        assert len(api.reservations.items) == 1

    def test_the_count_goes_with_the_commands(self, runner, api):
        message = self._refused(runner, api, '--instance-count', '2')
        assert '--end 2030-01-01T09:01:00Z --instance-count 2' in message
        assert "free-slots 'gpu a100' --instance-count 2" in message

    def test_the_most_that_fit_then_as_a_command(self, runner, api):
        lines = self._refused(runner, api, '--instance-count', '3',
                              slots=3, booked=1).splitlines()
        assert lines[2] == (
            "  the most that fit then (2): openstack reserve reservation "
            "create --flavor 'gpu a100' --start 2030-01-01T06:00:00Z "
            "--end 2030-01-01T08:00:00Z --instance-count 2")
        assert lines[3].startswith('  every window that fits: ')

    def test_none_fit_then_no_such_command(self, runner, api):
        message = self._refused(runner, api, '--instance-count', '2')
        assert 'the most that fit then' not in message

    def test_an_older_server_says_it_in_its_words(self, runner, api):
        api.max_version = '1.5'
        message = self._refused(runner, api)
        assert 'GET /v1/flavors/f1/free-slots' in message
        assert 'openstack reserve' not in message


class TestStandby:
    """--standby (1.8): a window that does not fit waits for room."""

    def _full(self, api):
        api.flavors.add(id='f1', name='gpu.a100', slots=1)
        _booking(api, start='2030-01-01T05:00:00Z',
                 end='2030-01-01T07:00:00Z')

    def test_a_full_window_waits(self, runner, api):
        self._full(api)
        shown = runner.json(reservations.CreateReservation, [
            '--flavor', 'gpu.a100', '--start', '2030-01-01T06:00',
            '--end', '2030-01-01T08:00', '--standby', '--standby-until',
            '2030-01-01T04:00'])
        post = [r for r in api.requests if r.method == 'POST'][0]
        assert post.body == {'flavor_id': 'gpu.a100',
                             'start': '2030-01-01T06:00:00Z',
                             'end': '2030-01-01T08:00:00Z',
                             'standby': True,
                             'standby_until': '2030-01-01T04:00:00Z'}
        assert shown['status'] == 'STANDBY'
        assert shown['standby_until'] == '2030-01-01T04:00:00Z'
        assert shown['standby_since'] == '2026-01-01T00:00:00Z'
        assert runner.app.stderr.getvalue() == (
            'No room now: the reservation waits on standby until '
            '2030-01-01T04:00:00Z, and is admitted (you get a mail) when '
            'room frees: openstack reserve reservation show %s\n'
            % shown['id'])

    def test_a_window_that_fits_is_booked(self, runner, api):
        self._full(api)
        shown = runner.json(reservations.CreateReservation, [
            '--flavor', 'gpu.a100', '--start', '2030-01-01T08:00',
            '--end', '2030-01-01T09:00', '--standby'])
        assert shown['status'] == 'PENDING_CREATE'
        assert shown['standby_since'] is None

    def test_without_standby_it_is_still_refused(self, runner, api):
        self._full(api)
        with pytest.raises(exceptions.CommandError) as err:
            runner.take(reservations.CreateReservation, [
                '--flavor', 'gpu.a100', '--start', '2030-01-01T06:00',
                '--end', '2030-01-01T08:00'])
        assert str(err.value).startswith('No capacity')

    def test_a_deadline_needs_standby(self, runner, api):
        self._full(api)
        with pytest.raises(exceptions.CommandError) as err:
            runner.take(reservations.CreateReservation, [
                '--flavor', 'gpu.a100', '--start', '2030-01-01T06:00',
                '--end', '2030-01-01T08:00', '--standby-until',
                '2030-01-01T04:00'])
        assert 'give it with --standby' in str(err.value)
        assert [r for r in api.requests if r.method == 'POST'] == []

    def test_an_older_version_refuses_standby_clearly(self, runner, api):
        self._full(api)
        runner.pin('1.6')
        with pytest.raises(rc_exceptions.UnsupportedVersion) as err:
            runner.take(reservations.CreateReservation, [
                '--flavor', 'gpu.a100', '--start', '2030-01-01T06:00',
                '--end', '2030-01-01T08:00', '--standby'])
        assert 'needs version 1.8' in str(err.value)
        assert [r for r in api.requests if r.method == 'POST'] == []

    def test_the_new_statuses_can_be_listed(self, runner, api):
        self._full(api)
        _booking(api, status='STANDBY')
        _booking(api, status='LAPSED')
        for status in ('STANDBY', 'LAPSED'):
            listed = runner.json(reservations.ListReservation,
                                 ['--status', status])
            assert [r['Status'] for r in listed] == [status]


class TestLaterEndRefused:

    def test_the_latest_end_as_a_command(self, runner, api):
        api.flavors.add(id='f1', name='gpu.a100', slots=1)
        mine = _booking(api, start='2030-01-01T01:00:00Z',
                        end='2030-01-01T03:00:00Z')
        _booking(api, start='2030-01-01T05:00:00Z',
                 end='2030-01-01T07:00:00Z')
        with pytest.raises(exceptions.CommandError) as err:
            runner.take(reservations.SetReservation, [
                mine['id'], '--end', '2030-01-01T06:00'])
        lines = str(err.value).splitlines()
        assert 'It can be moved to 2030-01-01T04:59:00Z at the latest' in \
            lines[0]
        assert 'GET /v1/flavors' not in str(err.value)
        assert lines[1] == (
            '  as late as it fits: openstack reserve reservation set %s '
            '--end 2030-01-01T04:59:00Z (HTTP 409, reserve.no_capacity, '
            'request req-fake)' % mine['id'])
        assert mine['end'] == '2030-01-01T03:00:00Z'


class FakeClock:
    """time.monotonic and time.sleep of the wait: sleeping moves the
    clock, and runs ``on_sleep`` (the server changing meanwhile)."""

    def __init__(self, monkeypatch, on_sleep=None):
        self.now = 1000.0
        self.sleeps = []
        self.on_sleep = on_sleep
        monkeypatch.setattr(reservations.time, 'monotonic',
                            lambda: self.now)
        monkeypatch.setattr(reservations.time, 'sleep', self.sleep)

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds
        if self.on_sleep:
            self.on_sleep(len(self.sleeps))


class TestCreateWait:

    ARGV = ['--flavor', 'gpu.a100', '--start', '2030-01-01', '--end',
            '2030-01-02', '--instance-count', '2']

    @pytest.fixture(autouse=True)
    def _flavor(self, api):
        api.flavors.add(id='f1', name='gpu.a100')

    def _allocate_after(self, api, polls, **values):
        values.setdefault('status', 'ALLOCATED')
        values.setdefault('lease_id', 'lease-1')
        values.setdefault('reserved_flavor_id', 'rsv-1')

        def on_sleep(count):
            if count == polls:
                api.reservations.items[0].update(values)
        return on_sleep

    def _gets(self, api):
        booking = api.reservations.items[0]
        return [r for r in api.requests if r.method == 'GET'
                and r.url == '/v1/reservations/%s' % booking['id']]

    def test_without_wait_a_hint_on_stderr(self, runner, api):
        out = runner.output(reservations.CreateReservation,
                            self.ARGV + ['-f', 'value', '-c', 'id'])
        booking = api.reservations.items[0]
        assert out == '%s\n' % booking['id']
        assert runner.app.stderr.getvalue() == (
            'lease_id and reserved_flavor_id appear once it is ALLOCATED: '
            'openstack reserve reservation show %s\n' % booking['id'])
        assert not self._gets(api)

    def test_the_hint_names_the_field_of_the_version_spoken(self, runner,
                                                            api):
        runner.pin('1.0')
        runner.output(reservations.CreateReservation,
                      self.ARGV + ['-f', 'value', '-c', 'id'])
        assert runner.app.stderr.getvalue().startswith(
            'lease_id and compute_flavor appear once it is ALLOCATED: ')

    def test_wait_until_allocated(self, runner, api, monkeypatch):
        clock = FakeClock(monkeypatch, self._allocate_after(api, 3))
        shown = runner.json(reservations.CreateReservation,
                            self.ARGV + ['--wait'])
        assert shown['status'] == 'ALLOCATED'
        assert shown['lease_id'] == 'lease-1'
        assert shown['reserved_flavor_id'] == 'rsv-1'
        assert 'compute_flavor' not in shown
        assert clock.sleeps == [reservations.POLL_INTERVAL] * 3
        assert len(self._gets(api)) == 3
        err = runner.app.stderr.getvalue()
        booking_id = shown['id']
        # Not a terminal: a line when waiting starts, one at the end.
        assert err.splitlines() == [
            'Reservation %s: PENDING_CREATE, waiting for its lease (0s)'
            % booking_id,
            'Reservation %s: ALLOCATED after 6s' % booking_id]
        assert 'openstack reserve reservation show' not in err

    def test_wait_progress_on_a_terminal(self, runner, api, monkeypatch):
        class Tty(io.StringIO):
            def isatty(self):
                return True
        runner.app.stderr = Tty()
        FakeClock(monkeypatch, self._allocate_after(api, 2))
        runner.take(reservations.CreateReservation, self.ARGV + ['--wait'])
        err = runner.app.stderr.getvalue()
        # One line, rewritten in place.
        assert err.count('\n') == 1 and err.endswith('\n')
        assert err.count('\r') == 3
        assert err.rstrip().endswith('ALLOCATED after 4s')

    def test_wait_error_exits_with_the_reason(self, runner, api,
                                              monkeypatch):
        FakeClock(monkeypatch, self._allocate_after(
            api, 1, status='ERROR', lease_id=None, reserved_flavor_id=None,
            status_reason='Not enough hosts available'))
        cmd, parsed = runner.parse(reservations.CreateReservation,
                                   self.ARGV + ['--wait'])
        with pytest.raises(exceptions.CommandError) as err:
            cmd.run(parsed)
        booking_id = api.reservations.items[0]['id']
        assert str(err.value) == (
            'Reservation %s went to ERROR: Not enough hosts available'
            % booking_id)
        assert runner.app.stdout.getvalue() == ''

    def test_wait_timeout(self, runner, api, monkeypatch):
        clock = FakeClock(monkeypatch)
        with pytest.raises(exceptions.CommandError) as err:
            runner.take(reservations.CreateReservation,
                        self.ARGV + ['--wait', '--wait-timeout', '5'])
        booking_id = api.reservations.items[0]['id']
        message = str(err.value)
        assert 'still PENDING_CREATE after 5 seconds' in message
        assert ('openstack reserve reservation show %s' % booking_id
                in message)
        # 2 + 2 + 1: the last look is at the deadline.
        assert clock.sleeps == [2, 2, 1]
        assert len(self._gets(api)) == 3

    def test_default_timeout(self, runner, api, monkeypatch):
        clock = FakeClock(monkeypatch)
        with pytest.raises(exceptions.CommandError):
            runner.take(reservations.CreateReservation,
                        self.ARGV + ['--wait'])
        assert sum(clock.sleeps) == reservations.WAIT_TIMEOUT

    def test_wait_timeout_implies_wait(self, runner, api, monkeypatch):
        FakeClock(monkeypatch, self._allocate_after(api, 1))
        shown = runner.json(reservations.CreateReservation,
                            self.ARGV + ['--wait-timeout', '60'])
        assert shown['status'] == 'ALLOCATED'

    def test_wait_survives_a_connection_failure(self, runner, api,
                                                monkeypatch):
        session = runner.client.http.session
        real_request = session.request
        calls = []

        def flaky(url, method, **kwargs):
            # The polls of the reservation (not the versions' discovery).
            if method == 'GET' and '/v1/reservations/' in url:
                calls.append(url)
                if len(calls) == 1:
                    raise ks_exceptions.ConnectFailure('restarting')
            return real_request(url, method, **kwargs)
        monkeypatch.setattr(session, 'request', flaky)
        FakeClock(monkeypatch, self._allocate_after(api, 2))
        shown = runner.json(reservations.CreateReservation,
                            self.ARGV + ['--wait'])
        assert shown['status'] == 'ALLOCATED'
        assert len(calls) == 2

    def test_bad_timeout(self, runner):
        with pytest.raises(SystemExit):
            runner.parse(reservations.CreateReservation,
                         self.ARGV + ['--wait-timeout', '0'])


class TestList:

    def _list_requests(self, api):
        return [r for r in api.requests
                if r.method == 'GET' and r.url == '/v1/reservations']

    def test_default_columns(self, runner, api):
        api.flavors.add(id='f1', name='gpu.a100')
        booking = _booking(api)
        columns, rows = runner.take(reservations.ListReservation, [])
        assert columns == ('ID', 'Flavor', 'Instance Count', 'Start',
                           'End', 'Status')
        assert rows == [(booking['id'], 'gpu.a100', 1,
                         '2030-01-01T00:00:00Z', '2030-01-02T00:00:00Z',
                         'ALLOCATED')]
        assert self._list_requests(api)[-1].params == {}

    def test_flavor_names_from_one_listing(self, runner, api):
        api.flavors.add(id='f1', name='gpu.a100')
        api.flavors.add(id='f2', name='gpu.h100')
        for flavor_id in ('f1', 'f2', 'f1', 'gone'):
            _booking(api, flavor_id=flavor_id)
        listed = runner.json(reservations.ListReservation, [])
        # A flavor the catalogue no longer lists is shown by its ID.
        assert [r['Flavor'] for r in listed] == ['gpu.a100', 'gpu.h100',
                                                 'gpu.a100', 'gone']
        assert 'Flavor ID' not in listed[0]
        flavor_gets = [r.url for r in api.requests
                       if r.url.startswith('/v1/flavors')]
        assert flavor_gets == ['/v1/flavors']
        listed = runner.json(reservations.ListReservation, ['--long'])
        assert [(r['Flavor'], r['Flavor ID']) for r in listed][:2] == [
            ('gpu.a100', 'f1'), ('gpu.h100', 'f2')]

    def test_no_flavor_listing_without_rows(self, runner, api):
        assert runner.take(reservations.ListReservation, [])[1] == []
        assert [r.url for r in api.requests] == ['/v1', '/v1/reservations']

    def test_flavor_ids_when_the_catalogue_cannot_be_read(self, runner,
                                                          api):
        api.flavors.add(id='f1', name='gpu.a100')
        booking = _booking(api)
        api.enabled.discard('flavors')
        _columns, rows = runner.take(reservations.ListReservation, [])
        assert rows[0][:2] == (booking['id'], 'f1')

    def test_all_projects_adds_project_column(self, runner, api):
        _booking(api)
        columns, _ = runner.take(reservations.ListReservation,
                                 ['--all-projects'])
        assert 'Project ID' in columns
        assert self._list_requests(api)[-1].params == {
            'all_projects': 'true'}

    def test_filters(self, runner, api):
        api.flavors.add(id='f1', name='gpu.a100')
        _booking(api, status='ACTIVE', project_id='p2')
        _booking(api, status='ERROR', project_id='p2')
        _booking(api, status='ACTIVE', project_id='p3')
        _columns, rows = runner.take(reservations.ListReservation, [
            '--project', 'p2', '--flavor', 'gpu.a100', '--status',
            'ACTIVE'])
        assert len(rows) == 1
        assert self._list_requests(api)[-1].params == {
            'project_id': 'p2', 'flavor_id': 'gpu.a100',
            'status': 'ACTIVE'}

    def test_status_choices(self, runner):
        with pytest.raises(SystemExit):
            runner.parse(reservations.ListReservation,
                         ['--status', 'active'])

    def test_long(self, runner, api):
        _booking(api, status='ERROR', status_reason='No capacity',
                 lease_id=None, reserved_flavor_id=None)
        listed = runner.json(reservations.ListReservation, ['--long'])
        assert listed[0]['Status Reason'] == 'No capacity'
        assert set(listed[0]) >= {'Project ID', 'Lease ID',
                                  'Reserved Flavor ID'}
        assert 'Compute Flavor' not in listed[0]

    @pytest.mark.parametrize('server,pinned', [('1.0', None),
                                               ('1.4', '1.0'),
                                               ('1.4', '1.1')])
    def test_long_before_1_2(self, runner, api, server, pinned):
        api.max_version = server
        if pinned:
            runner.pin(pinned)
        _booking(api, reserved_flavor_id='lr-1')
        listed = runner.json(reservations.ListReservation, ['--long'])
        assert listed[0]['Compute Flavor'] == 'lr-1'
        assert 'Reserved Flavor ID' not in listed[0]

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
        booking = _booking(api, lease_id='l1', reserved_flavor_id='c1',
                           status_reason=None)
        shown = runner.json(reservations.ShowReservation, [booking['id']])
        assert shown['lease_id'] == 'l1'
        assert shown['reserved_flavor_id'] == 'c1'
        assert 'compute_flavor' not in shown
        # What 1.3 adds to the answer about one reservation.
        assert shown['missing_capacity'] == []
        assert shown['delivery']['hosts_replaced'] == 0
        assert list(shown)[-8:] == ['missing_capacity', 'lease_id',
                                    'reserved_flavor_id',
                                    'shared_project_ids', 'delivery',
                                    'standby_since', 'standby_until',
                                    'series_id']
        # What 1.7 adds: the series it is an occurrence of, if any; 1.8:
        # it never waited on standby; 1.9: it is shared with nobody.
        assert shown['series_id'] is None
        assert shown['standby_since'] is None
        assert shown['shared_project_ids'] == []

    def test_columns(self, runner, api):
        booking = _booking(api, lease_id='l1', reserved_flavor_id='c1')
        out = runner.output(reservations.ShowReservation, [
            booking['id'], '-f', 'value', '-c', 'status', '-c', 'lease_id',
            '-c', 'reserved_flavor_id'])
        assert out.splitlines() == ['ALLOCATED', 'l1', 'c1']

    def test_missing_capacity_in_a_table(self, runner, api):
        booking = _booking(api, missing_capacity=[
            {'host': 'gpu1', 'instances': 2, 'since': None,
             'reason': 'down'}])
        table = runner.output(reservations.ShowReservation, [booking['id']])
        # (Padded to the longest field's name, shared_project_ids.)
        assert ("| missing_capacity   | host='gpu1', instances='2', "
                "reason='down', since=" in table)

    @pytest.mark.parametrize('version', ['1.0', '1.1'])
    def test_pinned_before_1_2(self, runner, api, version):
        runner.pin(version)
        booking = _booking(api, lease_id='l1', reserved_flavor_id='c1')
        shown = runner.json(reservations.ShowReservation, [booking['id']])
        assert shown['compute_flavor'] == 'c1'
        # 1.1 shows both names, 1.0 the first one only.
        assert ('reserved_flavor_id' in shown) == (version == '1.1')
        assert 'missing_capacity' not in shown
        assert api.requests[-1].headers['OpenStack-API-Version'] == \
            'reserve %s' % version

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
