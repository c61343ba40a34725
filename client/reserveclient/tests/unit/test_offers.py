"""openstack reserve offer list and reservation create --offer against
the API double (fake_offers): GET /v1/offers at microversion 1.10 with
what was asked, the offers as rows, each booked as it is, once; and the
API's refusals worded for the command line."""
import pytest
from osc_lib import exceptions

from reserveclient import exceptions as rc_exceptions
from reserveclient.osc.v1 import offers
from reserveclient.osc.v1 import reservations
from reserveclient.v1 import httpclient

HEADER = 'OpenStack-API-Version'


@pytest.fixture
def flavor(api):
    return api.flavors.add(id='f1', name='gpu.a100', slots=2)


def _search(runner, *more):
    return runner.json(offers.ListOffer, [
        '--flavor', 'gpu.a100', '--duration', 'PT2H',
        '--earliest-start', '2030-01-01T00:00Z'] + list(more))


def _get(api):
    return [r for r in api.requests if r.url == '/v1/offers'][-1]


class TestList:

    def test_what_is_asked_is_sent_at_the_newest(self, runner, api, flavor):
        _search(runner, '--count', '2', '--latest-start', 'P1D',
                '--any-flavor-with', 'gpu_model', '--sort', 'hosts',
                '--limit', '3')
        sent = _get(api)
        assert sent.headers[HEADER] == 'reserve ' + httpclient.MAX_VERSION
        assert sent.params == {
            'flavor': 'gpu.a100', 'duration': 'PT2H', 'count': 2,
            'earliest_start': '2030-01-01T00:00:00Z', 'latest_start': 'P1D',
            'any_flavor_with': 'gpu_model', 'sort': 'hosts', 'limit': 3}

    def test_a_latest_start_date_is_read_as_a_date(self, runner, api,
                                                   flavor):
        _search(runner, '--latest-start', '2030-01-01T12:00')
        assert _get(api).params['latest_start'] == '2030-01-01T12:00:00Z'
        _search(runner, '--latest-start', '2030-01-02')
        assert _get(api).params['latest_start'] == '2030-01-02T00:00:00Z'
        _search(runner, '--latest-start', '36')
        assert _get(api).params['latest_start'] == '36'

    def test_the_offers_as_rows(self, runner, api, flavor):
        api.reservations.add(flavor_id='f1', instance_count=2,
                             start='2030-01-01T02:00:00Z',
                             end='2030-01-01T04:00:00Z', status='ALLOCATED',
                             project_id='project-a')
        rows = _search(runner, '--latest-start', '2030-01-01T07:00')
        assert [(r['Start'], r['End']) for r in rows] == [
            ('2030-01-01T00:00:00Z', '2030-01-01T02:00:00Z'),
            ('2030-01-01T04:01:00Z', '2030-01-01T06:01:00Z'),
            ('2030-01-01T06:01:00Z', '2030-01-01T08:01:00Z')]
        assert list(rows[0]) == ['ID', 'Flavor', 'Instances', 'Start', 'End',
                                 'Hosts', 'Expires']
        assert rows[0]['Flavor'] == 'gpu.a100'

    def test_an_older_server_is_refused_before_asking(self, runner, api,
                                                      flavor):
        api.max_version = '1.6'
        with pytest.raises(rc_exceptions.UnsupportedVersion) as err:
            _search(runner)
        assert 'Searching offers needs version 1.10' in str(err.value)
        assert not [r for r in api.requests if r.url == '/v1/offers']

    @pytest.mark.parametrize('argv', [
        ['--duration', 'PT2H'],
        ['--flavor', 'gpu.a100'],
        ['--flavor', 'f', '--duration', '1', '--count', '0'],
        ['--flavor', 'f', '--duration', '1', '--sort', 'price'],
        ['--flavor', 'f', '--duration', '1', '--any-flavor-with', 'colour'],
        ['--flavor', 'f', '--duration', '1', '--earliest-start', 'soon'],
    ])
    def test_bad_arguments(self, runner, argv, capsys):
        with pytest.raises(SystemExit) as exc:
            runner.parse(offers.ListOffer, argv)
        assert exc.value.code == 2

    def test_the_api_says_what_is_wrong(self, runner, api, flavor):
        with pytest.raises(rc_exceptions.BadRequest) as err:
            runner.take(offers.ListOffer, ['--flavor', 'gpu.a100',
                                           '--duration', 'four hours'])
        assert "'four hours' is not a duration" in str(err.value)


class TestBook:

    def _offer(self, runner):
        return _search(runner, '--latest-start', '2030-01-01T00:00')[0]

    def test_an_offer_is_booked_as_it_is(self, runner, api, flavor):
        offer = self._offer(runner)
        shown = runner.json(reservations.CreateReservation,
                            ['--offer', offer['ID']])
        post = [r for r in api.requests if r.method == 'POST'][-1]
        assert post.body == {'offer_id': offer['ID']}
        assert post.headers[HEADER] == 'reserve ' + httpclient.MAX_VERSION
        assert (shown['flavor_id'], shown['start'], shown['end'],
                shown['instance_count']) == (
            'f1', offer['Start'], offer['End'], 1)

    def test_once(self, runner, api, flavor):
        offer = self._offer(runner)
        runner.take(reservations.CreateReservation, ['--offer', offer['ID']])
        with pytest.raises(rc_exceptions.Conflict) as err:
            runner.take(reservations.CreateReservation,
                        ['--offer', offer['ID']])
        assert 'was already booked' in str(err.value)
        assert 'reserve.offer_used' in str(err.value)
        assert len(api.reservations.items) == 1

    def test_a_lapsed_offer(self, runner, api, flavor):
        offer = self._offer(runner)
        api.lapsed.add(offer['ID'])
        with pytest.raises(rc_exceptions.Conflict) as err:
            runner.take(reservations.CreateReservation,
                        ['--offer', offer['ID']])
        assert 'lapsed' in str(err.value) and 'Search again' in str(
            err.value)

    def test_an_unknown_offer(self, runner, api, flavor):
        with pytest.raises(rc_exceptions.NotFound):
            runner.take(reservations.CreateReservation, ['--offer', 'nope'])

    def test_taken_meanwhile_the_counter_offer_as_commands(
            self, runner, api, flavor):
        offer = self._offer(runner)
        api.reservations.add(flavor_id='f1', instance_count=2,
                             start='2030-01-01T01:00:00Z',
                             end='2030-01-01T03:00:00Z', status='ALLOCATED',
                             project_id='project-b')
        with pytest.raises(exceptions.CommandError) as err:
            runner.take(reservations.CreateReservation,
                        ['--offer', offer['ID']])
        assert ('the later window: openstack reserve reservation create '
                '--flavor f1 --start 2030-01-01T03:01:00Z --end '
                '2030-01-01T05:01:00Z') in str(err.value)

    @pytest.mark.parametrize('more', [
        ['--flavor', 'gpu.a100'], ['--start', '2030-01-01'],
        ['--end', '2030-01-02'], ['--instance-count', '2']])
    def test_an_offer_is_given_alone(self, runner, api, flavor, more):
        with pytest.raises(exceptions.CommandError) as err:
            runner.take(reservations.CreateReservation,
                        ['--offer', 'o1'] + more)
        assert 'give --offer alone, not with %s' % more[0] in str(err.value)
        assert not [r for r in api.requests if r.method == 'POST']
