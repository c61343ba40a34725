"""Host filters on extra capabilities, in blazar's JSON form.

A filter is a list: ``["==", "$gpu_type", "a100"]``, or a combination
``["and", f1, f2, ...]`` / ``["or", f1, f2, ...]``. Operators: == != < <=
> >=; numbers compare as numbers. A dict {key: value} means equality on
every key.
"""
import json
import operator

from reserve.common import exception

_OPS = {'==': operator.eq, '!=': operator.ne, '<': operator.lt,
        '<=': operator.le, '>': operator.gt, '>=': operator.ge}


def parse(value):
    if value in (None, '', [], {}):
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise exception.Invalid(
                reason='resource_properties is not JSON: %r' % value)
    if isinstance(value, dict):
        value = ['and'] + [['==', '$' + k, v] for k, v in value.items()]
    _validate(value)
    return value


def _validate(expr):
    if not isinstance(expr, list) or not expr:
        raise exception.Invalid(reason='bad host filter %r' % (expr,))
    if not isinstance(expr[0], str):
        raise exception.Invalid(
            reason='bad host filter %r: want [op, "$key", value]' % (expr,))
    if expr[0] in ('and', 'or'):
        for sub in expr[1:]:
            _validate(sub)
        return
    if (expr[0] not in _OPS or len(expr) != 3 or
            not str(expr[1]).startswith('$')):
        raise exception.Invalid(
            reason='bad host filter %r: want [op, "$key", value]' % (expr,))


def _coerce(a, b):
    try:
        return float(a), float(b)
    except (TypeError, ValueError):
        return str(a), str(b)


def matches(expr, capabilities):
    """Does a host with ``capabilities`` {key: value} pass ``expr``?"""
    if expr is None:
        return True
    if expr[0] == 'and':
        return all(matches(sub, capabilities) for sub in expr[1:])
    if expr[0] == 'or':
        return any(matches(sub, capabilities) for sub in expr[1:])
    op, key, wanted = expr
    key = key[1:]
    if key not in capabilities:
        return False
    return _OPS[op](*_coerce(capabilities[key], wanted))
