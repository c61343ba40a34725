"""Integration fixtures: a real OpenStack (placement + nova) on loopback."""
import datetime
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


# What nova's services complained about during a failed test, so that a
# build failure seen only as "Exhausted all hosts..." names its cause in
# the report (a CI run keeps no cloud logs).
_NOVA_LOGS = ('nova-compute-host1.log', 'nova-compute-host2.log',
              'nova-conductor.log', 'nova-scheduler.log')
_NOISE = ('get_host_uptime', 'oslo_messaging.rpc.server',
          'No compute node record', 'NoValidHost')


def _nova_complaints(since, limit=40):
    logs = os.path.join(cloud_lifecycle.CLOUD_DIR, 'state', 'logs')
    found = []
    for name in _NOVA_LOGS:
        try:
            with open(os.path.join(logs, name), errors='replace') as f:
                lines = f.readlines()
        except OSError:
            continue
        for line in lines:
            # '2026-12-02 17:20:30.796 6569 ERROR ...': the stamp sorts
            if line[:19] >= since and (' ERROR ' in line or
                                       ' WARNING ' in line) \
                    and not any(n in line for n in _NOISE):
                found.append('%s: %s' % (name, line.rstrip()[:400]))
    return found[-limit:]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == 'call' and report.failed and \
            'openstack_cloud' in item.fixturenames:
        since = datetime.datetime.fromtimestamp(call.start).strftime(
            '%Y-%m-%d %H:%M:%S')
        complaints = _nova_complaints(since)
        if complaints:
            report.sections.append(('nova during the test',
                                    '\n'.join(complaints)))
