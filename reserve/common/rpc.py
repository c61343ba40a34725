"""oslo.messaging plumbing: transports, RPC clients and servers, notifier."""
import datetime

from oslo_config import cfg
import oslo_messaging as messaging
from oslo_messaging.rpc import dispatcher

from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import memory_bus
from reserve.common import secrets
from reserve.common import timeutils

CONF = cfg.CONF

WORKER_TOPIC = 'reserve-worker'
MANAGER_TOPIC = 'reserve-manager'
# Our exceptions cross RPC as themselves, with their HTTP status.
ALLOWED_EXMODS = ['reserve.common.exception']

_TRANSPORT = None
_NOTIFICATION_TRANSPORT = None

# A datetime crosses the bus as {DATETIME_TAG: ISO 8601 text}: naive UTC
# to the microsecond (reserve.common.timeutils), read back as a datetime.
DATETIME_TAG = '__datetime__'


def encode_dates(entity):
    """``entity`` with every datetime, at any depth of its dicts, lists
    and tuples, replaced by its tagged text (an aware one converted to
    naive UTC first)."""
    if isinstance(entity, datetime.datetime):
        return {DATETIME_TAG: timeutils.naive_utc(entity).isoformat(
            timespec='microseconds')}
    if isinstance(entity, dict):
        return {key: encode_dates(value) for key, value in entity.items()}
    if isinstance(entity, (list, tuple)):
        return [encode_dates(value) for value in entity]
    return entity


def decode_dates(entity):
    """What encode_dates sent, its datetimes datetimes again."""
    if isinstance(entity, dict):
        if entity.keys() == {DATETIME_TAG}:
            return datetime.datetime.fromisoformat(entity[DATETIME_TAG])
        return {key: decode_dates(value) for key, value in entity.items()}
    if isinstance(entity, list):
        return [decode_dates(value) for value in entity]
    return entity


class RequestContextSerializer(messaging.Serializer):
    """Carries RequestContext over the wire; payloads are JSON whose
    datetimes travel tagged (encode_dates), so that each side of a call
    sends and receives datetime objects.

    The context goes without its credentials (secrets.public_context):
    casts and notifications are read by every daemon and listener of the
    shared topics, and none of them acts with the caller's token."""

    def __init__(self):
        self._base = messaging.JsonPayloadSerializer()

    def serialize_entity(self, ctxt, entity):
        return self._base.serialize_entity(ctxt, encode_dates(entity))

    def deserialize_entity(self, ctxt, entity):
        return decode_dates(self._base.deserialize_entity(ctxt, entity))

    def serialize_context(self, ctxt):
        return secrets.public_context(ctxt.to_dict())

    def deserialize_context(self, ctxt):
        return reserve_context.RequestContext.from_dict(ctxt)


def init(conf=CONF):
    global _TRANSPORT, _NOTIFICATION_TRANSPORT
    if (conf.transport_url or '').startswith('kombu+memory:'):
        memory_bus.configure(conf)
        memory_bus.install()
    if _TRANSPORT is None:
        _TRANSPORT = messaging.get_rpc_transport(
            conf, allowed_remote_exmods=ALLOWED_EXMODS)
    if _NOTIFICATION_TRANSPORT is None:
        _NOTIFICATION_TRANSPORT = messaging.get_notification_transport(
            conf, allowed_remote_exmods=ALLOWED_EXMODS)


def cleanup():
    global _TRANSPORT, _NOTIFICATION_TRANSPORT
    for transport in (_TRANSPORT, _NOTIFICATION_TRANSPORT):
        if transport is not None:
            transport.cleanup()
    _TRANSPORT = _NOTIFICATION_TRANSPORT = None


def get_transport():
    init()
    return _TRANSPORT


def get_notification_transport():
    init()
    return _NOTIFICATION_TRANSPORT


def get_client(topic, version, timeout=None, version_cap=None):
    """An RPC client of ``topic``; ``version_cap`` ([upgrade_levels]) is
    the newest version it may send while older daemons still run."""
    target = messaging.Target(topic=topic, version=version)
    return messaging.get_rpc_client(get_transport(), target,
                                    serializer=RequestContextSerializer(),
                                    timeout=timeout,
                                    version_cap=version_cap)


def prepare(client, group, method, version):
    """``client`` prepared to send ``method`` at ``version``; refused
    with RPCVersionCapped when [upgrade_levels] ``group`` (manager,
    worker) caps messages below it, as while older daemons still run."""
    if not client.can_send_version(version):
        raise exception.RPCVersionCapped(
            topic='reserve-%s' % group, method=method, version=version,
            group=group, cap=CONF.upgrade_levels[group])
    return client.prepare(version=version)


def get_server(topic, version, endpoints):
    target = messaging.Target(topic=topic, server=CONF.host, version=version)
    return messaging.get_rpc_server(
        get_transport(), target, [_AnswersErrors(e) for e in endpoints],
        executor='threading',
        serializer=RequestContextSerializer(),
        access_policy=dispatcher.DefaultRPCAccessPolicy)


def get_notifier(publisher_id):
    # Lease notifications drive the notification daemon: they are part of
    # the service, not optional telemetry, so the driver is fixed here.
    return messaging.Notifier(get_notification_transport(),
                              publisher_id=publisher_id,
                              driver='messagingv2',
                              topics=CONF.notification.topics,
                              serializer=RequestContextSerializer())


def get_notification_listener(endpoints, pool=None):
    targets = [messaging.Target(topic=topic)
               for topic in CONF.notification.topics]
    return messaging.get_notification_listener(
        get_notification_transport(), targets, endpoints,
        executor='threading', serializer=RequestContextSerializer(),
        pool=pool)


# reserve's own errors (the caller's bad input, no capacity, a cloud that
# failed) are answers, not crashes: declared expected, oslo.messaging
# logs them in one line instead of "Exception during message handling"
# and a traceback. The caller gets them the same way.
_expected = messaging.expected_exceptions(exception.ReserveException)


class _AnswersErrors:
    """An endpoint as the RPC server sees it: each public method declares
    reserve's errors expected. The endpoint itself is unchanged for
    in-process callers."""

    def __init__(self, endpoint):
        self._endpoint = endpoint
        self.target = getattr(endpoint, 'target', None)

    def __getattr__(self, name):
        found = getattr(self._endpoint, name)
        if name.startswith('_') or not callable(found):
            return found
        return _expected(found)
