"""The policy's decisions are kept, and follow the policy file when it
changes: a rule overridden in policy.yaml while the API runs applies
within a second of the change."""
import os

from oslo_config import cfg
from oslo_policy import policy as oslo_policy
import pytest

from reserve.common import context
from reserve.common import exception
from reserve.common import policy
from reserve.common.policies import device_reservations as rules

CONF = cfg.CONF


@pytest.fixture
def policy_file(tmp_path, monkeypatch):
    # The file looked at on every check.
    monkeypatch.setattr(policy, 'RELOAD_CHECK_SECONDS', 0)
    CONF([], project='reserve', default_config_files=[])
    path = tmp_path / 'policy.yaml'
    path.write_text('{}\n')
    CONF.set_override('policy_file', str(path), group='oslo_policy')
    policy.reset()
    yield path
    policy.reset()
    CONF.clear_override('policy_file', group='oslo_policy')


def _write(path, text, bump):
    path.write_text(text)
    # A later modification time, however coarse the file system's clock.
    stat = path.stat()
    os.utime(path, (stat.st_atime, stat.st_mtime + bump))


def _reader(project='p1', roles=('reader',)):
    return context.RequestContext(user_id='u1', project_id=project,
                                  roles=list(roles))


def test_a_decision_follows_the_policy_file(policy_file):
    ctx = _reader()
    assert policy.authorize(ctx, rules.LIST)
    assert policy.authorize(ctx, rules.LIST)
    _write(policy_file, '"%s": "role:admin"\n' % rules.LIST, 10)
    with pytest.raises(exception.Forbidden):
        policy.authorize(ctx, rules.LIST)
    assert policy.authorize(ctx, rules.LIST, do_raise=False) is False
    _write(policy_file, '{}\n', 20)
    assert policy.authorize(ctx, rules.LIST)


def test_decisions_are_per_credentials_and_target(policy_file):
    assert policy.authorize(_reader('p1'), rules.LIST)
    # Another project's target, the same credentials: refused.
    with pytest.raises(exception.Forbidden):
        policy.authorize(_reader('p1'), rules.LIST, {'project_id': 'p2'})
    # No role at all: refused, though a reader of p1 was allowed.
    assert not policy.authorize(_reader('p1', roles=()), rules.LIST,
                                do_raise=False)
    assert policy.authorize(_reader('p2'), rules.LIST)


def test_the_file_is_looked_at_once_a_second(policy_file, monkeypatch):
    monkeypatch.setattr(policy, 'RELOAD_CHECK_SECONDS', 3600)
    ctx = _reader()
    assert policy.authorize(ctx, rules.LIST)
    _write(policy_file, '"%s": "role:admin"\n' % rules.LIST, 10)
    # Not looked at again yet: the decision stands until the next look.
    assert policy.authorize(ctx, rules.LIST)
    monkeypatch.setattr(policy, 'RELOAD_CHECK_SECONDS', 0)
    assert not policy.authorize(ctx, rules.LIST, do_raise=False)


def test_rules_set_by_hand_apply_at_once(policy_file):
    ctx = _reader()
    assert policy.authorize(ctx, rules.LIST)
    enforcer = policy.init()
    enforcer.set_rules(oslo_policy.Rules.from_dict(
        {rules.LIST: '!'}), overwrite=False, use_conf=True)
    assert not policy.authorize(ctx, rules.LIST, do_raise=False)
