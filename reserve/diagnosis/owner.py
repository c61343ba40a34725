"""The first layer: the booking or device reservation that owns the
lease, against what its lease says it should show."""
from reserve.common import states
from reserve.devices import runs as device_runs
from reserve.devices import states as device_states
from reserve.diagnosis import findings
from reserve.diagnosis import lease as lease_layers

Booking = states.Booking
Device = device_states.DeviceReservation
Lease = states.Lease

# What the owner shows once its lease is in a status (None: anything).
_BOOKING_FOLLOWS = {
    Lease.PENDING: (Booking.ALLOCATED,),
    Lease.STARTING: (Booking.ALLOCATED,),
    Lease.ACTIVE: (Booking.ACTIVE,),
    Lease.TERMINATING: (Booking.ACTIVE, Booking.ALLOCATED),
    Lease.TERMINATED: (Booking.COMPLETE, Booking.ERROR),
}
_DEVICE_FOLLOWS = {
    Lease.PENDING: (Device.PENDING, Device.NEEDS_REVIEW),
    Lease.STARTING: (Device.PENDING, Device.NEEDS_REVIEW),
    Lease.ACTIVE: (Device.ACTIVE, Device.NEEDS_REVIEW),
    Lease.TERMINATED: (Device.EXPIRED, Device.CANCELLED),
}


def _not_consumed(what, row, since):
    return findings.problem(
        '%s %s has waited for its lease since %s, longer than [worker] '
        'pending_create_timeout' % (what, row.id, findings.date(since)),
        findings.CAST_NOT_CONSUMED, findings.BY_RESERVE,
        'the worker\'s reconciler casts its creation again; if it stays '
        'without a lease, check that reserve-worker and reserve-manager '
        'run and reach the message bus')


def _not_followed(what, row, lease):
    return findings.problem(
        'lease %s is %s but %s %s is still %s' % (
            lease.id, lease.status, what, row.id, row.status),
        findings.STATUS_NOT_FOLLOWED, findings.BY_OPERATOR,
        'the lease manager moves the two in one transaction: look for '
        'its errors in reserve-manager\'s log around the lease\'s last '
        'event, then diagnose again')


def _layer(what, row, lease, live, follows, now, failed, extra=(),
           awaiting=(), due_at=lambda row: None):
    """(the layer, the problem of a missing lease or None). ``awaiting``:
    the live statuses in which a row may wait for its lease;
    ``due_at(row)``: when its lease falls due (None: at once). It has
    waited since its last touch (a cast of its creation) or since then,
    whichever is later."""
    found = {'id': row.id, 'status': row.status,
             'status_reason': row.status_reason,
             'updated_at': findings.date(row.updated_at),
             'lease_id': lease.id if lease else None}
    expected = {'status': list(follows.get(lease.status, ()))
                if lease else None,
                'lease': 'present' if row.status in live else 'any'}
    problems = list(extra)
    missing = None
    if lease is None and row.status in live:
        if row.status not in awaiting:
            missing = findings.problem(
                '%s %s is %s but its lease is gone' % (what, row.id,
                                                       row.status),
                findings.STATUS_NOT_FOLLOWED, findings.BY_OPERATOR,
                'nothing will start or end it: cancel it (its capacity is '
                'released) and book again')
            problems.append(missing)
        else:
            due = due_at(row)
            since = row.updated_at if due is None else max(row.updated_at,
                                                           due)
            if due is not None and due > now:
                expected['lease'] = 'from %s' % findings.date(due)
            elif lease_layers.stale(since, now):
                missing = _not_consumed(what, row, since)
                problems.append(missing)
        expected['status'] = list(live)
    elif lease is not None and lease.status in follows and \
            row.status not in follows[lease.status]:
        problems.append(_not_followed(what, row, lease))
    if row.status_reason and failed(row):
        problems.append(findings.problem(
            '%s %s is %s: %s' % (what, row.id, row.status,
                                 row.status_reason),
            findings.STATUS_REASON, findings.BY_OPERATOR,
            'read the reason: not enough hosts is the capacity of the '
            'flavor\'s hosts; an authentication error is the service '
            'user\'s credentials or roles'))
    return findings.layer('booking', expected, found, problems), missing


def booking_layer(booking, lease, now):
    return _layer('booking', booking, lease, Booking.LIVE,
                  _BOOKING_FOLLOWS, now,
                  lambda row: row.status == Booking.ERROR,
                  awaiting=(Booking.PENDING_CREATE,))


def device_layer(reservation, lease, now):
    extra = []
    if reservation.status == Device.NEEDS_REVIEW:
        extra.append(findings.problem(
            'device reservation %s needs review: the GPU topology of its '
            'host changed, and it grants nothing until re-affirmed' %
            reservation.id, findings.STATUS_REASON, findings.BY_OPERATOR,
            'check the host\'s GPUs (openstack reserve device list '
            '--host), then affirm it (openstack reserve device '
            'reservation affirm)'))
    # Refused by the lease manager (a cancel of its project is the
    # desk's close, and no failure).
    return _layer('device reservation', reservation, lease, Device.LIVE,
                  _DEVICE_FOLLOWS, now,
                  lambda row: row.closed_as is None and
                  row.recorded_status == Device.CANCELLED, extra,
                  awaiting=(Device.PENDING, Device.NEEDS_REVIEW),
                  due_at=lambda row: device_runs.lease_due_at(row.start))
