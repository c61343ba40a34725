"""The policy enforcer (rules in code, overridable by policy.yaml)."""
import threading

from oslo_config import cfg
from oslo_policy import opts as policy_opts
from oslo_policy import policy

from reserve.common import exception
from reserve.common import policies

CONF = cfg.CONF
_ENFORCER = None
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


def init():
    global _ENFORCER
    with _LOCK:
        if _ENFORCER is None:
            enforcer = policy.Enforcer(CONF)
            enforcer.register_defaults(policies.list_rules())
            _ENFORCER = enforcer
        return _ENFORCER


def reset():
    global _ENFORCER
    if _ENFORCER is not None:
        _ENFORCER.clear()
    _ENFORCER = None


def authorize(context, action, target=None, do_raise=True):
    """Check ``action`` for ``context``; target defaults to its project."""
    enforcer = init()
    target = target or {'project_id': context.project_id}
    try:
        with _LOCK:
            return enforcer.authorize(action, target, context,
                                      do_raise=do_raise,
                                      exc=exception.Forbidden,
                                      action=action)
    except policy.InvalidScope:
        raise exception.Forbidden(action=action)
