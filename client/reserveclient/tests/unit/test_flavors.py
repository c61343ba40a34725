"""openstack reserve flavor ... against the API double."""
import pytest
from osc_lib import exceptions

from reserveclient import exceptions as rc_exceptions
from reserveclient.osc.v1 import flavors


def _flavor(api, name='gpu.a100', **values):
    flavor = dict(name=name, nova_flavor_id='nova-' + name,
                  description=None, slots=4, max_length_hours=168,
                  active=True, is_public=True, start=None, end=None,
                  category='gpu', availability_zone=None, projects=[],
                  created_at='2026-01-01T00:00:00Z',
                  updated_at='2026-01-01T00:00:00Z')
    flavor.update(values)
    return api.flavors.add(**flavor)


class TestCreate:

    def test_full(self, runner, api):
        shown = runner.json(flavors.CreateFlavor, [
            'gpu.a100', '--nova-flavor', 'g1.a100', '--slots', '8',
            '--description', 'One A100', '--max-length-hours', '72',
            '--start', '2030-01-01', '--end', '2030-06-30T18:00',
            '--category', 'gpu', '--availability-zone', 'az1',
            '--private', '--disable', '--project', 'p1', '--project', 'p2'])
        assert api.requests[-1].body == {
            'name': 'gpu.a100', 'nova_flavor_id': 'g1.a100', 'slots': 8,
            'description': 'One A100', 'max_length_hours': 72,
            'start': '2030-01-01T00:00:00Z', 'end': '2030-06-30T18:00:00Z',
            'category': 'gpu', 'availability_zone': 'az1',
            'is_public': False, 'active': False, 'projects': ['p1', 'p2']}
        assert list(shown)[:3] == ['id', 'name', 'nova_flavor_id']
        assert shown['projects'] == ['p1', 'p2']

    def test_minimal(self, runner, api):
        runner.take(flavors.CreateFlavor, ['f', '--nova-flavor', 'n',
                                           '--slots', '0'])
        assert api.requests[-1].body == {'name': 'f', 'nova_flavor_id': 'n',
                                         'slots': 0}

    # Without --slots (and without --spot): test_spot_flavors.
    @pytest.mark.parametrize('argv', [
        ['f', '--slots', '1'],
        ['f', '--nova-flavor', 'n', '--slots', '-1'],
        ['f', '--nova-flavor', 'n', '--spot', '--no-spot'],
        ['f', '--nova-flavor', 'n', '--slots', '1', '--public',
         '--private'],
        ['f', '--nova-flavor', 'n', '--slots', '1', '--no-start']])
    def test_bad_arguments(self, runner, argv):
        with pytest.raises(SystemExit):
            runner.parse(flavors.CreateFlavor, argv)

    def test_table(self, runner, api):
        table = runner.output(flavors.CreateFlavor, [
            'gpu.a100', '--nova-flavor', 'g1', '--slots', '2', '--project',
            'p1', '--project', 'p2'])
        assert '| projects          | p1, p2' in table


class TestList:

    def test_columns(self, runner, api):
        flavor = _flavor(api)
        columns, rows = runner.take(flavors.ListFlavor, [])
        assert columns == ('ID', 'Name', 'Nova Flavor ID', 'Slots',
                           'Max Length Hours', 'Is Public', 'Active')
        assert rows == [(flavor['id'], 'gpu.a100', 'nova-gpu.a100', 4, 168,
                         True, True)]

    def test_filters(self, runner, api):
        _flavor(api)
        _flavor(api, 'cpu', category='cpu', is_public=False)
        _columns, rows = runner.take(flavors.ListFlavor, [
            '--category', 'cpu', '--private', '--enabled'])
        assert [r[1] for r in rows] == ['cpu']
        assert api.requests[-1].params == {
            'category': 'cpu', 'is_public': 'false', 'active': 'true'}
        runner.take(flavors.ListFlavor, ['--disabled', '--public',
                                         '--availability-zone', 'az'])
        assert api.requests[-1].params == {
            'availability_zone': 'az', 'is_public': 'true',
            'active': 'false'}

    def test_long(self, runner, api):
        _flavor(api, projects=['p1'])
        listed = runner.json(flavors.ListFlavor, ['--long'])
        assert listed[0]['Projects'] == ['p1']
        assert 'Category' in listed[0]


def test_show_by_name(runner, api):
    _flavor(api, start='2030-01-01T00:00:00Z')
    value = runner.output(flavors.ShowFlavor, [
        'gpu.a100', '-f', 'value', '-c', 'slots', '-c', 'start'])
    assert value.splitlines() == ['4', '2030-01-01T00:00:00Z']
    assert api.requests[-1].url == '/v1/flavors/gpu.a100'


def test_show_missing(runner, api):
    with pytest.raises(rc_exceptions.NotFound):
        runner.take(flavors.ShowFlavor, ['gpu.h100'])


class TestSet:

    def test_values(self, runner, api):
        flavor = _flavor(api)
        runner.take(flavors.SetFlavor, [
            'gpu.a100', '--name', 'gpu.a100.big', '--slots', '6',
            '--enable', '--public', '--end', '2031-01-01'])
        assert api.requests[-1].method == 'PATCH'
        assert api.requests[-1].url == '/v1/flavors/gpu.a100'
        assert api.requests[-1].body == {
            'name': 'gpu.a100.big', 'slots': 6, 'active': True,
            'is_public': True, 'end': '2031-01-01T00:00:00Z'}
        assert flavor['name'] == 'gpu.a100.big'

    def test_clear(self, runner, api):
        _flavor(api)
        runner.take(flavors.SetFlavor, [
            'gpu.a100', '--no-max-length-hours', '--no-start', '--no-end',
            '--no-description', '--no-category', '--no-availability-zone'])
        assert api.requests[-1].body == {
            'max_length_hours': None, 'start': None, 'end': None,
            'description': None, 'category': None,
            'availability_zone': None}

    def test_set_and_clear_the_same(self, runner, api):
        _flavor(api)
        with pytest.raises(exceptions.CommandError) as err:
            runner.take(flavors.SetFlavor, ['gpu.a100', '--start',
                                            '2030-01-01', '--no-start'])
        assert '--start and --no-start' in str(err.value)

    def test_nothing(self, runner, api):
        _flavor(api)
        with pytest.raises(exceptions.CommandError):
            runner.take(flavors.SetFlavor, ['gpu.a100'])


def test_delete(runner, api):
    _flavor(api)
    _flavor(api, 'cpu')
    runner.take(flavors.DeleteFlavor, ['gpu.a100', 'cpu'])
    assert api.flavors.items == []
    with pytest.raises(exceptions.CommandError) as err:
        runner.take(flavors.DeleteFlavor, ['cpu'])
    assert str(err.value) == 'Failed to delete 1 of 1 flavors'


class TestAccess:

    def test_grant_list_revoke(self, runner, api):
        flavor = _flavor(api, is_public=False)
        runner.take(flavors.GrantFlavorAccess, ['gpu.a100', 'p1', 'p2'])
        assert [r.body for r in api.requests if r.method == 'POST'] == [
            {'project_id': 'p1'}, {'project_id': 'p2'}]
        listed = runner.json(flavors.ListFlavorAccess, ['gpu.a100'])
        assert listed == [
            {'Flavor ID': flavor['id'], 'Flavor': 'gpu.a100',
             'Project ID': 'p1'},
            {'Flavor ID': flavor['id'], 'Flavor': 'gpu.a100',
             'Project ID': 'p2'}]
        runner.take(flavors.RevokeFlavorAccess, ['gpu.a100', 'p1'])
        assert api.requests[-1].url == '/v1/flavors/gpu.a100/projects/p1'
        assert flavor['projects'] == ['p2']

    def test_grant_reports_each_failure(self, runner, api):
        _flavor(api, is_public=False, projects=['p1'])
        with pytest.raises(exceptions.CommandError) as err:
            runner.take(flavors.GrantFlavorAccess, ['gpu.a100', 'p1', 'p2'])
        assert 'Failed to grant access to 1 of 2 projects' in str(err.value)
        assert 'p1: Project p1 is already granted' in str(err.value)
        assert 'reserve.grant_exists' in str(err.value)

    def test_revoke_missing(self, runner, api):
        _flavor(api)
        with pytest.raises(exceptions.CommandError) as err:
            runner.take(flavors.RevokeFlavorAccess, ['gpu.a100', 'p9'])
        assert 'Project p9 has no grant' in str(err.value)


class TestCalendar:

    def test_free_slots(self, runner, api):
        flavor = _flavor(api)
        api.free_slots[flavor['id']] = [
            {'start': '2030-01-01T00:00:00Z', 'end': '2030-01-03T00:00:00Z'},
            {'start': '2030-01-05T00:00:00Z', 'end': '2030-02-01T00:00:00Z'}]
        listed = runner.json(flavors.FlavorFreeSlots, [
            'gpu.a100', '--start', '2030-01-01', '--end', '2030-02-01',
            '--instance-count', '2'])
        assert listed == [
            {'Start': '2030-01-01T00:00:00Z', 'End': '2030-01-03T00:00:00Z'},
            {'Start': '2030-01-05T00:00:00Z', 'End': '2030-02-01T00:00:00Z'}]
        request = api.requests[-1]
        assert request.url == '/v1/flavors/gpu.a100/free-slots'
        assert request.params == {'start': '2030-01-01T00:00:00Z',
                                  'end': '2030-02-01T00:00:00Z',
                                  'instance_count': 2}

    def test_free_slots_defaults(self, runner, api):
        _flavor(api)
        columns, rows = runner.take(flavors.FlavorFreeSlots, ['gpu.a100'])
        assert columns == ('Start', 'End')
        assert rows == []
        assert api.requests[-1].params == {}

    def test_availability(self, runner, api):
        flavor = _flavor(api)
        _flavor(api, 'cpu', slots=10)
        api.available[flavor['id']] = 1
        listed = runner.json(flavors.FlavorAvailability, [
            '--start', '2030-01-01', '--end', '2030-01-02'])
        # A server of 1.4 tells the spot instances (none: not spot).
        assert listed[0] == {'Flavor ID': flavor['id'], 'Name': 'gpu.a100',
                             'Total': 4, 'Available': 1, 'Spot': None}
        assert api.requests[-1].url == '/v1/flavors/availability'
        assert api.requests[-1].params == {'start': '2030-01-01T00:00:00Z',
                                           'end': '2030-01-02T00:00:00Z'}
        only = runner.json(flavors.FlavorAvailability, [
            '--flavor', 'cpu', '--long'])
        assert [r['Name'] for r in only] == ['cpu']
        assert 'Nova Flavor ID' in only[0]

    def test_availability_window_needs_both_ends(self, runner, api):
        with pytest.raises(exceptions.CommandError) as err:
            runner.take(flavors.FlavorAvailability, ['--start', 'now'])
        assert '--start and --end go together' in str(err.value)

    def test_availability_unknown_flavor(self, runner, api):
        _flavor(api)
        with pytest.raises(exceptions.CommandError) as err:
            runner.take(flavors.FlavorAvailability, ['--flavor', 'nope'])
        assert 'nope' in str(err.value)
