"""The event loop: runs start_lease, before_end_lease and end_lease.

Every ``[manager]event_interval`` seconds (or sooner when woken, or when
the next event is due sooner) the loop takes the due events and runs
them: all before_end events of the tick first, then the end events, then
the start events, so back-to-back leases on the same hosts hand over
cleanly. Takes are atomic (see db.events.event_take_due), so several
managers can share one database.
"""
import datetime
import threading

from futurist import waiters
import futurist
from oslo_config import cfg
from oslo_log import log as logging

from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import states
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import events as events_db
from reserve.db import leases as leases_db
from reserve.manager import delivery
from reserve.manager import notify
from reserve.manager import owners
from reserve import plugins

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

_NOT_DELETING = tuple(s for s in states.Lease.ALL
                      if s not in (states.Lease.DELETING,
                                   states.Lease.TERMINATED))


class EventRunner:
    """Runs one taken event and records how it went."""

    def run(self, context, event):
        handler = {states.Event.START: self._start_lease,
                   states.Event.BEFORE_END: self._before_end_lease,
                   states.Event.END: self._end_lease}[event.event_type]
        # This thread's log lines carry this event's request id, not the
        # last one the thread saw.
        context.update_store()
        LOG.info('Running %s of lease %s (attempt %d)', event.event_type,
                 event.lease_id, event.attempts)
        try:
            lease = leases_db.lease_get(context, event.lease_id)
            handler(context, lease)
        except exception.EventMustWait as exc:
            LOG.info('%s of lease %s waits: %s', event.event_type,
                     event.lease_id, exc)
            self._waits(context, event, exc)
            return False
        except exception.ReserveException as exc:
            # Expected (the cloud away or failing, a conflict): one line,
            # and the event is tried again.
            LOG.warning('%s of lease %s failed (attempt %d of %d): %s',
                        event.event_type, event.lease_id, event.attempts,
                        CONF.manager.event_max_attempts, exc)
            self._failed(context, event, exc)
            return False
        except Exception as exc:
            # Logged whole once, under the request id the lease and the
            # event then name (their fields never hold the text itself).
            db_api.log_failure(LOG, '%s of lease %s failed (request %s)' % (
                event.event_type, event.lease_id, context.request_id), exc)
            self._failed(context, event, exc)
            return False
        events_db.event_update(context, event.id,
                               {'status': states.Event.DONE,
                                'last_error': None})
        LOG.info('Finished %s of lease %s (event %s)', event.event_type,
                 event.lease_id, event.id)
        return True

    def _waits(self, context, event, exc):
        """Try it again after [manager]event_retry_interval, without
        counting this attempt."""
        said = exception.public_message(exc, context.request_id)
        events_db.event_update(context, event.id,
                               {'status': states.Event.ERROR,
                                'attempts': event.attempts - 1,
                                'last_error': said})
        leases_db.lease_update(context, event.lease_id, {
            'status_reason': '%s waits: %s' % (event.event_type, said)})

    def _failed(self, context, event, exc):
        # The lease and its events are shown to the project: reserve's own
        # words, never the exception's text (see exception.public_message).
        said = exception.public_message(exc, context.request_id)
        reason = '%s failed: %s' % (event.event_type, said)
        events_db.event_update(context, event.id,
                               {'status': states.Event.ERROR,
                                'last_error': said})
        values = {'status_reason': reason}
        gave_up = event.attempts >= CONF.manager.event_max_attempts
        # An unfinished teardown is an error for operators at once (it is
        # retried all the same; the reconciler casts the deletion of a
        # cancelled one again); a start only once retries are exhausted.
        if event.event_type == states.Event.END or gave_up:
            values['status'] = states.Lease.ERROR
        leases_db.lease_update(context, event.lease_id, values)

    @staticmethod
    def _each_reservation(context, lease, action):
        """(reservation, what the plugin's ``action`` returned) of each
        reservation not deleted, once the action is done."""
        for reservation in lease.reservations:
            if reservation.status == states.LeaseReservation.DELETED:
                continue
            plugin = plugins.get_plugin(reservation.resource_type)
            yield reservation, getattr(plugin, action)(context, lease,
                                                       reservation)

    def _start_lease(self, context, lease):
        # Compare-and-swaps: a lease deleted meanwhile stays DELETING
        # (its end, due now, takes back whatever this start gave).
        if not leases_db.lease_update(context, lease.id,
                                      {'status': states.Lease.STARTING},
                                      expected_status=_NOT_DELETING):
            return
        for reservation, _ in self._each_reservation(context, lease,
                                                     'on_start'):
            leases_db.lease_reservation_update(
                context, reservation.id,
                {'status': states.LeaseReservation.ACTIVE})
        moved = None
        with db_api.writer.using(context):
            if leases_db.lease_update(context, lease.id,
                                      {'status': states.Lease.ACTIVE,
                                       'status_reason': None},
                                      expected_status=states.Lease.STARTING):
                moved = owners.follow(context, lease, states.Lease.ACTIVE)
        owners.announce(context, moved)
        lease = leases_db.lease_get(context, lease.id)
        if lease.status == states.Lease.ACTIVE:
            delivery.usable(context, lease)
        notify.emit(context, 'lease.event.start_lease', lease)

    def _before_end_lease(self, context, lease):
        for _ in self._each_reservation(context, lease, 'before_end'):
            pass
        notify.emit(context, 'lease.event.before_end_lease', lease)

    def _end_lease(self, context, lease):
        deleting = lease.status == states.Lease.DELETING
        if not deleting and not leases_db.lease_update(
                context, lease.id, {'status': states.Lease.TERMINATING},
                expected_status=_NOT_DELETING):
            # Deleted since it was read: the row goes at the end.
            deleting = leases_db.lease_get(
                context, lease.id).status == states.Lease.DELETING
        stuck = []
        for reservation, left in self._each_reservation(context, lease,
                                                        'on_end'):
            leases_db.lease_reservation_update(
                context, reservation.id,
                {'status': states.LeaseReservation.DELETED})
            leases_db.allocations_delete(context, reservation.id)
            stuck += left or []
        if stuck:
            # Ended all the same; the repair task retries their deletion.
            delivery.stuck_servers(context, lease, stuck)
        with db_api.writer.using(context):
            leases_db.lease_update(context, lease.id,
                                   {'status': states.Lease.TERMINATED,
                                    'status_reason': None})
            moved = owners.follow(context, lease, states.Lease.TERMINATED)
        owners.announce(context, moved)
        lease = leases_db.lease_get(context, lease.id)
        notify.emit(context, 'lease.event.end_lease', lease)
        if deleting:
            leases_db.lease_destroy(context, lease.id)
            notify.emit(context, 'lease.delete', lease)


class EventLoop:
    """Polls the events table in a thread of its own.

    The loop takes no more events than it has workers free
    ([manager]event_workers), and runs each taken group in a thread of
    its own: ends first, then starts (see the module's docstring). An
    event that hangs (a cloud call waiting out its timeout) holds its own
    worker only: the loop takes more as soon as any worker is free.
    """

    def __init__(self, runner=None, alive=None):
        self.runner = runner or EventRunner()
        # alive() says whether this manager's heartbeat is fresh: while
        # it is not (the database was away when it last beat), taking
        # would hand another manager work this one is about to run.
        self._alive = alive or (lambda: True)
        self._paused = False        # said once: taking nothing
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread = None
        self._workers = CONF.manager.event_workers
        self._pool = futurist.ThreadPoolExecutor(max_workers=self._workers)
        self._lock = threading.Lock()
        self._taken = 0             # taken and not finished
        self._groups = set()        # threads running taken groups
        self._looks_at = None       # when its wait ends (None: awake)

    def wake(self, due=None):
        """Look for due events now. ``due``: when the event that prompts
        the call is due, if known (committed before the call); one due
        no sooner than the loop's next look needs nothing now."""
        with self._lock:
            if (due is not None and self._looks_at is not None and
                    due >= self._looks_at):
                return
        self._wake.set()

    def start(self):
        self.take_back()
        self._thread = threading.Thread(target=self._loop,
                                        name='reserve-event-loop',
                                        daemon=True)
        self._thread.start()

    def take_back(self):
        """What this host's previous run left IN_PROGRESS (it was killed
        mid-event) runs again now; every event is idempotent. A manager
        that died for good has its events taken over by the others once
        its heartbeat is [DEFAULT]service_down_time old."""
        context = reserve_context.get_admin_context()
        try:
            count = events_db.event_hand_back(
                context, CONF.host, timeutils.utcnow_precise())
        except Exception as exc:  # the loop's timeout takes them up
            LOG.warning('Events of a previous run not taken back: %s', exc)
            return 0
        if count:
            LOG.warning('Took back %d event(s) a previous run of this '
                        'manager (%s) left in progress', count, CONF.host)
            self.wake()
        return count

    def stop(self, timeout=30):
        """Take nothing more, finish the events running, and hand back
        any still taken (a group cut short) to the other managers."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
        for group in list(self._groups):
            group.join(timeout)
        self._pool.shutdown(wait=True)
        try:
            count = events_db.event_hand_back(
                reserve_context.get_admin_context(), CONF.host,
                timeutils.utcnow_precise())
        except Exception as exc:
            LOG.warning('Events in progress not handed back (%s): other '
                        'managers take them over after %d s', exc,
                        CONF.service_down_time)
            return
        if count:
            LOG.warning('Handed back %d event(s) in progress', count)

    def _free(self):
        with self._lock:
            return self._workers - self._taken

    def _loop(self):
        while not self._stop.is_set():
            full = False
            try:
                full = self._dispatch()
            except Exception as exc:
                db_api.log_failure(LOG, 'Event loop tick failed', exc)
            if full and self._free() > 0:
                continue  # more may be due already
            # Woken when an event finishes, a lease changes, or the next
            # event is due.
            wait = self._next_wait() if self._free() > 0 else \
                CONF.manager.event_interval
            # Set after the next event's time was read: a wake(due) that
            # finds it compares with a time read after its event was
            # written, or with none and wakes.
            with self._lock:
                self._looks_at = timeutils.utcnow_precise() + \
                    datetime.timedelta(seconds=wait)
            self._wake.wait(wait)
            with self._lock:
                self._looks_at = None
            self._wake.clear()

    def _dispatch(self):
        """Take what the free workers can run and start it in a group
        thread; True when it took as many as it could."""
        free = self._free()
        if free <= 0:
            return False
        events = self._take(free)
        if not events:
            return False
        with self._lock:
            self._taken += len(events)
        group = threading.Thread(target=self._run_group,
                                 args=(events, True),
                                 name='reserve-events', daemon=True)
        self._groups.add(group)
        group.start()
        return len(events) == free

    def _next_wait(self):
        interval = CONF.manager.event_interval
        now = timeutils.utcnow()
        try:
            due = events_db.event_next_time(
                reserve_context.get_admin_context(), after=now)
        except Exception as exc:
            db_api.log_failure(LOG, 'Cannot read the next event time', exc)
            return interval
        if due is None:
            return interval
        # Dates are stored to the second: wake just after the due second.
        until = (due - timeutils.utcnow_precise()).total_seconds()
        return max(0.05, min(interval, until + 0.05))

    def tick(self):
        """Take what is due and run it, waiting for it to finish;
        returns how many events ran."""
        events = self._take(self._workers)
        self._run_group(events)
        return len(events)

    def _take(self, limit):
        if not self._alive():
            if not self._paused:
                self._paused = True
                LOG.warning('Taking no event until this manager\'s '
                            'heartbeat (%s) is written again', CONF.host)
            return []
        if self._paused:
            LOG.info('Heartbeat written again: taking events')
            self._paused = False
        context = reserve_context.get_admin_context()
        now = timeutils.utcnow()
        return events_db.event_take_due(
            context, now, taker=CONF.host,
            stuck_before=now - datetime.timedelta(
                seconds=CONF.manager.event_timeout),
            retry_before=now - datetime.timedelta(
                seconds=CONF.manager.event_retry_interval),
            max_attempts=CONF.manager.event_max_attempts,
            alive_since=now - datetime.timedelta(
                seconds=CONF.service_down_time),
            # No more than it runs at once: what it cannot run yet, the
            # other managers can.
            limit=limit)

    def _run_group(self, events, counted=False):
        """Run taken events: before_end, then end, then start, each
        kind once the kind before it has finished."""
        try:
            for priority in sorted({states.Event.PRIORITY[e.event_type]
                                    for e in events}):
                batch = [e for e in events
                         if states.Event.PRIORITY[e.event_type] == priority]
                futures = [self._pool.submit(self._run_one, event, counted)
                           for event in batch]
                waiters.wait_for_all(futures)
        finally:
            self._groups.discard(threading.current_thread())

    def _run_one(self, event, counted):
        try:
            return self.runner.run(reserve_context.get_admin_context(),
                                   event)
        finally:
            if counted:
                with self._lock:
                    self._taken -= 1
                self.wake()     # a worker is free: take more
