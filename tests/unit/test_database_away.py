"""What counts as the database being away, and how it is logged: one
line, where anything else keeps its traceback."""
import logging

from oslo_db import exception as db_exc
import pytest
import sqlalchemy as sa

from reserve.db import api as db_api


class _Refused(Exception):
    """What a DB-API driver raises when a connection cannot be made."""


REFUSED = sa.exc.OperationalError(
    None, None, _Refused('connection to server at "127.0.0.1", port 5432 '
                         'failed: FATAL:  the database system is shutting '
                         'down'))
IN_A_STATEMENT = sa.exc.OperationalError(
    'UPDATE hosts SET name=?', {}, _Refused('database is locked'))


@pytest.mark.parametrize('exc, away', [
    (db_exc.DBConnectionError('gone'), True),
    (db_exc.DBDeadlock('deadlock'), True),
    (REFUSED, True),
    (IN_A_STATEMENT, False),
    (db_exc.DBError('other'), False),
    (ValueError('a bug'), False)])
def test_database_away(exc, away):
    assert db_api.database_away(exc) is away


def _logged(exc, caplog):
    log = logging.getLogger('reserve.test')
    with caplog.at_level(logging.WARNING, logger='reserve.test'):
        try:
            raise exc
        except Exception as caught:
            db_api.log_failure(log, 'Event loop tick failed', caught)
    return caplog.records


def test_the_database_away_is_one_line(caplog):
    [record] = _logged(REFUSED, caplog)
    assert record.levelno == logging.WARNING
    assert record.exc_info is None
    assert record.getMessage().startswith(
        'Event loop tick failed, the database is unavailable: ')
    assert 'shutting down' in record.getMessage()
    assert '\n' not in record.getMessage()


def test_anything_else_keeps_its_traceback(caplog):
    [record] = _logged(ValueError('a bug'), caplog)
    assert record.levelno == logging.ERROR
    assert record.exc_info is not None
