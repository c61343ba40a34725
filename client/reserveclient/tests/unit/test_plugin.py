"""The osc plugin module: options, version checks, make_client."""
import argparse
import os
import types

import pytest
from osc_lib import exceptions

from reserveclient.osc.v1 import base
from reserveclient.osc.v1 import reservations
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


# -- a missing environment ---------------------------------------------------

QUICK_START = 'export OS_AUTH_TYPE=none OS_RESERVE_URL=http://127.0.0.1:8785'


def test_nothing_set_says_how_to_reach_the_quick_start():
    with pytest.raises(exceptions.CommandError) as err:
        plugin.check_environment({'auth_type': 'password', 'auth': {}})
    message = str(err.value)
    assert QUICK_START in message
    assert 'OS_AUTH_URL' in message and 'OS_CLOUD' in message
    assert plugin.QUICK_START_ENV == QUICK_START


def test_reserve_url_without_auth_type_none():
    with pytest.raises(exceptions.CommandError) as err:
        plugin.check_environment({'auth_type': 'password', 'auth': {},
                                  'reserve_url': 'http://127.0.0.1:8785'})
    message = str(err.value)
    assert 'http://127.0.0.1:8785' in message
    assert 'OS_AUTH_TYPE=none' in message


@pytest.mark.parametrize('config', [
    # The quick start.
    {'auth_type': 'none', 'auth': {}, 'reserve_url': 'http://r:8785'},
    # auth none with the none plugin's endpoint, or with nothing: the
    # client says then that it has no endpoint.
    {'auth_type': 'none', 'auth': {'endpoint': 'http://r:8785'}},
    {'auth_type': 'none', 'auth': {}},
    # keystone, from the environment, --os-auth-url or clouds.yaml.
    {'auth_type': 'password', 'auth': {'auth_url': 'http://k/v3'}},
    {'auth_type': 'password', 'auth': {}, 'auth_url': 'http://k/v3'},
    {'auth_type': 'v3applicationcredential',
     'auth': {'auth_url': 'http://k/v3'}},
    # plugins without an auth URL, and ones osc refuses itself.
    {'auth_type': 'admin_token', 'auth': {}},
    {'auth_type': 'no-such-plugin', 'auth': {}},
])
def test_configurations_left_to_osc(config):
    plugin.check_environment(config)


def test_no_auth_type_means_password():
    with pytest.raises(exceptions.CommandError):
        plugin.check_environment({})


class TestCommandsCheckFirst:
    """osc reads auth_required of the command before validating the auth
    options; the reserve commands check the environment there."""

    def _command(self, config):
        app = types.SimpleNamespace(
            cloud=types.SimpleNamespace(config=config))
        return reservations.ListReservation(app, None)

    def test_refused_with_the_way_out(self):
        cmd = self._command({'auth_type': 'password', 'auth': {}})
        with pytest.raises(exceptions.CommandError) as err:
            cmd.auth_required
        assert QUICK_START in str(err.value)

    def test_required_otherwise(self):
        cmd = self._command({'auth_type': 'none', 'auth': {},
                             'reserve_url': 'http://r:8785'})
        assert cmd.auth_required is True
        # An app without a cloud configuration (tests, other hosts).
        assert reservations.ListReservation(
            types.SimpleNamespace(), None).auth_required is True

    def test_every_command_checks(self):
        import importlib.metadata
        entry_points = importlib.metadata.entry_points(
            group='openstack.reserve.v1')
        assert len(entry_points) > 30
        for entry_point in entry_points:
            assert issubclass(entry_point.load(), base.ReserveCommand), \
                entry_point.name


def test_the_openstack_command_says_it(monkeypatch, tmp_path, capsys):
    """The real osc shell, with nothing configured (no OS_* variable, no
    clouds.yaml)."""
    shell = pytest.importorskip('openstackclient.shell')
    for name in list(os.environ):
        if name.startswith('OS_'):
            monkeypatch.delenv(name)
    monkeypatch.setenv('HOME', str(tmp_path))
    monkeypatch.setenv('XDG_CONFIG_HOME', str(tmp_path / 'config'))
    monkeypatch.chdir(tmp_path)
    assert shell.main(['reserve', 'reservation', 'list']) == 1
    err = capsys.readouterr().err
    assert QUICK_START in err
    assert 'Missing value auth-url' not in err
