"""Lease notifications (publisher reserve.manager.<host>)."""
from oslo_config import cfg

from reserve.common import rpc
from reserve.common import timeutils

CONF = cfg.CONF

_NOTIFIER = None


def _notifier():
    global _NOTIFIER
    if _NOTIFIER is None:
        _NOTIFIER = rpc.get_notifier('reserve.manager.%s' % CONF.host)
    return _NOTIFIER


def reset():
    global _NOTIFIER
    _NOTIFIER = None


def lease_payload(lease):
    return {'lease_id': lease.id, 'name': lease.name,
            'project_id': lease.project_id, 'user_id': lease.user_id,
            'start': timeutils.isoformat(lease.start),
            'end': timeutils.isoformat(lease.end),
            'status': lease.status,
            'status_reason': lease.status_reason}


def send(context, event_type, payload):
    """One notification of this manager (publisher reserve.manager.<host>)."""
    _notifier().info(context, event_type, payload)


def emit(context, event_type, lease, **extra):
    """event_type: lease.create, lease.update, lease.delete or
    lease.event.<start_lease|before_end_lease|end_lease>."""
    payload = lease_payload(lease)
    payload.update(extra)
    send(context, event_type, payload)
