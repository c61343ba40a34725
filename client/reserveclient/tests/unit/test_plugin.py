"""The osc plugin module: options, version checks, make_client."""
import argparse
import types

import pytest
from osc_lib import exceptions

from reserveclient import plugin
from reserveclient.v1 import client as reserve_client


def _parser(monkeypatch, **env):
    for name in ('OS_RESERVE_URL', 'OS_RESERVE_API_VERSION'):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return plugin.build_option_parser(argparse.ArgumentParser())


def test_options_defaults(monkeypatch):
    args = _parser(monkeypatch).parse_args([])
    assert args.os_reserve_api_version == '1'
    assert args.os_reserve_url is None


def test_options_from_environment(monkeypatch):
    args = _parser(monkeypatch, OS_RESERVE_URL='http://r:8785',
                   OS_RESERVE_API_VERSION='1.0').parse_args([])
    assert args.os_reserve_url == 'http://r:8785'
    assert args.os_reserve_api_version == '1.0'


def test_options_on_the_command_line(monkeypatch):
    args = _parser(monkeypatch, OS_RESERVE_URL='http://env').parse_args(
        ['--os-reserve-url', 'http://cli', '--os-reserve-api-version',
         '1.0'])
    assert args.os_reserve_url == 'http://cli'


def test_plugin_constants():
    assert plugin.API_NAME == 'reserve'
    assert plugin.API_VERSION_OPTION == 'os_reserve_api_version'
    assert plugin.DEFAULT_API_VERSION in plugin.API_VERSIONS


@pytest.mark.parametrize('version', ['1', '1.0', '1.12'])
def test_check_api_version_accepts(version):
    assert plugin.check_api_version(version) is True


@pytest.mark.parametrize('version', ['2', 'x', '1.x', '1.0.0'])
def test_check_api_version_refuses(version):
    with pytest.raises(exceptions.CommandError):
        plugin.check_api_version(version)


class FakeInstance:

    def __init__(self, config, version='1'):
        self._api_version = {'reserve': version}
        self.interface = 'internal'
        self.region_name = 'RegionOne'
        self.session = types.SimpleNamespace()
        self._config = config

    def get_configuration(self):
        return dict(self._config)


def test_make_client_with_url_override():
    client = plugin.make_client(FakeInstance(
        {'reserve_url': 'http://127.0.0.1:8785/'}, version='1.0'))
    assert isinstance(client, reserve_client.Client)
    http = client.http
    assert http.endpoint == 'http://127.0.0.1:8785'
    assert http.service_type == 'reserve'
    assert http.interface == 'internal'
    assert http.region_name == 'RegionOne'
    assert client.api_version == '1.0'


def test_make_client_clouds_yaml_override():
    client = plugin.make_client(FakeInstance(
        {'reserve_endpoint_override': 'http://cloud:8785'}))
    assert client.http.endpoint == 'http://cloud:8785'


def test_make_client_from_catalog():
    client = plugin.make_client(FakeInstance({}))
    assert client.http.endpoint_override is None
