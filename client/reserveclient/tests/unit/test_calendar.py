"""openstack reserve calendar against the API double: GET /v1/calendar
at microversion 1.5 (refused, saying so, by an older server), the
flavor's and the host's calendars drawn, the width and the colour, and
the API's errors shown with its message."""
import io
import itertools
import os

import pytest

from reserveclient import exceptions as rc_exceptions
from reserveclient.osc.v1 import calendar
from reserveclient.osc.v1 import reservations

HEADER = 'OpenStack-API-Version'
WEEK = ['--start', '2026-12-07', '--end', '2026-12-14']


def _flavor(api, name='a100x1', slots=4):
    return api.flavors.add(name=name, slots=slots, nova_flavor_id='n1',
                           max_length_hours=168, active=True,
                           is_public=True)


def _booking(api, flavor, start, end, count=1, status='ACTIVE',
             project='project-a'):
    return api.reservations.add(
        flavor_id=flavor['id'], instance_count=count, status=status,
        project_id=project, start=start, end=end)


def _week(api):
    """A week of a100x1: two instances of ours, one of project-b, one of
    ours pending, and a maintenance window at the end."""
    flavor = _flavor(api)
    _booking(api, flavor, '2026-12-07T00:00:00Z', '2026-12-09T00:00:00Z',
             count=2)
    _booking(api, flavor, '2026-12-08T00:00:00Z', '2026-12-11T00:00:00Z',
             status='ALLOCATED', project='project-b')
    _booking(api, flavor, '2026-12-12T00:00:00Z', '2026-12-13T00:00:00Z',
             status='PENDING_CREATE')
    api.windows.add(start='2026-12-13T12:00:00Z', end='2026-12-14T00:00:00Z',
                    note='firmware', all_flavors=False,
                    flavors=[flavor['id']])
    return flavor


def _cells(out, label, size=6):
    """The bar columns of the line of ``label`` (labels ``size`` wide)."""
    line = [line for line in out.splitlines()
            if line.startswith(label.ljust(size) + ' ')]
    assert len(line) == 1, out
    return line[0][size + 1:]


def _runs(text):
    return ''.join(symbol for symbol, _ in itertools.groupby(text))


class TestFlavor:

    def test_a_week(self, runner, api):
        api.member_only = True
        _week(api)
        out = runner.output(calendar.ShowCalendar,
                            ['--flavor', 'a100x1', '--width', '100'] + WEEK)
        request = api.requests[-1]
        assert request.url == '/v1/calendar'
        assert request.params == {
            'flavor_id': 'a100x1', 'start': '2026-12-07T00:00:00Z',
            'end': '2026-12-14T00:00:00Z'}
        assert request.headers[HEADER] == 'reserve 1.5'
        lines = out.splitlines()
        assert lines[:2] == [
            'Flavor a100x1, 4 slots',
            '2026-12-07 00:00 - 2026-12-14 00:00 UTC (7 days), now '
            '2026-12-04 15:02']
        assert lines[2].split()[:4] == ['Mon', '07', 'Tue', '08']
        # 93 columns for 7 days. Ours of two instances on slots 1 and 2,
        # the pending one on slot 1 again, project-b's on slot 3;
        # the maintenance on every slot.
        mine = '█' * 27
        tail = '·' * 6 + 'M' * 7
        assert _cells(out, 'slot 1') == (
            mine + '·' * 39 + '▓' * 14 + tail)
        assert _cells(out, 'slot 2') == mine + '·' * 59 + 'M' * 7
        assert _cells(out, 'slot 3') == (
            '·' * 13 + '░' * 41 + '·' * 32 + 'M' * 7)
        assert _cells(out, 'slot 4') == '·' * 86 + 'M' * 7
        # 2 free, 1 beside project-b's, 3, 4, 3 beside the pending one,
        # 4, none under the maintenance.
        assert _runs(_cells(out, 'free')) == '2134340'
        legend = ' '.join(lines[lines.index(
            next(line for line in lines if line.startswith('Legend'))):])
        for entry in ('█ yours, ACTIVE', '▓ yours, PENDING_CREATE',
                      "░ other projects'", 'M maintenance', '· free'):
            assert entry in legend
        assert '| now' not in legend
        assert all(len(line) <= 100 for line in lines)

    def test_an_administrator_sees_the_other_projects_too(self, runner,
                                                          api):
        _week(api)
        doc = runner.client.calendar.get(flavor='a100x1',
                                         start='2026-12-07T00:00:00Z')
        theirs = doc['rows'][2]['bars'][0]
        assert (theirs['own'], theirs['status'], theirs['project_id']) == (
            False, 'ALLOCATED', 'project-b')
        api.member_only = True
        doc = runner.client.calendar.get(flavor='a100x1',
                                         start='2026-12-07T00:00:00Z')
        theirs = doc['rows'][2]['bars'][0]
        assert theirs == {'kind': 'booking', 'own': False, 'status': 'busy',
                          'count': 1, 'start': '2026-12-08T00:00:00Z',
                          'end': '2026-12-11T00:00:00Z'}

    def test_the_default_range_is_a_week_from_now(self, runner, api):
        _week(api)
        out = runner.output(calendar.ShowCalendar,
                            ['--flavor', 'a100x1', '--width', '80'])
        assert api.requests[-1].params == {'flavor_id': 'a100x1'}
        lines = out.splitlines()
        assert lines[1].startswith(
            '2026-12-04 15:02 - 2026-12-11 15:02 UTC (7 days)')
        # Now is the start: the marker in the first column.
        assert lines[2] == ' ' * 7 + 'now'
        assert _cells(out, 'slot 1')[0] == '|'
        assert _cells(out, 'slot 4')[0] == '|'

    def test_by_id(self, runner, api):
        flavor = _week(api)
        out = runner.output(calendar.ShowCalendar,
                            ['--flavor', flavor['id']] + WEEK)
        assert out.startswith('Flavor a100x1, 4 slots\n')


class TestWidth:

    def _widths(self, runner, argv=()):
        out = runner.output(calendar.ShowCalendar,
                            ['--flavor', 'a100x1'] + WEEK + list(argv))
        return max(len(line) for line in out.splitlines())

    @pytest.mark.parametrize('terminal,expected', [
        (200, 100), (100, 100), (72, 72), (20, 40)])
    def test_the_terminals_capped(self, runner, api, monkeypatch, terminal,
                                  expected):
        _week(api)
        monkeypatch.setattr(
            calendar.shutil, 'get_terminal_size',
            lambda fallback=(80, 24): os.terminal_size((terminal, 24)))
        assert self._widths(runner) == expected

    def test_without_a_terminal(self, runner, api, monkeypatch):
        _week(api)
        monkeypatch.setattr(
            calendar.shutil, 'get_terminal_size',
            lambda fallback=(80, 24): os.terminal_size(fallback))
        assert self._widths(runner) == 100

    @pytest.mark.parametrize('width', ['40', '64', '160'])
    def test_width_overrides(self, runner, api, width):
        _week(api)
        assert self._widths(runner, ['--width', width]) == int(width)

    @pytest.mark.parametrize('width', ['39', '0', 'wide'])
    def test_too_narrow(self, runner, width):
        with pytest.raises(SystemExit):
            runner.parse(calendar.ShowCalendar,
                         ['--flavor', 'f', '--width', width])

    def test_flavor_or_host(self, runner):
        with pytest.raises(SystemExit):
            runner.parse(calendar.ShowCalendar,
                         ['--flavor', 'f', '--host', 'h'])


class Terminal(io.StringIO):

    def isatty(self):
        return True


class TestColour:

    def _out(self, runner, stdout):
        runner.app.stdout = stdout
        cmd, parsed = runner.parse(calendar.ShowCalendar,
                                   ['--flavor', 'a100x1'] + WEEK)
        cmd.run(parsed)
        return stdout.getvalue()

    def test_on_a_terminal(self, runner, api, monkeypatch):
        _week(api)
        monkeypatch.delenv('NO_COLOR', raising=False)
        assert '\x1b[32m█' in self._out(runner, Terminal())

    def test_not_with_no_color(self, runner, api, monkeypatch):
        _week(api)
        monkeypatch.setenv('NO_COLOR', '1')
        assert '\x1b[' not in self._out(runner, Terminal())

    def test_not_into_a_pipe(self, runner, api, monkeypatch):
        _week(api)
        monkeypatch.delenv('NO_COLOR', raising=False)
        assert '\x1b[' not in self._out(runner, io.StringIO())


class TestHost:

    def _libvirt(self, api):
        host = api.hosts.add(name='gpu-a100-01', kind='libvirt')
        for i, pci in enumerate(('0000:3b:00.0', '0000:3c:00.0')):
            api.devices.add(id='u%d' % (i + 1), host='gpu-a100-01',
                            host_id=host['id'], pci_address=pci)
        api.device_reservations.add(
            host='gpu-a100-01', device_ids=['u2'], status='active',
            project_id='project-a', start='2026-12-07T00:00:00Z',
            end='2026-12-09T00:00:00Z')
        return host

    def test_a_libvirt_host_has_a_row_per_device(self, runner, api):
        self._libvirt(api)
        out = runner.output(calendar.ShowCalendar,
                            ['--host', 'gpu-a100-01', '--width', '100'] +
                            WEEK)
        assert api.requests[-1].params['host_id'] == 'gpu-a100-01'
        lines = out.splitlines()
        assert lines[0] == 'Host gpu-a100-01, libvirt'
        first, second = [line for line in lines if line.startswith('0000')]
        # 87 columns for 7 days: two days are 25 of them.
        assert first == '0000:3b:00.0 ' + '·' * 87
        assert second == '0000:3c:00.0 ' + '█' * 25 + '·' * 62
        free = next(line for line in lines if line.startswith('free '))
        assert _runs(free[13:]) == '12'
        assert 'the fewest devices free' in out

    def test_a_nova_host_has_a_row_per_gpu(self, runner, api):
        flavor = _flavor(api)
        flavor['gpus'] = {'A100': 1}
        host = api.hosts.add(name='gpu1', kind='nova', gpus={'A100': 4})
        booking = _booking(api, flavor, '2026-12-10T00:00:00Z',
                           '2026-12-12T00:00:00Z', count=2)
        api.allocations.add(host_id=host['id'], host='gpu1',
                            booking_id=booking['id'], amount=2)
        # A lease of another project, of no booking.
        lease = api.leases.add(project_id='project-b', status='ACTIVE',
                               flavor_id=flavor['id'],
                               start='2026-12-01T00:00:00Z',
                               end='2026-12-08T00:00:00Z')
        api.allocations.add(host_id=host['id'], host='gpu1',
                            booking_id=None, lease_id=lease['id'], amount=1)
        api.member_only = True
        out = runner.output(calendar.ShowCalendar,
                            ['--host', host['id'], '--width', '100'] + WEEK)
        assert out.startswith('Host gpu1, nova\n')
        # The lease on GPU 1 first; the booking of two instances of one
        # GPU each on the lowest two free at its start.
        # 94 columns for 7 days (labels of 5).
        ours = '·' * 26 + '█' * 28 + '·' * 26
        assert _cells(out, 'GPU 1', 5) == '░' * 14 + ours
        assert _cells(out, 'GPU 2', 5) == '·' * 14 + ours
        assert _cells(out, 'GPU 3', 5) == _cells(out, 'GPU 4', 5) == \
            '·' * 94
        assert _runs(_cells(out, 'free', 5)) == '3424'
        assert 'the fewest rows free' in out

    def test_a_nova_host_without_gpus_has_a_row_per_instance(self, runner,
                                                             api):
        flavor = _flavor(api)
        host = api.hosts.add(name='gpu1', kind='nova')
        booking = _booking(api, flavor, '2026-12-10T00:00:00Z',
                           '2026-12-12T00:00:00Z', count=2)
        api.allocations.add(host_id=host['id'], booking_id=booking['id'],
                            amount=2)
        out = runner.output(calendar.ShowCalendar,
                            ['--host', 'gpu1', '--width', '100'] + WEEK)
        assert _cells(out, 'instance 1', 10) == _cells(
            out, 'instance 2', 10) == '·' * 38 + '█' * 26 + '·' * 25
        assert 'instance 3' not in out

    def test_a_host_calendar_may_be_refused(self, runner, api):
        self._libvirt(api)
        api.denied.add('reserve:calendar:host')
        with pytest.raises(rc_exceptions.Forbidden) as err:
            runner.take(calendar.ShowCalendar, ['--host', 'gpu-a100-01'])
        assert str(err.value) == (
            'Policy does not allow reserve:calendar:host to be performed. '
            '(HTTP 403, reserve.forbidden, request req-fake)')


class TestErrors:

    def test_a_server_before_1_5(self, runner, api):
        _week(api)
        api.max_version = '1.4'
        with pytest.raises(rc_exceptions.UnsupportedVersion) as err:
            runner.take(calendar.ShowCalendar, ['--flavor', 'a100x1'])
        assert str(err.value) == (
            'The reserve API at http://reserve.example:8785 does not serve '
            'the calendar (needs 1.5, it serves up to 1.4)')
        assert [r.url for r in api.requests] == ['/v1']

    def test_a_server_whose_versions_are_not_told(self, runner, api):
        _week(api)
        api.max_version = '1.4'
        runner.client.http._server_versions = False   # discovery failed
        with pytest.raises(rc_exceptions.UnsupportedVersion) as err:
            runner.take(calendar.ShowCalendar, ['--flavor', 'a100x1'])
        assert str(err.value).startswith(
            'The reserve API at http://reserve.example:8785 does not serve '
            'the calendar (needs 1.5, which it refused: Not acceptable')

    def test_the_route_is_404_below_1_5(self, runner, api):
        _week(api)
        with pytest.raises(rc_exceptions.NotFound):
            runner.client.http.get('/v1/calendar', {'flavor_id': 'a100x1'},
                                   version='1.4')

    def test_asked_at_1_5_whatever_the_version_pinned(self, runner, api):
        _week(api)
        runner.pin('1.0')
        runner.take(calendar.ShowCalendar, ['--flavor', 'a100x1'])
        assert api.requests[-1].headers[HEADER] == 'reserve 1.5'
        runner.take(reservations.ListReservation, [])
        assert api.requests[-1].headers[HEADER] == 'reserve 1.0'

    @pytest.mark.parametrize('argv,message', [
        ([], "Invalid input: give one of the query parameters 'flavor_id' "
             "(a catalogue flavor's calendar) and 'host_id' (a host's)"),
        (['--flavor', 'a100x1', '--start', '2026-12-07', '--end',
          '2026-12-07'],
         "Invalid input: query parameter 'end' 2026-12-07T00:00:00Z must "
         "be after 'start' 2026-12-07T00:00:00Z"),
        (['--flavor', 'a100x1', '--start', '2026-12-07', '--end',
          '2027-03-31'],
         'Invalid input: the calendar shows at most 93 days; '
         '2026-12-07T00:00:00Z to 2027-03-31T00:00:00Z is longer'),
    ])
    def test_the_servers_400(self, runner, api, argv, message):
        _week(api)
        with pytest.raises(rc_exceptions.BadRequest) as err:
            runner.take(calendar.ShowCalendar, argv)
        assert str(err.value) == '%s (HTTP 400, reserve.invalid, request ' \
            'req-fake)' % message

    def test_93_days_are_allowed(self, runner, api):
        _week(api)
        out = runner.output(calendar.ShowCalendar, [
            '--flavor', 'a100x1', '--start', '2026-12-07', '--end',
            '2027-03-10'])
        assert '(93 days)' in out

    @pytest.mark.parametrize('argv,message', [
        (['--flavor', 'nope'], 'Flavor nope could not be found.'),
        (['--host', 'nope'], 'Host nope could not be found.')])
    def test_unknown_subject(self, runner, api, argv, message):
        with pytest.raises(rc_exceptions.NotFound) as err:
            runner.take(calendar.ShowCalendar, argv)
        assert str(err.value).startswith(message + ' (HTTP 404')


def test_the_command_is_registered():
    """setup.cfg names the command (the installed plugin may be another
    checkout's)."""
    import configparser
    import pathlib

    import reserveclient
    config = configparser.ConfigParser()
    config.read(pathlib.Path(reserveclient.__file__).parents[1] /
                'setup.cfg')
    entry = config['entry_points']['openstack.reserve.v1']
    assert ('reserve_calendar = reserveclient.osc.v1.calendar:ShowCalendar'
            in entry.splitlines())
