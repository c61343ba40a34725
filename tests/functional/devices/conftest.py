import pytest

from tests.functional.devices import gpu_cloud


@pytest.fixture
def cloud(tmp_path):
    found = gpu_cloud.start_cloud(tmp_path)
    yield found
    gpu_cloud.stop_cloud(found)


@pytest.fixture
def not_immediate():
    """Reservations are attached by their start event only."""
    gpu_cloud.CONF.set_override('immediate_window', 0, group='devices')
    yield
    gpu_cloud.CONF.clear_override('immediate_window', group='devices')
