"""Fixtures of the device tests: ``cloud`` (the lease manager and its
event loop on libvirt test:/// hosts) and ``gpu_api`` (the same behind
the WSGI stack of tests.functional.api_fixtures)."""
import pytest

from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.devices import api as device_api
from tests.functional.devices import gpu_cloud


@pytest.fixture
def cloud(tmp_path):
    found = gpu_cloud.start_cloud(tmp_path)
    yield found
    gpu_cloud.stop_cloud(found)


@pytest.fixture
def gpu_api(api, tmp_path, monkeypatch):  # noqa: F811
    yield from device_api.gpu_api_fixture(api, tmp_path, monkeypatch)


@pytest.fixture
def a100(gpu_api):
    """An enrolled A100 host of test:/// (a100-host.xml), gpu-box-1."""
    return gpu_api.enroll('a100-host.xml', name='gpu-box-1')
