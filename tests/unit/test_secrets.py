"""reserve.common.secrets, public messages of errors, escaped log text."""
import json

import pytest

from reserve.cmd import api as api_cmd
from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import rpc
from reserve.common import secrets
from reserve.virt import exception as virt_exception


@pytest.mark.parametrize('url,shown', [
    ('mysql+pymysql://reserve:s3cr%40t@db:3306/reserve?charset=utf8',
     'mysql+pymysql://reserve:***@db:3306/reserve?charset=utf8'),
    ('rabbit://a:pw1@h1:5672,b:pw2@h2:5672/vhost',
     'rabbit://a:***@h1:5672,b:***@h2:5672/vhost'),
    ('postgresql://reserve@db/reserve', 'postgresql://reserve@db/reserve'),
    ('sqlite:////var/lib/reserve/reserve.sqlite',
     'sqlite:////var/lib/reserve/reserve.sqlite'),
    ('kombu+memory:////', 'kombu+memory:////'),
    ('', ''), (None, None)])
def test_urls_are_shown_without_their_password(url, shown):
    assert secrets.masked_url(url) == shown


def test_the_serialized_context_has_no_credentials():
    ctxt = reserve_context.RequestContext(
        user_id='alice', project_id='project-a', auth_token='tok-123',
        roles=['member'], all_projects=False)
    sent = rpc.RequestContextSerializer().serialize_context(ctxt)
    assert 'tok-123' not in json.dumps(sent)
    assert not set(sent) & set(secrets.SECRET_CONTEXT_KEYS)
    received = rpc.RequestContextSerializer().deserialize_context(sent)
    assert (received.user_id, received.project_id, received.roles,
            received.auth_token) == ('alice', 'project-a', ['member'], None)


@pytest.mark.parametrize('error,public', [
    (exception.CloudError(service='nova', reason='http://10.0.0.5:8774 '
                          'said no'),
     'a call to nova failed (the operators have the details)'),
    (exception.CloudNotConfigured(service='placement',
                                  reason='no endpoint http://x'),
     'placement is not configured here: set the [placement] options of '
     'reserve.conf'),
    (virt_exception.VirtError(uri='qemu+ssh://root@10.0.0.9/system',
                              reason='open: no route'),
     'a libvirt call on a GPU host failed (the operators have the '
     'details)'),
    (exception.QuotaUnavailable(reason='keystone http://k:5000 down'),
     'Quota limits cannot be read from keystone now; try again later.'),
    (exception.ServerDeletionTimeout(servers='s1', flavor='f', timeout=60),
     'Servers s1 of flavor f were still there 60 s after their deletion '
     'was asked.'),
    (exception.BookingNotFound(id='b1'), 'Reservation b1 could not be '
                                         'found.'),
    (RuntimeError('(pymysql.err.OperationalError) [SQL: SELECT 1]'),
     'internal error, request id req-1'),
])
def test_members_read_reserves_own_words(error, public):
    assert exception.public_message(error, 'req-1') == public


@pytest.mark.parametrize('text,logged', [
    ('/v1/reservations', '/v1/reservations'),
    ('/v1/x\r\nINFO forged line', '/v1/x\\x0d\\x0aINFO forged line'),
    ('/v1/\x1b[2J', '/v1/\\x1b[2J'),
    ('/v1/"quoted"\\', '/v1/\\"quoted\\"\\\\'),
    ('/v1/\u00e9\u2028', '/v1/\\xe9\\u2028'),
])
def test_log_text_is_escaped(text, logged):
    assert api_cmd.printable(text) == logged
