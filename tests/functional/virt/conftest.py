"""GPU hosts of etc/reserve/gpu-hosts on libvirt's test driver.

``<name>_host`` is the test driver alone (no mdev creation, no hot-plug:
attach and detach fall back to redefining the domain); ``<name>_fake``
adds reserve_fakes.libvirt_host's faithful mdev lifecycle and hot-plug.
Each test gets fresh connections, hence fresh hosts.
"""
import pytest

from reserve_fakes import libvirt_host
from tests.fixtures import config
from tests.functional.virt import hosts


@pytest.fixture
def override():
    """``override(name, value, group=None)``; undone after the test."""
    yield from config.overrides()


def _host(name, opener=None):
    with hosts.open_host(name, opener) as host:
        yield host


@pytest.fixture
def a100_host():
    yield from _host('a100-host.xml')


@pytest.fixture
def a100_fake():
    yield from _host('a100-host.xml', libvirt_host.opener())


@pytest.fixture
def t4_host():
    yield from _host('t4-host.xml')


@pytest.fixture
def t4_fake():
    yield from _host('t4-host.xml', libvirt_host.opener())


@pytest.fixture
def t4_fake_no_hotplug():
    yield from _host('t4-host.xml', libvirt_host.opener(hotplug=False))


@pytest.fixture
def rtx_host():
    yield from _host('rtx-workstation.xml')
