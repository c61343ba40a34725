"""The lease and events layers, the same for both kinds of owner."""
import datetime

from oslo_config import cfg

from reserve.common import states
from reserve.common import timeutils
from reserve.diagnosis import findings

CONF = cfg.CONF
Lease = states.Lease
Event = states.Event


def expected_status(lease, now):
    """The status the lease's window says it has by now."""
    if now < lease.start:
        return Lease.PENDING
    if now < lease.end:
        return Lease.ACTIVE
    return Lease.TERMINATED


def lease_layer(lease, now, missing=None):
    """The lease: there and not in error. ``missing``: the problem of its
    absence (None where none is due yet, or none is due any more)."""
    if lease is None:
        return findings.layer('lease', {'exists': missing is not None},
                              {'exists': False},
                              [missing] if missing else [])
    found = {'id': lease.id, 'name': lease.name, 'status': lease.status,
             'status_reason': lease.status_reason,
             'start': findings.date(lease.start),
             'end': findings.date(lease.end)}
    expected = {'status': expected_status(lease, now),
                'status_reason': None}
    problems = []
    if lease.status == Lease.ERROR or (
            lease.status_reason and lease.status != Lease.PENDING):
        problems.append(findings.problem(
            'lease %s is %s: %s' % (lease.id, lease.status,
                                    lease.status_reason or 'no reason given'),
            findings.STATUS_REASON, findings.BY_OPERATOR,
            'read the reason; the events below say which step failed, and '
            'reserve-manager\'s log has its details under the request id '
            'it names'))
    return findings.layer('lease', expected, found, problems)


def _grace(event):
    """How late an event may run before it is overdue: a few polls of the
    event loop, and the retry interval once it has failed."""
    seconds = 3 * CONF.manager.event_interval
    if event.attempts:
        seconds += CONF.manager.event_retry_interval
    return datetime.timedelta(seconds=seconds)


def _event_problem(event, now):
    late = now - event.time
    if event.status == Event.UNDONE and late > _grace(event):
        return findings.problem(
            '%s is UNDONE %d s past its time' % (
                event.event_type, late.total_seconds()),
            findings.EVENTS_OVERDUE, findings.BY_OPERATOR,
            'no lease manager runs its events: check that reserve-manager '
            'is running and reaches the database')
    taken = event.taken_at or event.time
    if event.status == Event.IN_PROGRESS and now - taken > \
            datetime.timedelta(seconds=CONF.manager.event_timeout):
        return findings.problem(
            '%s has been IN_PROGRESS since %s, longer than [manager] '
            'event_timeout' % (event.event_type, findings.date(taken)),
            findings.EVENTS_OVERDUE, findings.BY_RESERVE,
            'another lease manager takes it over once the one holding it '
            '(%s) stops its heartbeat; check that manager' % (
                event.taken_by or 'unknown'))
    if event.status == Event.ERROR:
        return findings.advise(
            '%s failed (attempt %d of %d): %s' % (
                event.event_type, event.attempts,
                CONF.manager.event_max_attempts,
                event.last_error or 'no error recorded'),
            findings.EVENTS_OVERDUE,
            event.attempts < CONF.manager.event_max_attempts,
            'the lease manager tries it again every [manager] '
            'event_retry_interval seconds; fix what the error names',
            'fix what the error names (reserve-manager\'s log has it), '
            'then delete the reservation to run its teardown again')
    return None


def events_layer(lease, now):
    if lease is None:
        return findings.layer('events', {'events': []}, {'events': []})
    expected, found, problems = [], [], []
    for event in sorted(lease.events, key=lambda e: e.time):
        due = event.time <= now
        expected.append({'event_type': event.event_type,
                         'time': findings.date(event.time),
                         'status': Event.DONE if due else Event.UNDONE})
        found.append({'event_type': event.event_type,
                      'time': findings.date(event.time),
                      'status': event.status, 'attempts': event.attempts,
                      'taken_by': event.taken_by,
                      'last_error': event.last_error})
        found_problem = _event_problem(event, now)
        if found_problem:
            problems.append(found_problem)
    return findings.layer('events', {'events': expected},
                          {'events': found}, problems)


def started(lease):
    """Whether the lease's start ran and its end did not."""
    return lease is not None and lease.status in (Lease.ACTIVE,
                                                  Lease.TERMINATING)


def ended(lease):
    return lease is None or lease.status in (Lease.TERMINATED,
                                             Lease.DELETING)


def teardown_pending(lease):
    """Whether the lease's end_lease is still to run (or being retried)."""
    return lease is not None and any(
        e.event_type == Event.END and e.status != Event.DONE
        for e in lease.events)


def stale(updated_at, now=None):
    """Whether a row untouched since ``updated_at`` waited longer than
    [worker]pending_create_timeout for its lease."""
    now = now or timeutils.utcnow()
    return now - updated_at > datetime.timedelta(
        seconds=CONF.worker.pending_create_timeout)
