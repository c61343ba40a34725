"""reserve.api.kept_answers: the lists dashboards poll are answered from
memory while the SQLite database has not changed and the second has not
turned, and made anew at once after any commit, of this process or of
another; each identity gets its own answers."""
import json
import sqlite3
import subprocess
import sys
import threading
import time

from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import stateful
from hypothesis import strategies as st
from oslo_utils import timeutils
import pytest
import sqlalchemy as sa
import webtest

from reserve.api import app as api_app
from reserve.api import flavor_exporter
from reserve.api import kept_answers
from reserve.db import bookings as bookings_db
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import CONF
from tests.functional.api_fixtures import make_booking
from tests.functional.api_fixtures import make_flavor
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.fixtures import races


@pytest.fixture
def frozen():
    """The clock stopped (oslo's timeutils, whose
    ``advance_time_seconds`` moves it)."""
    timeutils.set_time_override(
        timeutils.utcnow().replace(microsecond=100))
    yield timeutils
    timeutils.clear_time_override()


def _counted(monkeypatch, module, name):
    """``module.name`` made to count its calls: one item a call in the
    list returned."""
    made = []
    real = getattr(module, name)

    def counted(*args, **kwargs):
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return made


def _database():
    """The path of the API fixture's SQLite file."""
    return CONF.database.connection[len('sqlite:///'):]


@pytest.fixture
def lists_made(monkeypatch):
    """How many times the bookings list was read from the database."""
    return _counted(monkeypatch, bookings_db, 'booking_list')


def _statuses(api, persona=MEMBER_A):
    found = api.get('/v1/reservations', headers=persona).json
    return sorted(b['status'] for b in found['reservations'])


def test_a_list_asked_again_is_answered_from_memory(api, frozen,
                                                    lists_made):
    make_booking()
    first = api.get('/v1/reservations', headers=MEMBER_A)
    again = api.get('/v1/reservations',
                    headers=dict(MEMBER_A, **{'X-Auth-Token': 'another'}))
    assert again.body == first.body
    assert len(lists_made) == 1
    # Each answer still has a request id of its own.
    assert (first.headers['x-openstack-request-id'] !=
            again.headers['x-openstack-request-id'])


def test_a_commit_of_this_process_shows_at_once(api, frozen):
    make_booking()
    assert len(_statuses(api)) == 1
    make_booking()
    assert len(_statuses(api)) == 2


def test_a_commit_of_another_process_shows_at_once(api, frozen):
    booking = make_booking()
    before = _statuses(api)
    path = _database()
    subprocess.run(
        [sys.executable, '-c',
         'import sqlite3, sys\n'
         'with sqlite3.connect(sys.argv[1]) as db:\n'
         '    db.execute("UPDATE bookings SET status = \'ERROR\' '
         'WHERE id = ?", (sys.argv[2],))\n', path, booking.id],
        check=True)
    assert _statuses(api) != before
    assert _statuses(api) == ['ERROR']


def test_the_second_turning_makes_it_anew(api, frozen, lists_made):
    make_booking()
    api.get('/v1/reservations', headers=MEMBER_A)
    frozen.advance_time_seconds(1)
    api.get('/v1/reservations', headers=MEMBER_A)
    assert len(lists_made) == 2


def test_each_identity_gets_its_own_answer(api, frozen):
    make_booking(project='project-a')
    assert len(_statuses(api, MEMBER_A)) == 1
    assert _statuses(api, MEMBER_B) == []
    assert len(_statuses(api, MEMBER_A)) == 1


def test_a_refusal_is_not_kept(api, frozen, lists_made):
    for _ in range(2):
        api.get('/v1/reservations?status=NOPE', headers=MEMBER_A,
                status=400)
    api.get('/v1/reservations', headers=MEMBER_A)
    api.get('/v1/reservations?limit=1', headers=MEMBER_A)
    assert len(lists_made) == 2


@pytest.fixture
def exporter(api):
    """The flavor exporter's URLs served without a token."""
    CONF.set_override('enabled', True, group='flavor_exporter')
    CONF.set_override('auth_required', False, group='flavor_exporter')
    yield api
    CONF.clear_override('enabled', group='flavor_exporter')
    CONF.clear_override('auth_required', group='flavor_exporter')


def test_the_exporters_urls_are_kept_whatever_their_query(
        exporter, frozen, monkeypatch):
    make_flavor('g1.a100')
    made = _counted(monkeypatch, flavor_exporter, 'answer')
    first = exporter.get('/v2/flavors/?_=1')
    again = exporter.get('/v2/flavors/?_=2')
    assert again.body == first.body
    assert len(made) == 1
    make_flavor('g2.a100')
    names = [row['flavor_name'] for row in
             exporter.get('/v2/flavors/?_=3').json['flavors']]
    assert sorted(names) == ['g1.a100', 'g2.a100']
    assert len(made) == 2


# The middleware alone, on a SQLite file of its own.

class Inner:
    """A WSGI application answering ``answers`` in turn, counted."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.calls = 0
        self._lock = threading.Lock()

    def __call__(self, environ, start_response):
        with self._lock:
            last = len(self.answers) - 1
            status, body = self.answers[min(self.calls, last)]
            self.calls += 1
        start_response(status, [('Content-Type', 'application/json')])
        return [body]


@pytest.fixture
def data(tmp_path):
    path = str(tmp_path / 'data.sqlite')
    with sqlite3.connect(path) as db:
        db.execute('CREATE TABLE t (x)')
    return path


def _ask(app, path='/v1/device-reservations', method='GET', **headers):
    environ = {'REQUEST_METHOD': method, 'PATH_INFO': path,
               'QUERY_STRING': '', 'wsgi.url_scheme': 'http'}
    environ.update({'HTTP_' + k.upper().replace('-', '_'): v
                    for k, v in headers.items()})
    answered = {}

    def start_response(status, headers, exc_info=None):
        answered['status'] = status

    body = b''.join(app(environ, start_response))
    return answered['status'], body


def _kept(inner, data, size=4):
    return kept_answers.KeptAnswers(inner, size,
                                    kept_answers.DataVersion(data))


def test_only_answers_of_200_to_get_on_the_kept_paths_are_kept(data,
                                                               frozen):
    ok = ('200 OK', b'{}')
    inner = Inner(ok)
    app = _kept(inner, data)
    for path, method in (('/v1/leases', 'GET'), ('/v1/hosts', 'GET'),
                         ('/v1/reservations', 'POST')):
        _ask(app, path, method)
        _ask(app, path, method)
    assert inner.calls == 6
    inner = Inner(('503 Service Unavailable', b'{"error": 1}'), ok)
    app = _kept(inner, data)
    assert _ask(app)[0].startswith('503')
    assert _ask(app) == ('200 OK', b'{}')
    assert _ask(app) == ('200 OK', b'{}')
    assert inner.calls == 2


def test_a_large_answer_is_made_anew(data, frozen):
    big = json.dumps(['x' * 1024] * 2100).encode()
    assert len(big) > kept_answers.MAX_BODY_BYTES
    inner = Inner(('200 OK', big))
    app = _kept(inner, data)
    _ask(app)
    _ask(app)
    assert inner.calls == 2


def test_at_most_size_answers_are_kept(data, frozen):
    inner = Inner(('200 OK', b'[]'))
    app = _kept(inner, data, size=2)
    for project in ('a', 'b', 'c', 'a'):
        _ask(app, x_project_id=project)
    # a was dropped for c, so asked again it is made anew.
    assert inner.calls == 4
    _ask(app, x_project_id='c')
    assert inner.calls == 4


def test_at_most_kept_bytes_are_kept(data, frozen, monkeypatch):
    monkeypatch.setattr(kept_answers, 'KEPT_BYTES', 250)
    inner = Inner(('200 OK', b'x' * 100))
    app = _kept(inner, data, size=10)
    for project in ('a', 'b', 'c', 'c', 'b'):
        _ask(app, x_project_id=project)
    # c pushed a out; b and c are kept.
    assert inner.calls == 3
    _ask(app, x_project_id='a')
    assert inner.calls == 4


class Slow(Inner):
    """Inner, taking half a second over each answer."""

    def __call__(self, environ, start_response):
        time.sleep(0.5)
        return super().__call__(environ, start_response)


def test_pollers_that_miss_together_wait_for_one_answer(data, frozen):
    inner = Slow(('200 OK', b'[]'))
    app = _kept(inner, data)
    answers = races.together(*[lambda: _ask(app)] * 8)
    assert answers == [('200 OK', b'[]')] * 8
    assert inner.calls == 1


def test_an_answer_not_kept_is_made_by_each_who_waited(data, frozen):
    inner = Slow(('503 Service Unavailable', b'{}'))
    app = _kept(inner, data)
    answers = races.together(*[lambda: _ask(app)] * 4)
    assert [status for status, _body in answers] == \
        ['503 Service Unavailable'] * 4
    assert inner.calls == 4


def test_a_write_of_another_connection_is_seen(data, frozen):
    inner = Inner(('200 OK', b'[]'))
    app = _kept(inner, data)
    _ask(app)
    with sqlite3.connect(data) as db:
        db.execute('INSERT INTO t VALUES (1)')
    _ask(app)
    _ask(app)
    assert inner.calls == 2


def test_a_data_version_that_cannot_be_read_makes_every_answer(
        data, frozen, monkeypatch, caplog):
    inner = Inner(('200 OK', b'[]'))
    app = _kept(inner, data)
    _ask(app)

    def unreadable(self):
        raise sqlite3.OperationalError('disk I/O error')

    monkeypatch.setattr(kept_answers.DataVersion, 'read', unreadable)
    assert _ask(app) == ('200 OK', b'[]')
    assert _ask(app) == ('200 OK', b'[]')
    assert inner.calls == 3
    assert caplog.text.count('disk I/O error') == 1


def test_nothing_is_kept_without_a_sqlite_file(api, monkeypatch):
    assert kept_answers.sqlite_file() == _database()
    for url in ('sqlite://', 'sqlite:////nowhere/reserve.sqlite',
                'postgresql+psycopg2://reserve@127.0.0.1/reserve'):
        monkeypatch.setattr(kept_answers.db_api, 'get_engine',
                            lambda url=url: sa.create_engine(url))
        assert kept_answers.sqlite_file() is None


# Against an API that keeps nothing, on the same database.

@pytest.fixture
def fresh(api):
    """A second API application on the same database that keeps no
    answer: what the first must always agree with."""
    CONF.set_override('kept_answers', 0, group='api')
    try:
        application = api_app.setup_app()
    finally:
        CONF.clear_override('kept_answers', group='api')
    return webtest.TestApp(application,
                           extra_environ={'REMOTE_ADDR': '127.0.0.1'})


ASKED = ('/v1/reservations', '/v1/reservations?status=ERROR',
         '/v1/reservations?limit=1', '/v1/flavors/availability',
         '/v1/device-reservations')
STATUSES = ('PENDING_CREATE', 'ACTIVE', 'ERROR', 'DELETED')


class KeptAgreesWithMade(stateful.RuleBasedStateMachine):
    """Bookings written by this process and by another connection (as
    another process does), the clock moved or not, lists asked by two
    projects: every answer of the API that keeps answers is the one the
    API that keeps none makes at the same moment."""

    def __init__(self, kept, fresh, database):
        super().__init__()
        self.kept, self.fresh, self.database = kept, fresh, database
        self.bookings = []

    @stateful.rule(project=st.sampled_from(('project-a', 'project-b')))
    def book_here(self, project):
        self.bookings.append(make_booking(project=project).id)

    @stateful.precondition(lambda self: self.bookings)
    @stateful.rule(data=st.data(), status=st.sampled_from(STATUSES))
    def change_elsewhere(self, data, status):
        booking = data.draw(st.sampled_from(self.bookings))
        with sqlite3.connect(self.database) as db:
            db.execute('UPDATE bookings SET status = ? WHERE id = ?',
                       (status, booking))

    @stateful.precondition(lambda self: self.bookings)
    @stateful.rule(data=st.data())
    def delete_elsewhere(self, data):
        booking = data.draw(st.sampled_from(self.bookings))
        self.bookings.remove(booking)
        with sqlite3.connect(self.database) as db:
            db.execute('DELETE FROM bookings WHERE id = ?', (booking,))

    @stateful.rule(seconds=st.sampled_from((0, 0.4, 1, 2)))
    def tick(self, seconds):
        timeutils.advance_time_seconds(seconds)

    @stateful.rule(path=st.sampled_from(ASKED),
                   persona=st.sampled_from((MEMBER_A, MEMBER_B)))
    def ask(self, path, persona):
        kept = self.kept.get(path, headers=persona)
        made = self.fresh.get(path, headers=persona)
        assert kept.body == made.body, path


def test_every_answer_kept_is_the_one_made(api, fresh, frozen):
    database = _database()
    stateful.run_state_machine_as_test(
        lambda: KeptAgreesWithMade(api, fresh, database),
        settings=settings(max_examples=15, stateful_step_count=15,
                          deadline=None, database=None,
                          suppress_health_check=list(HealthCheck)))


def test_a_commit_is_seen_by_every_request_that_starts_after_it(api):
    """Four clients poll while another connection commits twenty
    changes: a request that starts after a commit has returned shows it
    (or a later one), whatever the answers kept."""
    booking = make_booking(instance_count=1)
    database = _database()
    committed = [1]
    seen_late = []

    def write():
        with sqlite3.connect(database) as db:
            for count in range(2, 22):
                db.execute('UPDATE bookings SET instance_count = ? '
                           'WHERE id = ?', (count, booking.id))
                db.commit()
                committed.append(count)
                time.sleep(0.01)

    def poll():
        while committed[-1] < 21:
            before = committed[-1]
            shown = api.get('/v1/reservations', headers=MEMBER_A).json[
                'reservations'][0]['instance_count']
            if shown < before:
                seen_late.append((shown, before))

    races.together(write, poll, poll, poll, poll)
    assert committed[-1] == 21
    assert seen_late == []
    assert api.get('/v1/reservations', headers=MEMBER_A).json[
        'reservations'][0]['instance_count'] == 21
