"""openstack reserve host ... against the API double."""
import pytest
from osc_lib import exceptions

from reserveclient import exceptions as rc_exceptions
from reserveclient.osc.v1 import hosts


def _host(api, name='gpu1', **caps):
    return api.hosts.add(
        name=name, service_name=name, kind='nova', provider_uuid='rp-1',
        vcpus=64, memory_mb=1024, local_gb=100, reservable=True,
        capabilities=dict(caps), created_at='2026-01-01T00:00:00Z',
        updated_at=None)


def test_create(runner, api):
    shown = runner.json(hosts.CreateHost, [
        'gpu1', '--property', 'gpu=a100', '--property', 'rack=r1',
        '--not-reservable'])
    post = api.requests[-1]
    assert post.body == {'name': 'gpu1',
                         'capabilities': {'gpu': 'a100', 'rack': 'r1'},
                         'reservable': False}
    assert shown['properties'] == {'gpu': 'a100', 'rack': 'r1'}
    assert shown['reservable'] is False
    assert 'capabilities' not in shown


def test_create_minimal(runner, api):
    runner.take(hosts.CreateHost, ['gpu1'])
    assert api.requests[-1].body == {'name': 'gpu1'}


def test_create_table(runner, api):
    table = runner.output(hosts.CreateHost, ['gpu1', '--property',
                                             'gpu=a100'])
    assert "| properties    | gpu='a100'" in table


@pytest.mark.parametrize('argv', [
    [], ['gpu1', '--property', 'novalue'],
    ['gpu1', '--reservable', '--not-reservable']])
def test_create_bad_arguments(runner, argv):
    with pytest.raises(SystemExit):
        runner.parse(hosts.CreateHost, argv)


def test_list_and_filter(runner, api):
    host = _host(api, gpu='a100')
    columns, rows = runner.take(hosts.ListHost, [])
    assert columns == ('ID', 'Name', 'Kind', 'vCPUs', 'Memory MB',
                       'Reservable')
    assert rows == [(host['id'], 'gpu1', 'nova', 64, 1024, True)]
    runner.take(hosts.ListHost, ['--not-reservable'])
    assert api.requests[-1].params == {'reservable': 'false'}
    listed = runner.json(hosts.ListHost, ['--long'])
    assert listed[0]['Properties'] == {'gpu': 'a100'}


def test_show_by_name(runner, api):
    _host(api, gpu='a100')
    shown = runner.json(hosts.ShowHost, ['gpu1'])
    assert shown['name'] == 'gpu1'
    assert api.requests[-1].url == '/v1/hosts/gpu1'


def test_set(runner, api):
    host = _host(api, gpu='a100', rack='r1')
    runner.take(hosts.SetHost, ['gpu1', '--property', 'gpu=h100',
                                '--unset-property', 'rack',
                                '--not-reservable'])
    assert api.requests[-1].body == {
        'capabilities': {'gpu': 'h100', 'rack': None}, 'reservable': False}
    assert host['capabilities'] == {'gpu': 'h100'}
    assert host['reservable'] is False


def test_set_reservable_only(runner, api):
    _host(api)
    runner.take(hosts.SetHost, ['gpu1', '--reservable'])
    assert api.requests[-1].body == {'reservable': True}


def test_set_nothing(runner, api):
    _host(api)
    with pytest.raises(exceptions.CommandError) as err:
        runner.take(hosts.SetHost, ['gpu1'])
    assert 'Nothing to change' in str(err.value)


def test_set_and_unset_same_key(runner, api):
    _host(api)
    with pytest.raises(exceptions.CommandError):
        runner.take(hosts.SetHost, ['gpu1', '--property', 'a=1',
                                    '--unset-property', 'a'])


def test_delete(runner, api):
    _host(api, 'gpu1')
    _host(api, 'gpu2')
    runner.take(hosts.DeleteHost, ['gpu1', 'gpu2'])
    assert api.hosts.items == []


def test_delete_missing(runner, api):
    with pytest.raises(exceptions.CommandError):
        runner.take(hosts.DeleteHost, ['gpu9'])


def test_show_missing(runner):
    with pytest.raises(rc_exceptions.NotFound):
        runner.take(hosts.ShowHost, ['gpu9'])


def test_create_libvirt_host_by_uri(runner, api):
    runner.take(hosts.CreateHost, ['gpu-box', '--uri',
                                   'qemu+tls://gpu-box/system'])
    assert api.requests[-1].body == {'name': 'gpu-box',
                                     'uri': 'qemu+tls://gpu-box/system'}
