"""Migration 0018: the spot columns of a reservation's devices and of
its attachments, empty (not lent, not spot) on the rows written before
it, dropped again by its downgrade, on every backend."""
import datetime

import pytest
import sqlalchemy as sa

from reserve import conf as reserve_conf  # noqa: F401 (registers options)
from tests.fixtures import backends
from tests.fixtures import database

NOW = datetime.datetime(2031, 1, 1)


def _columns(engine, table):
    return {c['name'] for c in sa.inspect(engine).get_columns(table)}


@pytest.mark.parametrize('backend', backends.BACKENDS)
def test_spot_columns_come_and_go(backend, tmp_path):
    with database.at_revision(backend, tmp_path, '0017') as engine:
        database.upgrade(engine, '0018')
        assert {'spot_since', 'reclaiming_since'} <= _columns(
            engine, 'device_reservation_devices')
        assert 'spot' in _columns(engine, 'device_attachments')
        database.downgrade(engine, '0017')
        assert not {'spot_since', 'reclaiming_since'} & _columns(
            engine, 'device_reservation_devices')
        assert 'spot' not in _columns(engine, 'device_attachments')
