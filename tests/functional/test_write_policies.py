"""Every write rule of the default policy, as the personas that may read
every project but should write nothing of another project's: an auditor
(reader and service roles), a service user, and a member of its own
project that also holds the service role.

A rule is a write rule when one of its documented operations is a
POST, PUT, PATCH or DELETE; a new write route is covered as soon as its
rule documents it. tests/functional/hostile/test_write_rights.py sends
the same personas to the routes over HTTP.
"""
import pytest

from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import policies
from reserve.common.policies import base
from reserve.common import policy
from tests.functional.api_fixtures import api  # noqa: F401

WRITES = ('POST', 'PUT', 'PATCH', 'DELETE')
# Creating in one's own project is a member's right, and only that.
OWN_PROJECT_CREATES = ('reserve:reservation:create',
                       'reserve:device_reservation:create')

PERSONAS = {
    'reader_all': ('audit-project', ['reader', 'service']),
    'service': ('service-project', ['service']),
    'member_all': ('ops-project', ['member', 'reader', 'service']),
}


def _write_rules():
    return sorted(
        (rule for rule in policies.list_rules()
         if any(op['method'] in WRITES
                for op in getattr(rule, 'operations', ()))),
        key=lambda rule: rule.name)


WRITE_RULES = _write_rules()


def _context(who):
    project, roles = PERSONAS[who]
    return reserve_context.RequestContext(
        user_id=who, project_id=project, roles=roles)


def _allowed(ctx, rule, project_id):
    try:
        return bool(policy.authorize(ctx, rule.name,
                                     {'project_id': project_id}))
    except exception.Forbidden:
        return False


def test_every_write_route_has_a_rule():
    names = {rule.name for rule in WRITE_RULES}
    for needed in ('reserve:reservation:update',
                   'reserve:reservation:update:all_projects',
                   'reserve:reservation:delete',
                   'reserve:reservation:delete:all_projects',
                   'reserve:device_reservation:attach',
                   'reserve:device_reservation:attach:all_projects',
                   'reserve:device_reservation:delete',
                   'reserve:device_reservation:delete:all_projects',
                   'reserve:device_reservation:update',
                   'reserve:device_reservation:affirm'):
        assert needed in names


@pytest.mark.usefixtures('api')
@pytest.mark.parametrize('who', sorted(PERSONAS))
@pytest.mark.parametrize('rule', WRITE_RULES, ids=lambda r: r.name)
def test_read_everything_personas_write_no_other_project(who, rule):
    ctx = _context(who)
    # Another project's row: refused, whatever the caller may read.
    assert not _allowed(ctx, rule, 'project-a')
    if who != 'member_all':
        # Without a member role they write nothing at all.
        assert not _allowed(ctx, rule, ctx.project_id)
    elif rule.name.endswith(':all_projects') or rule.check_str == base.ADMIN:
        # The explicit all-projects write rules are an administrator's.
        assert not _allowed(ctx, rule, ctx.project_id)


@pytest.mark.usefixtures('api')
@pytest.mark.parametrize('rule', WRITE_RULES, ids=lambda r: r.name)
def test_the_admin_writes_everywhere(rule):
    ctx = reserve_context.RequestContext(
        user_id='root', project_id='admin-project',
        roles=['admin', 'member', 'reader'])
    assert _allowed(ctx, rule, 'project-a')


@pytest.mark.usefixtures('api')
@pytest.mark.parametrize('rule', [r for r in WRITE_RULES
                                  if r.name in OWN_PROJECT_CREATES],
                         ids=lambda r: r.name)
def test_a_member_creates_in_its_own_project_only(rule):
    ctx = reserve_context.RequestContext(
        user_id='alice', project_id='project-a', roles=['member', 'reader'])
    assert _allowed(ctx, rule, 'project-a')
    assert not _allowed(ctx, rule, 'project-b')
