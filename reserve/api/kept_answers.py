"""Answers to the lists dashboards poll, kept until the data changes.

A dashboard asks for the same list every few seconds, and most of the
time nothing has changed: the answer is made again from the same rows.
On a SQLite file database (the all-in-one) SQLite says cheaply whether
anything changed: ``PRAGMA data_version``, asked on a connection that
never writes, changes whenever another connection, of this process or
of any other (the worker, the manager, reserve-manage, other API
processes), has committed. An answer is kept under the data version read
before it was made, so a commit made while it was being made only costs
one more miss; a caller who has just written reads what it wrote.
Requests that miss the same answer together (every poller, just after a
commit) wait for the first of them to make it, rather than each making
it again.

An answer is also kept at most until the clock's second turns, so what
follows from time alone (a booking that starts, what is available now),
a policy file edited or a token's roles changed is at most a second
behind. Only 200 answers to GET on ``KEPT_PATHS`` are kept, under
everything that may change them: the path and query (where it counts),
and every request
header but those that differ from request to request (the token itself
is not kept: keystonemiddleware, outside, has checked it and set the
identity headers that are). Other databases have no such cheap signal,
so with them nothing is kept.
"""
import collections
import os
import sqlite3
import threading

from oslo_log import log as logging
from oslo_utils import timeutils

from reserve.db import api as db_api

LOG = logging.getLogger(__name__)

# The lists and counts dashboards poll, each read from the database
# alone, without side effects; and whether the query changes the answer.
# The flavor exporter's URLs (reserve.api.flavor_exporter) ignore theirs,
# so a dashboard's cache-busting parameter is not a new answer.
KEPT_PATHS = {'/v1/reservations': True, '/v1/device-reservations': True,
              '/v1/flavors/availability': True, '/gpus/flavors': False,
              '/v2/flavors': False}
# A larger answer is made anew each time (a 100-row device-reservation
# list is about 150 KiB); all those kept hold at most KEPT_BYTES.
MAX_BODY_BYTES = 2 * 1024 * 1024
KEPT_BYTES = 32 * 1024 * 1024
# The longest a request waits for another making its answer, then makes
# it itself.
MAKING_WAIT_SECONDS = 10
# Request headers that do not change the answer: kept out of the key.
_UNKEYED_HEADERS = frozenset((
    'HTTP_X_AUTH_TOKEN', 'HTTP_X_SERVICE_TOKEN',
    'HTTP_X_OPENSTACK_REQUEST_ID', 'HTTP_USER_AGENT', 'HTTP_CONNECTION',
    'HTTP_KEEP_ALIVE', 'HTTP_ACCEPT_ENCODING', 'HTTP_CACHE_CONTROL',
    'HTTP_PRAGMA'))

# stamp: (data version, second) when the answer began to be made.
_Answer = collections.namedtuple('_Answer', 'stamp status headers body')
# An answer being made, and its end.
_Making = collections.namedtuple('_Making', 'stamp done')


class DataVersion:
    """SQLite's data version of a database file, read on a connection of
    this process's own that never writes (opened again after a fork)."""

    def __init__(self, path):
        self.path = path
        self._lock = threading.Lock()
        self._pid = None
        self._connection = None

    def read(self):
        with self._lock:
            if self._pid != os.getpid():
                # Autocommit: no transaction is ever left open on it.
                self._connection = sqlite3.connect(
                    self.path, check_same_thread=False,
                    isolation_level=None)
                self._pid = os.getpid()
            return self._connection.execute(
                'PRAGMA data_version').fetchone()[0]


def sqlite_file():
    """The path of the database when it is a SQLite file, else None."""
    url = db_api.get_engine().url
    if url.get_backend_name() != 'sqlite':
        return None
    path = url.database
    if (not path or path == ':memory:' or path.startswith('file:') or
            not os.path.exists(path)):
        return None
    return path


def _key(environ, path):
    return (environ.get('SCRIPT_NAME', ''), environ.get('PATH_INFO', ''),
            environ.get('QUERY_STRING', '') if KEPT_PATHS[path] else '',
            environ.get('wsgi.url_scheme'),
            tuple(sorted(item for item in environ.items()
                         if item[0].startswith('HTTP_') and
                         item[0] not in _UNKEYED_HEADERS)))


class KeptAnswers:
    """WSGI middleware, just inside authentication (see the module)."""

    def __init__(self, application, size, data=None):
        self.application = application
        self.size = size
        self._answers = collections.OrderedDict()
        self._bytes = 0
        self._making = {}  # key: _Making
        self._lock = threading.Lock()
        # The database's DataVersion, looked up at the first request
        # (the database is configured by then) unless given.
        self._data = data
        self._looked = data is not None
        self._unreadable = False

    def _data_version(self):
        if not self._looked:
            path = sqlite_file()
            self._data = DataVersion(path) if path else None
            self._looked = True
            LOG.debug('Answers to %s are %s', ', '.join(sorted(KEPT_PATHS)),
                      'kept until %s changes' % path if path else
                      'made anew each time (not a SQLite file database)')
        if self._data is None:
            return None
        try:
            version = self._data.read()
        except sqlite3.Error as exc:
            # Answers are made anew; the database's own error, if it
            # has one, comes from the request's reads. Said once.
            if not self._unreadable:
                LOG.warning('Cannot read the data version of %s, answers '
                            'are made anew until it can be: %s',
                            self._data.path, exc)
            self._unreadable = True
            return None
        self._unreadable = False
        return version

    def __call__(self, environ, start_response):
        path = environ.get('PATH_INFO', '').rstrip('/')
        if (not self.size or environ.get('REQUEST_METHOD') != 'GET' or
                path not in KEPT_PATHS):
            return self.application(environ, start_response)
        # Read before the answer is made: a commit while it is made
        # leaves it kept under a version that is already past.
        version = self._data_version()
        if version is None:
            return self.application(environ, start_response)
        stamp = (version, timeutils.utcnow().replace(microsecond=0))
        key = _key(environ, path)
        with self._lock:
            kept = self._kept(key, stamp)
            other = self._making.get(key)
            ours = None
            if kept is None and (other is None or other.stamp != stamp):
                ours = self._making[key] = _Making(stamp, threading.Event())
        if kept is None and ours is None:
            # Another request is making this very answer (a commit has
            # just made every poller miss): wait for it rather than make
            # it again.
            other.done.wait(MAKING_WAIT_SECONDS)
            with self._lock:
                kept = self._kept(key, stamp)
        if kept is not None:
            start_response(kept.status, list(kept.headers))
            return [kept.body]
        if ours is None:
            # The other's answer was not kept (not a 200, too large, too
            # slow): this request makes its own.
            return self._make(environ, start_response, key, stamp)
        try:
            return self._make(environ, start_response, key, stamp)
        finally:
            with self._lock:
                if self._making.get(key) is ours:
                    del self._making[key]
            ours.done.set()

    def _kept(self, key, stamp):
        """The answer kept for ``key`` if still good at ``stamp``; under
        the lock."""
        kept = self._answers.get(key)
        return kept if kept is not None and kept.stamp == stamp else None

    def _make(self, environ, start_response, key, stamp):
        made = {}

        def capture(status, headers, exc_info=None):
            made['status'], made['headers'] = status, list(headers)
            return start_response(status, headers, exc_info)

        answer = self.application(environ, capture)
        try:
            body = b''.join(answer)
        finally:
            if hasattr(answer, 'close'):
                answer.close()
        if made.get('status', '').startswith('200 ') and \
                len(body) <= MAX_BODY_BYTES:
            self._keep(key, _Answer(stamp, made['status'],
                                    tuple(made['headers']), body))
        return [body]

    def _keep(self, key, answer):
        with self._lock:
            replaced = self._answers.pop(key, None)
            if replaced is not None:
                self._bytes -= len(replaced.body)
            self._answers[key] = answer
            self._bytes += len(answer.body)
            # The least recently made are dropped first.
            while (len(self._answers) > self.size or
                   self._bytes > KEPT_BYTES):
                _key, dropped = self._answers.popitem(last=False)
                self._bytes -= len(dropped.body)
