"""The policy enforcer (rules in code, overridable by policy.yaml)."""
from collections import abc
import threading
import time

from oslo_config import cfg
from oslo_policy import opts as policy_opts
from oslo_policy import policy

from reserve.common import exception
from reserve.common import policies

CONF = cfg.CONF
_ENFORCER = None
# The decisions made, by (rules' generation, action, target, credentials):
# a decision is a function of those alone, and oslo.policy spends a
# large share of a short read making it anew (it walks every registered
# rule and inspects each check's signature, at every call).
_DECISIONS = {}
_MAX_DECISIONS = 10000
_ALLOWED, _REFUSED, _WRONG_SCOPE = 'allowed', 'refused', 'wrong scope'
# How often the policy file (and policy.d) are looked at for changes:
# each look stats every file, a share of a short read when done at every
# check.
RELOAD_CHECK_SECONDS = 1.0
_last_reload_check = None
# oslo.policy (re)loads its rules inside enforce() without a lock: two
# threads of one API worker checking at once can see the rules dict change
# under them. Checks take microseconds, so they are simply serialised.
_LOCK = threading.RLock()

policy_opts.set_defaults(CONF, policy_file='policy.yaml',
                         enforce_scope=True, enforce_new_defaults=True)


def get_enforcer():
    """The enforcer, for the oslo.policy command line tools."""
    CONF([], project='reserve')
    return init()


class _Enforcer(policy.Enforcer):
    """oslo.policy's enforcer, counting the changes of its rules: every
    change (a policy file loaded or reloaded, rules set by hand) goes
    through set_rules."""

    generation = 0

    def set_rules(self, *args, **kwargs):
        self.generation += 1
        return super().set_rules(*args, **kwargs)


def init():
    global _ENFORCER
    with _LOCK:
        if _ENFORCER is None:
            enforcer = _Enforcer(CONF)
            enforcer.register_defaults(policies.list_rules())
            _ENFORCER = enforcer
        return _ENFORCER


def reset():
    global _ENFORCER, _last_reload_check
    with _LOCK:
        if _ENFORCER is not None:
            _ENFORCER.clear()
        _ENFORCER = None
        _DECISIONS.clear()
        _last_reload_check = None


def _check_rules(enforcer):
    """Rereads the policy files if they changed, at most once every
    RELOAD_CHECK_SECONDS (with the lock held)."""
    global _last_reload_check
    now = time.monotonic()
    if (_last_reload_check is None or
            now - _last_reload_check >= RELOAD_CHECK_SECONDS):
        enforcer.load_rules()
        _last_reload_check = now


def _frozen(value):
    """A hashable copy of credentials or a target."""
    if isinstance(value, abc.Mapping):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple, set, frozenset)):
        return tuple(_frozen(v) for v in value)
    return value


def _decide(enforcer, action, target, context):
    try:
        allowed = enforcer.authorize(action, target, context, do_raise=True,
                                     exc=exception.Forbidden, action=action)
    except policy.InvalidScope:
        return _WRONG_SCOPE
    except exception.Forbidden:
        return _REFUSED
    return _ALLOWED if allowed else _REFUSED


def authorize(context, action, target=None, do_raise=True):
    """Check ``action`` for ``context``; target defaults to its project.
    A token of a scope the rule does not take is refused (Forbidden)
    even with do_raise off."""
    enforcer = init()
    target = target or {'project_id': context.project_id}
    with _LOCK:
        # The policy file reread when it changed: its generation moves.
        _check_rules(enforcer)
        key = (enforcer.generation, id(enforcer.rules), action,
               _frozen(target), _frozen(context.to_policy_values()))
        decision = _DECISIONS.get(key)
        if decision is None:
            decision = _decide(enforcer, action, target, context)
            if len(_DECISIONS) >= _MAX_DECISIONS:
                _DECISIONS.clear()
            _DECISIONS[key] = decision
    if decision == _ALLOWED:
        return True
    if do_raise or decision == _WRONG_SCOPE:
        raise exception.Forbidden(action=action)
    return False
