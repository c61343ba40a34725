"""A lease's events, and managers taking them to run.

Same conventions as reserve.db.api, whose transaction context
this module uses: every function takes a RequestContext first and
joins the transaction the caller may have open on it.
"""
from oslo_db import api as oslo_db_api
import sqlalchemy as sa
from sqlalchemy import orm

from reserve.common import states
from reserve.db import api as db_api
from reserve.db import models


def _lifecycle_order(event):
    """Within one lease, events at the same instant run in this order."""
    return sa.case({states.Event.START: 0, states.Event.BEFORE_END: 1,
                    states.Event.END: 2},
                   value=event.event_type, else_=3)


MANAGER_BINARY = 'reserve-manager'


def _gone(binary, host_column, since):
    """``binary`` on the host named by ``host_column`` (a taken_by
    column) has not beaten since ``since`` (reserve.db.services). A
    taker with no heartbeat row at all (a daemon of a release without
    heartbeats, during an upgrade) is not taken for gone."""
    S = models.Service
    return sa.exists().where(S.binary == binary, S.host == host_column,
                             S.heartbeat_at < since)


# InnoDB may pick a taker as a deadlock victim: the take is a
# transaction of its own, so running it again is safe.
@oslo_db_api.wrap_db_retry(max_retries=5, retry_on_deadlock=True)
def event_take_due(context, now, taker, stuck_before, retry_before,
                   max_attempts, alive_since=None, limit=50):
    """Take the events due now, each at most once across managers.

    An event is due when it is UNDONE and its time has come, when it is
    IN_PROGRESS but its manager is gone (its last heartbeat is older
    than ``alive_since``) or hung (it took the event before
    ``stuck_before``), or when it failed before ``retry_before`` with
    attempts left. Only the
    earliest unfinished event of each lease is eligible, so a lease's own
    events always run in order. An event taken ``max_attempts`` times is
    left for an operator.

    Rows are locked with FOR UPDATE SKIP LOCKED where the database has it,
    and each take is a compare-and-swap on the status, so that SQLite (no
    row locks) is safe as well.
    """
    e = models.Event
    due = sa.or_(
        sa.and_(e.status == states.Event.UNDONE, e.time <= now),
        sa.and_(e.status == states.Event.IN_PROGRESS,
                e.attempts < max_attempts,
                sa.or_(e.taken_at < stuck_before,
                       sa.false() if alive_since is None else
                       _gone(MANAGER_BINARY, e.taken_by, alive_since))),
        sa.and_(e.status == states.Event.ERROR,
                e.attempts < max_attempts,
                e.updated_at < retry_before))
    earlier = orm.aliased(models.Event)
    blocked = sa.exists().where(
        earlier.lease_id == e.lease_id,
        earlier.id != e.id,
        earlier.status != states.Event.DONE,
        sa.or_(earlier.time < e.time,
               sa.and_(earlier.time == e.time,
                       _lifecycle_order(earlier) < _lifecycle_order(e))))
    with db_api.reader.using(context) as session:
        # Most looks find nothing due: they are answered by a read, not a
        # writer transaction (on SQLite, the database's write lock).
        if session.query(e.id).filter(due, ~blocked).first() is None:
            return []
    taken = []
    with db_api.writer.using(context) as session:
        if session.bind.dialect.name == 'sqlite':
            # Take SQLite's write lock before reading, so that a concurrent
            # taker waits for it instead of failing with "locked".
            session.execute(sa.update(e).where(sa.false())
                            .values(status=e.status))
        # At the same instant, the ends of some leases before the starts
        # of others (states.Event.PRIORITY), so that what is handed over
        # is given back first, whatever the limit cuts off.
        priority = sa.case(states.Event.PRIORITY, value=e.event_type,
                           else_=len(states.Event.PRIORITY))
        candidates = (session.query(e).filter(due, ~blocked)
                      .order_by(e.time, priority).limit(limit)
                      .with_for_update(skip_locked=True).all())
        for event in candidates:
            won = (session.query(e)
                   .filter(e.id == event.id, e.status == event.status,
                           e.attempts == event.attempts)
                   .update({'status': states.Event.IN_PROGRESS,
                            'taken_by': taker, 'taken_at': now,
                            'attempts': e.attempts + 1,
                            'updated_at': now},
                           synchronize_session=False))
            if won:
                taken.append(event.id)
    if not taken:
        return []
    with db_api.reader.using(context) as session:
        return (session.query(e).filter(e.id.in_(taken)).all())


def event_hand_back(context, taker, taken_before):
    """Put back the events ``taker`` left IN_PROGRESS, taken before
    ``taken_before``: a manager starting under the same host name takes
    up at once what its previous run was doing when it died, instead of
    waiting out [manager]event_timeout. Returns how many."""
    e = models.Event
    with db_api.writer.using(context) as session:
        return (session.query(e)
                .filter(e.status == states.Event.IN_PROGRESS)
                .filter(e.taken_by == taker)
                .filter(e.taken_at < taken_before)
                .update({'status': states.Event.UNDONE,
                         'taken_by': None, 'taken_at': None,
                         'last_error': 'taken back: its manager stopped '
                                       'while running it'},
                        synchronize_session=False))


def event_create(context, lease_id, values):
    """Add an event to a lease (its first ones come with lease_create)."""
    with db_api.writer.using(context) as session:
        event = models.Event(lease_id=lease_id, **values)
        session.add(event)
        session.flush()
        return event


def event_update(context, event_id, values):
    with db_api.writer.using(context) as session:
        values = dict(values, updated_at=models._now())
        (session.query(models.Event).filter_by(id=event_id)
         .update(values, synchronize_session=False))


def end_status(context, lease_id):
    """The status of a lease's end_lease event; None when there is no
    such lease."""
    e = models.Event
    with db_api.reader.connection.using(context) as connection:
        return connection.execute(
            sa.select(e.status).where(e.lease_id == lease_id,
                                      e.event_type == states.Event.END)
        ).scalar()


def events_end_now(context, lease_id, now):
    """A deleted lease's events: its end_lease due ``now`` (unless it
    is running or done), its other unfinished ones skipped (one running
    finishes first: a lease's events run in order)."""
    e = models.Event
    with db_api.writer.using(context) as session:
        (session.query(e)
         .filter(e.lease_id == lease_id, e.event_type == states.Event.END,
                 e.status.notin_((states.Event.IN_PROGRESS,
                                  states.Event.DONE)))
         .update({'time': now, 'status': states.Event.UNDONE,
                  'attempts': 0, 'updated_at': models._now()},
                 synchronize_session=False))
        (session.query(e)
         .filter(e.lease_id == lease_id, e.event_type != states.Event.END,
                 e.status.notin_((states.Event.IN_PROGRESS,
                                  states.Event.DONE)))
         .update({'status': states.Event.DONE,
                  'last_error': 'skipped: the lease was deleted',
                  'updated_at': models._now()},
                 synchronize_session=False))


def event_next_time(context, after):
    """When the earliest UNDONE event after ``after`` is due, or None."""
    with db_api.reader.using(context) as session:
        return (session.query(sa.func.min(models.Event.time))
                .filter(models.Event.status == states.Event.UNDONE)
                .filter(models.Event.time > after)
                .scalar())
