"""Fixtures shared by the unit tests.

Configuration is changed only through ``override`` (cleared after each
test with clear_override, so the registered defaults survive), and each
test that needs a database gets a fresh SQLite file built by the real
migrations.
"""
from oslo_config import cfg
import pytest

from reserve.common import context as reserve_context
from reserve.common import rpc
from reserve import conf as reserve_conf  # noqa: F401 (registers options)
from reserve.notification import sync
from tests.fixtures import config
from tests.fixtures import database

CONF = cfg.CONF


@pytest.fixture(autouse=True)
def override():
    """``override(name, value, group=None)``; undone after the test."""
    yield from config.overrides()


@pytest.fixture
def db(tmp_path):
    """A fresh SQLite file with the migrated schema; yields its path."""
    path = tmp_path / 'reserve.sqlite'
    database.use_database('sqlite:///%s' % path)
    yield path
    database.reset_engine()
    CONF.clear_override('connection', group='database')


@pytest.fixture
def ctx():
    return reserve_context.get_admin_context()


class NotificationRecorder:
    """Stands in for the oslo.messaging notifier of the sync module."""

    def __init__(self):
        self.sent = []

    def info(self, context, event_type, payload):
        self.sent.append((event_type, payload))

    @property
    def event_types(self):
        return [event_type for event_type, _ in self.sent]

    def clear(self):
        del self.sent[:]


@pytest.fixture
def notifications(override, monkeypatch):
    """Notifications emitted by reserve.notification.sync, recorded.

    The transport is oslo.messaging's fake driver, so nothing can leave the
    process even if a real notifier were built.
    """
    override('transport_url', 'fake://')
    rpc.cleanup()
    sync._NOTIFIER = None
    recorder = NotificationRecorder()
    monkeypatch.setattr(sync, '_notifier', lambda: recorder)
    yield recorder
    rpc.cleanup()
    sync._NOTIFIER = None
