"""Integration fixtures: a real OpenStack (placement + nova) on loopback."""
import os
import sys

import pytest

try:
    from . import cloud_lifecycle
except ImportError:  # tests/integration is not a package
    if os.path.dirname(os.path.abspath(__file__)) not in sys.path:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import cloud_lifecycle


def pytest_configure(config):
    config.addinivalue_line(
        'markers', 'integration: needs the loopback OpenStack of tools/cloud '
        '(brought up on demand by the openstack_cloud fixture)')


@pytest.fixture(scope='session')
def openstack_cloud():
    """Endpoints of the loopback cloud (cloud_lifecycle.endpoints()) for
    the session.

    Reuses a cloud that already answers, unless it came up with other
    configuration files than tools/cloud/etc renders now (e.g. before
    nova's enable_isolated_aggregate_filtering, which the fence needs):
    then it is brought up again, and left running at the end. One brought
    up here is stopped at the end of the session unless RESERVE_CLOUD_KEEP
    is set (then tools/cloud/down.sh stops it).
    """
    info = cloud_lifecycle.ensure_up()
    yield info
    if info['started'] and not os.environ.get('RESERVE_CLOUD_KEEP'):
        cloud_lifecycle.down()


@pytest.fixture
def cleanup():
    """Register callables to run in reverse order at the end of the test,
    even after a failure; what fails among them is reported at the end."""
    actions = []
    yield actions.append
    errors = []
    for action in reversed(actions):
        try:
            action()
        except Exception as exc:  # keep cleaning up
            errors.append(repr(exc))
    assert not errors, errors
