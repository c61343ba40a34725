"""openstack reserve maintenance window ... against the API double."""
import pytest
from osc_lib import exceptions

from reserveclient.osc.v1 import maintenance


@pytest.fixture
def flavor(api):
    return api.flavors.add(name='gpu.a100', slots=2)


def test_create_for_flavors(runner, api, flavor):
    shown = runner.json(maintenance.CreateMaintenanceWindow, [
        '--start', '2030-01-01', '--end', '2030-01-02T06:00',
        '--note', 'firmware', '--flavor', 'gpu.a100', '--force'])
    assert api.requests[-1].body == {
        'start': '2030-01-01T00:00:00Z', 'end': '2030-01-02T06:00:00Z',
        'note': 'firmware', 'flavors': ['gpu.a100'], 'force': True}
    assert shown['flavors'] == [flavor['id']]
    assert shown['all_flavors'] is False
    assert list(shown)[:4] == ['id', 'start', 'end', 'note']


def test_create_all_flavors_table(runner, api):
    table = runner.output(maintenance.CreateMaintenanceWindow, [
        '--start', '2030-01-01', '--end', '2030-01-02', '--all-flavors'])
    assert api.requests[-1].body == {
        'start': '2030-01-01T00:00:00Z', 'end': '2030-01-02T00:00:00Z',
        'all_flavors': True}
    assert '| flavors     | all' in table


@pytest.mark.parametrize('argv', [
    ['--start', '2030-01-01', '--end', '2030-01-02'],
    ['--start', '2030-01-01', '--end', '2030-01-02', '--all-flavors',
     '--flavor', 'x'],
    ['--end', '2030-01-02', '--all-flavors']])
def test_create_bad_arguments(runner, argv):
    with pytest.raises(SystemExit):
        runner.parse(maintenance.CreateMaintenanceWindow, argv)


def test_list(runner, api, flavor):
    window = api.windows.add(start='2030-01-01T00:00:00Z',
                             end='2030-01-02T00:00:00Z', note='fw',
                             all_flavors=False, flavors=[flavor['id']])
    every = api.windows.add(start='2030-02-01T00:00:00Z',
                            end='2030-02-02T00:00:00Z', note=None,
                            all_flavors=True, flavors=[])
    listed = runner.json(maintenance.ListMaintenanceWindow, [])
    assert listed == [
        {'ID': window['id'], 'Start': '2030-01-01T00:00:00Z',
         'End': '2030-01-02T00:00:00Z', 'Flavors': [flavor['id']],
         'Note': 'fw'},
        {'ID': every['id'], 'Start': '2030-02-01T00:00:00Z',
         'End': '2030-02-02T00:00:00Z', 'Flavors': [], 'Note': None}]
    table = runner.output(maintenance.ListMaintenanceWindow, [])
    assert '| all ' in table
    runner.take(maintenance.ListMaintenanceWindow,
                ['--flavor', 'gpu.a100', '--all'])
    assert api.requests[-1].params == {'flavor_id': 'gpu.a100',
                                       'include_past': 'true'}


def test_show_set_delete(runner, api, flavor):
    window = api.windows.add(start='2030-01-01T00:00:00Z',
                             end='2030-01-02T00:00:00Z', note='fw',
                             all_flavors=True, flavors=[])
    shown = runner.json(maintenance.ShowMaintenanceWindow, [window['id']])
    assert shown['all_flavors'] is True
    runner.take(maintenance.SetMaintenanceWindow, [
        window['id'], '--end', '2030-01-03', '--flavor', 'gpu.a100'])
    assert api.requests[-1].body == {'end': '2030-01-03T00:00:00Z',
                                     'flavors': ['gpu.a100'],
                                     'all_flavors': False}
    runner.take(maintenance.SetMaintenanceWindow, [
        window['id'], '--all-flavors', '--force'])
    assert api.requests[-1].body == {'all_flavors': True, 'force': True}
    with pytest.raises(exceptions.CommandError):
        runner.take(maintenance.SetMaintenanceWindow, [window['id'],
                                                       '--force'])
    runner.take(maintenance.DeleteMaintenanceWindow, [window['id']])
    assert api.windows.items == []
