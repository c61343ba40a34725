"""Errors that cross the manager's RPC API as themselves.

Only reserve.common.exception classes are rebuilt on the caller's side
(reserve.common.rpc); the libvirt layer's own errors (reserve.virt
.exception) subclass them, and leave the manager as the class they
subclass, with the same message, hence the same HTTP status.
"""
import functools

from reserve.common import exception


def portable(exc, prefix=None):
    """``exc`` as its nearest reserve.common.exception class."""
    for klass in type(exc).__mro__:
        if klass.__module__ == exception.__name__:
            break
    message = (exc.message if prefix is None
               else '%s: %s' % (prefix, exc.message))
    if klass is type(exc) and prefix is None:
        return exc
    return klass(message=message)


def portable_errors(func):
    """Decorator: reserve errors leave ``func`` portable."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except exception.ReserveException as exc:
            raise portable(exc) from exc
    return wrapper
