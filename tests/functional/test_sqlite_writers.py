"""Writers on the embedded SQLite: a transaction that reads before it
writes, while another writer commits in between, waits for the write
lock instead of failing with "database is locked"."""
import threading

import pytest
import sqlalchemy as sa

from reserve.common import context as reserve_context
from reserve.db import api as db_api
from reserve.db import hosts as hosts_db
from reserve.db import models
from tests.fixtures import database


@pytest.fixture
def sqlite_db(tmp_path):
    database.use_database('sqlite:///%s' % (tmp_path / 'writers.sqlite'))
    yield reserve_context.get_admin_context()
    database.reset_engine()


def _set_name(session, host_id, name):
    session.execute(sa.update(models.Host).where(models.Host.id == host_id)
                    .values(name=name))


def test_a_writer_that_reads_first_waits_instead_of_failing(sqlite_db):
    ctx = sqlite_db
    host = hosts_db.host_create(ctx, {'name': 'h', 'kind': 'libvirt',
                                      'uri': 'test:///default'})
    first_has_read = threading.Event()
    second_done = threading.Event()
    failures = []
    order = []

    def first():
        try:
            with db_api.writer.using(reserve_context.get_admin_context()) \
                    as session:
                session.execute(sa.select(models.Host.name)).all()
                first_has_read.set()
                # Without the write lock taken at BEGIN, the second
                # writer commits here, and this transaction's write
                # below fails at once.
                second_done.wait(1.0)
                _set_name(session, host.id, 'first')
                order.append('first')
        except Exception as exc:  # what the test is about
            failures.append(exc)

    def second():
        first_has_read.wait(10)
        try:
            with db_api.writer.using(reserve_context.get_admin_context()) \
                    as session:
                _set_name(session, host.id, 'second')
            order.append('second')
        except Exception as exc:
            failures.append(exc)
        finally:
            second_done.set()

    threads = [threading.Thread(target=first),
               threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert failures == []
    # The second writer waited for the first to commit.
    assert order == ['first', 'second']
    assert hosts_db.host_get(ctx, host.id).name == 'second'


def test_readers_do_not_wait_for_a_writer(sqlite_db):
    ctx = sqlite_db
    host = hosts_db.host_create(ctx, {'name': 'h', 'kind': 'libvirt',
                                      'uri': 'test:///default'})
    read = []
    with db_api.writer.using(reserve_context.get_admin_context()) as session:
        _set_name(session, host.id, 'changing')
        reader = threading.Thread(target=lambda: read.append(
            hosts_db.host_get(reserve_context.get_admin_context(),
                              host.id).name))
        reader.start()
        reader.join(10)
        # WAL: the reader saw the last committed name, during the write.
        assert read == ['h']
    assert hosts_db.host_get(ctx, host.id).name == 'changing'
