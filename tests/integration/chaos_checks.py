"""The invariants a chaos run (tests/integration/chaos.py) checks in the
database and the managers' logs, and the lateness of the events."""
import collections
import datetime
import math
import re

import sqlalchemy as sa


def _utcnow():
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


# Built, not written as text: "end" is a reserved word in PostgreSQL,
# which SQLAlchemy quotes on each backend.
_ALLOCATIONS = sa.table(
    'allocations', sa.column('host_id'), sa.column('start', sa.DateTime),
    sa.column('end', sa.DateTime),
    *(sa.column(name)
      for name in ('amount', 'vcpus', 'memory_mb', 'disk_gb')))


def overbooked_now(engine):
    """Hosts whose allocations hold more than their capacity at some instant
    from now on, as 'host: resource used/capacity' lines."""
    with engine.connect() as conn:
        hosts = {row.id: row for row in conn.execute(sa.text(
            "SELECT id, name, vcpus, memory_mb, local_gb FROM hosts "
            "WHERE kind = 'nova'"))}
        allocations = collections.defaultdict(list)
        for row in conn.execute(sa.select(_ALLOCATIONS).where(
                _ALLOCATIONS.c.end > _utcnow())):
            allocations[row.host_id].append(row)
    found = []
    for host_id, rows in allocations.items():
        host = hosts.get(host_id)
        if host is None:
            continue
        changes = []
        for r in rows:
            use = (r.vcpus * r.amount, r.memory_mb * r.amount,
                   r.disk_gb * r.amount)
            changes.append((r.start, 1, use))
            changes.append((r.end, 0, use))
        used = [0, 0, 0]
        capacity = (host.vcpus, host.memory_mb, host.local_gb)
        for _, rising, use in sorted(changes, key=lambda c: c[:2]):
            sign = 1 if rising else -1
            used = [u + sign * x for u, x in zip(used, use)]
            over = [i for i in range(3) if used[i] > (capacity[i] or 0)]
            if rising and over:
                found.append('%s: %s' % (host.name, used))
                break
    return found


def events_run_twice(daemons):
    """Events the managers' logs show finished more than once."""
    finished = collections.Counter()
    for name in ('manager', 'manager-b'):
        try:
            text = daemons.logs(name)
        except OSError:
            continue
        finished.update(re.findall(r'Finished \w+ of lease \S+ \(event '
                                   r'([0-9a-f-]+)\)', text))
    return sum(1 for n in finished.values() if n > 1)


def leases_not_ended(engine, project):
    """The project's leases that are neither TERMINATED nor gone (a
    cancelled booking's lease goes once its teardown is over), as
    'lease id: status' lines."""
    with engine.connect() as conn:
        return ['%s: %s' % (row.id, row.status) for row in conn.execute(
            sa.text("SELECT id, status FROM leases WHERE project_id = "
                    ":project AND status != 'TERMINATED'"),
            {'project': project})]


def _percentiles(values):
    if not values:
        return None
    ordered = sorted(values)

    def rank(pct):
        return ordered[max(0, math.ceil(pct / 100.0 * len(ordered)) - 1)]
    return round(rank(50), 1), round(rank(99), 1), round(ordered[-1], 1)


def event_lateness(engine, project):
    """{event type: (p50, p99, max)} of how late the finished start and
    end events of the project's bookings finished, in seconds."""
    late = collections.defaultdict(list)
    with engine.connect() as conn:
        for row in conn.execute(sa.text(
                "SELECT e.event_type, e.time, e.updated_at FROM events e "
                "JOIN leases l ON l.id = e.lease_id WHERE l.project_id = "
                ":project AND e.status = 'DONE' AND e.event_type IN "
                "('start_lease', 'end_lease')"), {'project': project}):
            late[row.event_type].append(
                (row.updated_at - row.time).total_seconds())
    return {kind: _percentiles(late[kind])
            for kind in ('start_lease', 'end_lease')}
