"""Migration 0017: a host's failure and failed_at, empty on the hosts
enrolled before it, dropped again by its downgrade, on every backend."""
import datetime

import pytest
import sqlalchemy as sa

from reserve import conf as reserve_conf  # noqa: F401 (registers options)
from tests.fixtures import backends
from tests.fixtures import database

NOW = datetime.datetime(2031, 1, 1)


def _columns(engine):
    return {c['name'] for c in sa.inspect(engine).get_columns('hosts')}


@pytest.mark.parametrize('backend', backends.BACKENDS)
def test_hosts_gain_and_lose_their_failure(backend, tmp_path):
    with database.at_revision(backend, tmp_path, '0016') as engine:
        with engine.begin() as conn:
            conn.execute(sa.text(
                "INSERT INTO hosts (id, kind, name, vcpus, memory_mb, "
                "local_gb, reservable, created_at, updated_at) VALUES "
                "('h1', 'nova', 'h', 1, 1, 1, :no, :now, :now)"),
                {'now': NOW, 'no': False})
        database.upgrade(engine, '0017')
        with engine.connect() as conn:
            assert [tuple(r) for r in conn.execute(sa.text(
                'SELECT id, reservable, failure, failed_at FROM hosts'))] \
                == [('h1', False, None, None)]
        database.downgrade(engine, '0016')
        assert not {'failure', 'failed_at'} & _columns(engine)
        with engine.connect() as conn:
            assert conn.execute(sa.text(
                'SELECT id FROM hosts')).scalars().all() == ['h1']
