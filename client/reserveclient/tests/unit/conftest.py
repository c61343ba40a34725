import io
import json
import types

import pytest

from reserveclient.tests.unit import fakes
from reserveclient.v1 import client as reserve_client


class FakeClientManager:

    def __init__(self, reserve, auth_type='none'):
        self.reserve = reserve
        self._config = {'auth_type': auth_type}

    def get_configuration(self):
        return dict(self._config)


class Runner:
    """Runs one command class the way osc does, against the fake API."""

    def __init__(self, api):
        self.api = api
        self.client = reserve_client.Client(fakes.FakeSession(api))
        self.app = types.SimpleNamespace(
            stdout=io.StringIO(), stderr=io.StringIO(),
            client_manager=FakeClientManager(self.client),
            options=types.SimpleNamespace(debug=False))

    def pin(self, version):
        """The commands speak ``version`` from now on, as with
        --os-reserve-api-version."""
        self.client = reserve_client.Client(fakes.FakeSession(self.api),
                                            api_version=version)
        self.app.client_manager = FakeClientManager(self.client)

    def command(self, cls):
        return cls(self.app, None)

    def parse(self, cls, argv):
        cmd = self.command(cls)
        return cmd, cmd.get_parser('openstack reserve').parse_args(argv)

    def take(self, cls, argv):
        """(columns, data) of take_action."""
        cmd, parsed = self.parse(cls, argv)
        return cmd.take_action(parsed)

    def output(self, cls, argv):
        """What the command prints (formatters included)."""
        self.app.stdout = io.StringIO()
        cmd, parsed = self.parse(cls, argv)
        result = cmd.run(parsed)
        assert result in (0, None)
        return self.app.stdout.getvalue()

    def json(self, cls, argv):
        return json.loads(self.output(cls, list(argv) + ['-f', 'json']))


@pytest.fixture
def api():
    return fakes.FakeReserveAPI()


@pytest.fixture
def runner(api):
    return Runner(api)
