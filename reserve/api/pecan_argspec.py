"""pecan's argument specs, read once per function.

pecan reads the argument spec of a controller's method at every request
(routing, then calling it), and its reader (pecan.compat.getargspec)
defines a new namedtuple class at each call: on a list of a hundred
rows that was about a tenth of the request's time. A function's
signature does not change while the process runs, so the spec is kept
per function (the bound method's function: controllers pecan builds per
request are not kept alive by it). The answer is the same tuple, of
the same fields, pecan built.
"""
import collections
import inspect
import threading

from pecan import util as pecan_util

ArgSpec = collections.namedtuple('ArgSpec', 'args varargs keywords defaults')

_SPECS = {}
_LOCK = threading.Lock()


def getargspec(func):
    """pecan.compat.getargspec's answer for ``func``, from the cache."""
    key = getattr(func, '__func__', func)
    try:
        return _SPECS[key]
    except (KeyError, TypeError):
        pass
    args, varargs, keywords, defaults = inspect.getfullargspec(func)[:4]
    spec = ArgSpec(args=args, varargs=varargs, keywords=keywords,
                   defaults=defaults)
    try:
        with _LOCK:
            _SPECS[key] = spec
    except TypeError:  # an unhashable callable: not kept
        pass
    return spec


def install():
    """pecan's routing and calling read specs through getargspec."""
    pecan_util._getargspec = getargspec
