"""What a diagnosis is made of: layers, problems and the symptom codes.

A diagnosis walks the layers of one reservation in order (its owner,
the lease and its events, then what the cloud holds of it) and says of
each what it should hold (from the database), what it holds (read live)
and what is wrong with it. It is a plain dict, since it crosses RPC:
``reservation_id``, ``kind``, ``checked_at``, ``layers`` and
``mismatch`` (the first problem of the first layer that is not ok, with
its ``layer``; None when every layer agrees).
"""
from oslo_log import log as logging

from reserve.common import exception
from reserve.common import timeutils

LOG = logging.getLogger(__name__)

# The kinds of reservation a diagnosis is of.
RESERVATION = 'reservation'
DEVICE_RESERVATION = 'device_reservation'
KINDS = (RESERVATION, DEVICE_RESERVATION)

# The layers, in the order a diagnosis walks them.
LAYERS = ('booking', 'lease', 'events', 'flavor', 'aggregate', 'providers',
          'servers', 'host', 'domains')

# Symptoms: the six of the operators' playbook, then drift and servers
# that do not belong.
CAST_NOT_CONSUMED = 'cast_not_consumed'
STATUS_REASON = 'status_reason'
EVENTS_OVERDUE = 'events_overdue'
STATUS_NOT_FOLLOWED = 'status_not_followed'
HOST_FAILED = 'host_failed'
UNKNOWN_LEASE = 'unknown_lease'
LEFTOVERS = 'leftovers'
DRIFT = 'drift'
FOREIGN_SERVER = 'foreign_server'
SYMPTOMS = (CAST_NOT_CONSUMED, STATUS_REASON, EVENTS_OVERDUE,
            STATUS_NOT_FOLLOWED, HOST_FAILED, UNKNOWN_LEASE, LEFTOVERS,
            DRIFT, FOREIGN_SERVER)

# Who puts a problem right.
BY_RESERVE = 'reserve'
BY_OPERATOR = 'operator'
REPAIRS = (BY_RESERVE, BY_OPERATOR)


def problem(text, symptom, repair, action):
    if symptom not in SYMPTOMS or repair not in REPAIRS:
        raise ValueError((symptom, repair))
    return {'problem': text, 'symptom': symptom, 'repair': repair,
            'action': action}


def advise(text, symptom, reserve_repairs, reserve_action, operator_action):
    """A problem reserve puts right when ``reserve_repairs`` holds (the
    task that repairs it is on, say), with ``reserve_action``; the
    operator's otherwise, with ``operator_action``."""
    if reserve_repairs:
        return problem(text, symptom, BY_RESERVE, reserve_action)
    return problem(text, symptom, BY_OPERATOR, operator_action)


def layer(name, expected, found, problems=()):
    if name not in LAYERS:
        raise ValueError(name)
    problems = list(problems)
    return {'layer': name, 'expected': expected, 'found': found,
            'ok': not problems, 'problems': problems}


def first_mismatch(layers):
    for item in layers:
        if not item['ok']:
            return dict(item['problems'][0], layer=item['layer'])
    return None


def diagnosis(kind, reservation_id, layers):
    return {'reservation_id': reservation_id, 'kind': kind,
            'checked_at': timeutils.isoformat(timeutils.utcnow()),
            'layers': layers, 'mismatch': first_mismatch(layers)}


def date(value):
    return timeutils.isoformat(value)


class Unreadable(Exception):
    """A cloud read that failed, in words for the diagnosis."""


def read(what, func, *args, **kwargs):
    """``func(*args, **kwargs)``; any failure becomes Unreadable saying
    what could not be read (a diagnosis never fails on the cloud)."""
    try:
        return func(*args, **kwargs)
    except exception.ReserveException as exc:
        raise Unreadable('%s could not be read: %s' % (what, exc.message))
    except Exception as exc:  # noqa: BLE001 - any client or transport error
        LOG.warning('Diagnosis: reading %s failed: %s', what, exc)
        raise Unreadable('%s could not be read: %s' % (
            what, type(exc).__name__))


def unreadable_layer(name, expected, error):
    """A layer whose cloud read failed: its found is the error."""
    return layer(name, expected, {'error': str(error)}, [problem(
        str(error), HOST_FAILED if name == 'host' else DRIFT, BY_OPERATOR,
        'check that the service answers the lease manager (its endpoint '
        'and credentials in reserve.conf), then diagnose again')])
