"""reserve's errors cross the RPC API as answers: the server logs them in
one line, and the caller gets them back as themselves."""
import logging

from oslo_config import cfg
import oslo_messaging as messaging
from oslo_messaging import conffixture
import pytest

from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import rpc
from reserve import conf as reserve_conf  # noqa: F401 (registers options)

CONF = cfg.CONF


class Endpoint:
    target = messaging.Target(version='1.0')

    def enroll(self, context, name):
        raise exception.HypervisorNotFound(name=name)

    def crash(self, context):
        raise ZeroDivisionError('a bug')


@pytest.fixture
def server():
    conffixture.ConfFixture(CONF)
    CONF.set_override('transport_url', 'fake://')
    rpc.cleanup()
    server = rpc.get_server('reserve-test', '1.0', [Endpoint()])
    server.start()
    yield rpc.get_client('reserve-test', '1.0', timeout=10)
    server.stop()
    server.wait()
    rpc.cleanup()
    CONF.clear_override('transport_url')


def test_an_expected_error_is_one_line_and_comes_back(server, caplog):
    ctx = reserve_context.get_admin_context()
    caplog.set_level(logging.DEBUG, logger='oslo_messaging')
    with pytest.raises((exception.HypervisorNotFound,
                        messaging.RemoteError)) as raised:
        server.call(ctx, 'enroll', name='ghost')
    assert 'ghost' in str(raised.value)
    assert 'Exception during message handling' not in caplog.text
    assert 'Traceback' not in caplog.text


def test_a_bug_is_still_logged_with_its_traceback(server, caplog):
    ctx = reserve_context.get_admin_context()
    with pytest.raises((ZeroDivisionError, messaging.RemoteError)):
        server.call(ctx, 'crash')
    assert 'Exception during message handling' in caplog.text
