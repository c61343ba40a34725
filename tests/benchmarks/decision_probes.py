"""What a decision benchmark (bench_decision.py) counts while a decision
runs: its SQL statements, any call to a cloud (none is allowed), and
the time spent in each phase."""
import contextlib
import time
from unittest import mock

from keystoneauth1 import session as ks_session
import requests
import sqlalchemy as sa

from reserve.booking import calendar
from reserve.booking import quota
from reserve.capacity import maths
from reserve.capacity import model
from reserve.capacity import store
from reserve.common import keystone
from reserve.common import nova
from reserve.common import placement
from reserve.db import bookings as bookings_db
from reserve.db import desk
from reserve.db import flavors as flavors_db


class CloudCalled(AssertionError):
    """A decision called a cloud: the run fails."""


class Statements:
    """The statements sent on an engine, and the SELECTs among them."""

    def __init__(self, engine):
        self.engine = engine
        self.statements = self.selects = 0
        sa.event.listen(engine, 'before_cursor_execute', self._count)

    def _count(self, conn, cursor, statement, parameters, context,
               executemany):
        self.statements += 1
        if statement.lstrip()[:6].upper() == 'SELECT':
            self.selects += 1

    def close(self):
        sa.event.remove(self.engine, 'before_cursor_execute', self._count)


class Clouds:
    """Every public method (and lazy client property) of reserve's nova
    and placement clients, keystone's adapters and any HTTP request are
    counted and fail: a decision must not leave the database."""

    def __init__(self):
        self.calls = []
        self.http = []
        self._stack = contextlib.ExitStack()

    def __enter__(self):
        for cls in (nova.NovaClient, placement.PlacementClient):
            for name, attr in list(vars(cls).items()):
                if name.startswith('__'):
                    continue
                label = '%s.%s' % (cls.__name__, name)
                if isinstance(attr, property):
                    fake = property(self._refuse(self.calls, label))
                elif callable(attr):
                    fake = self._refuse(self.calls, label)
                else:
                    continue
                self._stack.enter_context(
                    mock.patch.object(cls, name, fake))
        for owner, name in ((keystone, 'get_adapter'),
                            (ks_session.Session, 'request'),
                            (requests.Session, 'request')):
            self._stack.enter_context(mock.patch.object(
                owner, name, self._refuse(self.http, '%s.%s' % (
                    getattr(owner, '__name__', owner), name))))
        return self

    def __exit__(self, *exc):
        return self._stack.__exit__(*exc)

    @staticmethod
    def _refuse(record, label):
        def refuse(*args, **kwargs):
            record.append(label)
            raise CloudCalled('a decision called %s' % label)
        return refuse


def _rows(found):
    """Rows of a {key: [rows]} answer."""
    return sum(len(rows) for rows in found.values())


# What a decision spends its time in: (owner, attribute, label, rows
# read or None, nested in an entry above). Whatever is not in one of the
# top-level entries is "rest": the transaction's begin and commit, the
# gauntlet, sizing and the ORM's own work.
PHASES = (
    (store, 'lock', 'lock', None, False),
    (flavors_db, 'flavor_lock', 'flavor lock', None, False),
    (desk, 'maintenance_in_window', 'maintenance', None, False),
    (quota, 'enforce', 'quota', None, False),
    (desk, 'project_usage', 'quota read', None, True),
    (desk, 'slots_held_at_most', 'slots by day', None, False),
    (desk, 'slot_holders', 'calendar read', len, False),
    (calendar, 'max_count', 'calendar maths', None, False),
    (store, 'hosts', 'hosts', None, False),
    (store, 'idle_hosts', 'idle hosts', len, False),
    (store, 'allocations_in_window', 'allocations read', _rows, False),
    (store, 'host_windows_in', 'host windows', None, False),
    (model.Board, 'offer', 'offer', None, False),
    (maths, 'place', 'place', None, False),
    (bookings_db, 'booking_create', 'booking write', None, False),
    (store, 'allocations_create', 'allocations write', None, False),
    (quota, 'recheck', 'recheck', None, False),
)


class Phases:
    """Time spent in (and rows read by) the steps of PHASES."""

    def __init__(self):
        self.totals = {label: [0.0, 0] for _, _, label, _, _ in PHASES}
        self._stack = contextlib.ExitStack()

    def __enter__(self):
        for owner, name, label, size, _ in PHASES:
            self._stack.enter_context(mock.patch.object(
                owner, name, self._timed(getattr(owner, name),
                                         self.totals[label], size)))
        return self

    def __exit__(self, *exc):
        return self._stack.__exit__(*exc)

    @staticmethod
    def _timed(real, entry, size):
        def timed(*args, **kwargs):
            began = time.perf_counter()
            try:
                found = real(*args, **kwargs)
            finally:
                entry[0] += time.perf_counter() - began
            if size is not None:
                entry[1] += size(found)
            return found
        return timed

    def snapshot(self):
        return {label: tuple(v) for label, v in self.totals.items()}

    @staticmethod
    def per_decision(before, after, n, total_s):
        """{label: (ms, rows)} per decision, with 'rest'."""
        found = {label: ((after[label][0] - before[label][0]) * 1000.0 / n,
                         (after[label][1] - before[label][1]) / n)
                 for label in after}
        top = sum(found[label][0] for _, _, label, _, nested in PHASES
                  if not nested)
        found['rest'] = (total_s * 1000.0 / n - top, 0)
        return found
