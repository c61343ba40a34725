"""Database errors of the API process, counted as SQLAlchemy meets them.

One listener on every engine of the process (``handle_error``), installed
by the API when it builds its application: whatever the query, inside a
retry or not, each error is counted once in instruments.DB_ERRORS, then
handled as before (oslo.db translates it, the API answers 503 while the
database is away).
"""
import threading

import sqlalchemy as sa

from reserve.metrics import instruments

_LOCK = threading.Lock()
_INSTALLED = []

DISCONNECT = 'disconnect'


def kind_of(context):
    """disconnect, or the class of the SQLAlchemy error: one of a
    handful, OperationalError, IntegrityError, ProgrammingError..."""
    error = context.sqlalchemy_exception
    if context.is_disconnect or (
            isinstance(error, sa.exc.OperationalError) and
            context.statement is None):
        return DISCONNECT
    return type(error if error is not None
                else context.original_exception).__name__


def _count(context):
    instruments.DB_ERRORS.labels(kind_of(context)).inc()


def install():
    """Count the errors of every engine of this process (once)."""
    with _LOCK:
        if not _INSTALLED:
            sa.event.listen(sa.engine.Engine, 'handle_error', _count)
            _INSTALLED.append(_count)
