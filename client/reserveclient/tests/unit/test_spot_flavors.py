"""openstack reserve flavor create --spot, opt-in, opt-out, show and
availability of spot flavors against the API double: API microversion
1.4, asked for when the server offers it (writes of spot and the opt-in
calls need it)."""
import pytest
from osc_lib import exceptions

from reserveclient import exceptions as rc_exceptions
from reserveclient.osc.v1 import flavors
from reserveclient.tests.unit import fakes
from reserveclient.v1 import client as reserve_client

HEADER = 'OpenStack-API-Version'
SPOT = 'reserve 1.4'


@pytest.fixture
def api():
    return fakes.FakeReserveAPI(max_version='1.4')


def _spot(api, name='spot.a100', **values):
    flavor = dict(name=name, nova_flavor_id='nova-' + name, slots=0,
                  active=True, is_public=True, spot=True,
                  spot_project_ids=[])
    flavor.update(values)
    return api.flavors.add(**flavor)


def _pinned(runner, api, version):
    """The commands speak ``version`` (--os-reserve-api-version)."""
    runner.app.client_manager.reserve = reserve_client.Client(
        fakes.FakeSession(api), api_version=version)


def _writes(api):
    return [r for r in api.requests if r.method != 'GET']


class TestCreate:

    def test_a_spot_flavor_needs_no_slots(self, runner, api):
        shown = runner.json(flavors.CreateFlavor, [
            'spot.a100', '--nova-flavor', 'spot-a100', '--spot'])
        request = api.requests[-1]
        assert request.method == 'POST'
        assert request.body == {'name': 'spot.a100',
                                'nova_flavor_id': 'spot-a100', 'spot': True}
        assert request.headers[HEADER] == SPOT
        assert (shown['spot'], shown['opted_in'], shown['slots']) == (
            True, False, 0)

    def test_other_flavors_need_slots(self, runner, api):
        with pytest.raises(exceptions.CommandError) as err:
            runner.take(flavors.CreateFlavor, ['f', '--nova-flavor', 'n'])
        assert '--slots is required, but for a spot flavor' in str(
            err.value)
        assert _writes(api) == []

    def test_without_spot_the_request_is_as_before(self, runner, api):
        runner.take(flavors.CreateFlavor, ['f', '--nova-flavor', 'n',
                                           '--slots', '2'])
        request = api.requests[-1]
        assert request.body == {'name': 'f', 'nova_flavor_id': 'n',
                                'slots': 2}
        # The version negotiated; an older one asked for is kept.
        assert request.headers[HEADER] == SPOT
        _pinned(runner, api, '1.0')
        runner.take(flavors.CreateFlavor, ['g', '--nova-flavor', 'n',
                                           '--slots', '2'])
        assert api.requests[-1].headers[HEADER] == 'reserve 1.0'

    def test_a_server_before_1_4_is_not_asked(self, runner):
        runner.api.max_version = '1.3'
        with pytest.raises(rc_exceptions.UnsupportedVersion) as err:
            runner.take(flavors.CreateFlavor, [
                'spot.a100', '--nova-flavor', 'n', '--spot'])
        assert str(err.value) == (
            'A spot flavor needs version 1.4 of the reserve API; the '
            'server offers up to 1.3 (set --os-reserve-api-version or '
            'upgrade the server)')
        assert _writes(runner.api) == []
        assert runner.api.flavors.items == []

    def test_an_older_version_asked_for_is_kept(self, runner, api):
        _pinned(runner, api, '1.2')
        with pytest.raises(rc_exceptions.UnsupportedVersion) as err:
            runner.take(flavors.CreateFlavor, [
                'spot.a100', '--nova-flavor', 'n', '--spot'])
        assert 'this request uses 1.2' in str(err.value)
        assert _writes(api) == []


def test_set_spot_and_no_spot(runner, api):
    flavor = _spot(api, spot=False, slots=4)
    runner.take(flavors.SetFlavor, [flavor['name'], '--spot'])
    assert api.requests[-1].body == {'spot': True}
    assert api.requests[-1].headers[HEADER] == SPOT
    assert flavor['spot'] is True
    runner.take(flavors.SetFlavor, [flavor['name'], '--no-spot'])
    assert api.requests[-1].body == {'spot': False}
    with pytest.raises(SystemExit):
        runner.parse(flavors.SetFlavor, ['x', '--spot', '--no-spot'])


class TestShow:

    def test_spot_fields_from_a_1_4_server(self, runner, api):
        _spot(api, spot_project_ids=['project-a', 'project-b'])
        shown = runner.json(flavors.ShowFlavor, ['spot.a100'])
        assert (shown['spot'], shown['opted_in']) == (True, True)
        assert shown['spot_project_ids'] == ['project-a', 'project-b']
        assert api.requests[-1].headers[HEADER] == SPOT
        table = runner.output(flavors.ShowFlavor, ['spot.a100'])
        assert '| spot             | True' in table
        assert '| opted_in         | True' in table

    def test_an_older_server_shows_what_it_has(self, runner):
        runner.api.max_version = '1.3'
        _spot(runner.api)
        shown = runner.json(flavors.ShowFlavor, ['spot.a100'])
        assert 'spot' not in shown and 'opted_in' not in shown
        assert runner.api.requests[-1].headers[HEADER] != SPOT


class TestOptIn:

    def test_opt_in_then_out(self, runner, api):
        flavor = _spot(api)
        runner.take(flavors.OptInFlavor, ['spot.a100'])
        request = api.requests[-1]
        assert (request.method, request.url) == (
            'POST', '/v1/flavors/spot.a100/opt-in')
        assert request.body is None and request.params == {}
        assert request.headers[HEADER] == SPOT
        assert flavor['spot_project_ids'] == ['project-a']
        assert runner.json(flavors.ShowFlavor, ['spot.a100'])['opted_in']
        # Twice is no error.
        runner.take(flavors.OptInFlavor, ['spot.a100'])
        assert flavor['spot_project_ids'] == ['project-a']
        runner.take(flavors.OptOutFlavor, ['spot.a100'])
        request = api.requests[-1]
        assert (request.method, request.url) == (
            'DELETE', '/v1/flavors/spot.a100/opt-in')
        assert request.headers[HEADER] == SPOT
        assert flavor['spot_project_ids'] == []
        assert runner.json(flavors.ShowFlavor,
                           ['spot.a100'])['opted_in'] is False

    def test_another_project(self, runner, api):
        flavor = _spot(api)
        runner.take(flavors.OptInFlavor, ['spot.a100', '--project', 'p9'])
        assert api.requests[-1].params == {'project_id': 'p9'}
        assert flavor['spot_project_ids'] == ['p9']
        runner.take(flavors.OptOutFlavor, [flavor['id'], '--project', 'p9'])
        assert api.requests[-1].params == {'project_id': 'p9'}
        assert flavor['spot_project_ids'] == []

    def test_not_a_spot_flavor(self, runner, api):
        _spot(api, name='gpu.a100', spot=False)
        with pytest.raises(rc_exceptions.HttpError) as err:
            runner.take(flavors.OptInFlavor, ['gpu.a100'])
        assert 'gpu.a100 is not a spot flavor' in str(err.value)
        assert 'reserve.not_spot_flavor' in str(err.value)

    def test_a_server_before_1_4_is_not_asked(self, runner):
        runner.api.max_version = '1.3'
        _spot(runner.api)
        for command in (flavors.OptInFlavor, flavors.OptOutFlavor):
            with pytest.raises(rc_exceptions.UnsupportedVersion) as err:
                runner.take(command, ['spot.a100'])
            assert 'needs version 1.4 of the reserve API' in str(err.value)
        assert _writes(runner.api) == []

    def test_needs_a_flavor(self, runner):
        with pytest.raises(SystemExit):
            runner.parse(flavors.OptInFlavor, [])


class TestAvailability:

    def test_spot_column_from_a_1_4_server(self, runner, api):
        gpu = _spot(api, name='gpu.a100', spot=False, slots=4)
        spot = _spot(api)
        api.spot_available[spot['id']] = 6
        columns, rows = runner.take(flavors.FlavorAvailability, [])
        assert columns == ('Flavor ID', 'Name', 'Total', 'Available',
                           'Spot')
        assert rows == [(gpu['id'], 'gpu.a100', 4, 4, None),
                        (spot['id'], 'spot.a100', 0, 0, 6)]
        assert api.requests[-1].headers[HEADER] == SPOT
        listed = runner.json(flavors.FlavorAvailability,
                             ['--flavor', 'spot.a100', '--long'])
        assert listed[0]['Spot'] == 6 and 'Slots' in listed[0]

    @pytest.mark.parametrize('version', ['1.3', '1.0'])
    def test_no_spot_column_from_an_older_server(self, runner, version):
        runner.api.max_version = version
        _spot(runner.api, name='gpu.a100', spot=False, slots=4)
        columns, rows = runner.take(flavors.FlavorAvailability, [])
        assert columns == ('Flavor ID', 'Name', 'Total', 'Available')
        assert runner.api.requests[-1].headers[HEADER] != SPOT
