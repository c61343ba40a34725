"""Hostile tenants and libvirt domains: a GPU device goes only into a
domain of one of its reservation's projects, and another project's
domain is answered exactly as a domain that does not exist.

Driven over HTTP (the ``http`` fixture) as project-a (member_a),
project-b (member_b) and the administrator, on the a100 test host
(``gpu_api``, ``a100``: its domains recorded as project-a's unless a
test says otherwise), with the real lease manager behind the API.
"""
import logging

from oslo_policy import policy as oslo_policy
import pytest

from reserve.common import policy
from reserve.devices import owners
from tests.functional.api_fixtures import CONF
from tests.functional.api_fixtures import make_host
from tests.functional.hostile.http import assert_http_error

URL = '/v1/device-reservations'
A100 = 'A100 SXM4 80GB'
GHOST = 'no-such-vm'
NOVA_NS = 'http://openstack.org/xmlns/libvirt/nova/1.1'


def _same_as_unknown(send, name):
    """``send(domain)`` naming ``name`` gets exactly what naming a domain
    the host does not have gets: status, code and detail (the names
    aside). Returns the detail."""
    real, ghost = send(name), send(GHOST)
    detail = assert_http_error(real, 400)
    assert_http_error(ghost, 400)
    real_error = real.json()['errors'][0]
    ghost_error = ghost.json()['errors'][0]
    assert real_error['code'] == ghost_error['code'] == \
        'reserve.domain_not_found'
    assert real_error['title'] == ghost_error['title']
    assert detail.replace(name, '<domain>') == \
        ghost_error['detail'].replace(GHOST, '<domain>')
    return detail


def _create(http, who, body, **kwargs):
    return http.post(who, URL, json=body, **kwargs)


def _created(http, who, body):
    response = _create(http, who, body)
    assert response.status_code == 201, response.text
    return response.json()['device_reservation']


def _show(http, who, rsv_id):
    response = http.get(who, '%s/%s' % (URL, rsv_id))
    assert response.status_code == 200, response.text
    return response.json()['device_reservation']


def _pci_ids(gpu_api, host, domain):
    return [h['id'] for h in gpu_api.domain(host, domain)['hostdevs']]


# naming another project's domain --------------------------------------------

def test_b_naming_a_domain_of_a_at_creation_is_an_unknown_domain(
        http, gpu_api, a100):
    for body in ({'count': 1, 'model': A100},
                 {'count': 1, 'host': a100['name']},
                 {'unit_ids': [gpu_api.device(a100, '0000:17:00.0')]}):
        for params in ({}, {'dry_run': 'true'}):
            detail = _same_as_unknown(
                lambda domain: _create(http, 'member_b',
                                       dict(body, domains=[domain]),
                                       params=params), 'gpu-vm-2')
            assert 'gpu-vm-1' not in detail
    assert http.get('admin', URL + '?all_projects=1').json()[
        'device_reservations'] == []
    # Project A, which owns it, gets it.
    rsv = _created(http, 'member_a', {'count': 1, 'model': A100,
                                      'domains': ['gpu-vm-2']})
    gpu_api.tick()
    assert _show(http, 'member_a', rsv['id'])['status'] == 'active'
    assert _pci_ids(gpu_api, a100, 'gpu-vm-2') == [rsv['units'][0][
        'pci_address']]


def test_b_naming_a_domain_of_a_in_patch_or_attach_is_an_unknown_domain(
        http, gpu_api, a100):
    gpu_api.own(a100, 'gpu-vm-3', 'project-b')
    rsv = _created(http, 'member_b', {'count': 1, 'model': A100,
                                      'domains': ['gpu-vm-3']})
    gpu_api.tick()
    item = '%s/%s' % (URL, rsv['id'])
    _same_as_unknown(lambda domain: http.patch(
        'member_b', item, json={'domains': [domain]}), 'gpu-vm-2')
    _same_as_unknown(lambda domain: http.patch(
        'member_b', item, json={'domains': ['gpu-vm-3', domain]}),
        'gpu-vm-2')
    _same_as_unknown(lambda domain: http.post(
        'member_b', item + '/attach', json={'domain': domain}), 'gpu-vm-2')
    # Nothing moved: B's device is still in B's domain, none in A's.
    shown = _show(http, 'member_b', rsv['id'])
    assert shown['domains'] == ['gpu-vm-3']
    assert [a['state'] for a in shown['attachments']] == ['attached']
    assert _pci_ids(gpu_api, a100, 'gpu-vm-2') == []


def test_an_allowed_project_names_its_own_domain(http, gpu_api, a100):
    """The administrator reserves for project-b: project-b's domains
    take the devices, project-a's do not, whoever asks."""
    gpu_api.own(a100, 'gpu-vm-3', 'project-b')
    body = {'count': 1, 'model': A100, 'allowed_projects': ['project-b']}
    _same_as_unknown(lambda domain: _create(
        http, 'admin', dict(body, domains=[domain])), 'gpu-vm-2')
    rsv = _created(http, 'admin', dict(body, domains=['gpu-vm-3']))
    gpu_api.tick()
    _same_as_unknown(lambda domain: http.post(
        'member_b', '%s/%s/attach' % (URL, rsv['id']),
        json={'domain': domain}), 'gpu-vm-2')
    assert _pci_ids(gpu_api, a100, 'gpu-vm-3')


# domains with no owner, the administrator's reservations -------------------

def test_a_domain_with_no_owner_takes_only_the_administrators_devices(
        http, gpu_api):
    host = gpu_api.enroll('a100-host.xml', name='gpu-box-2', owner=None)
    body = {'count': 1, 'model': A100, 'host': host['name']}
    _same_as_unknown(lambda domain: _create(
        http, 'member_a', dict(body, domains=[domain])), 'gpu-vm-2')
    rsv = _created(http, 'admin', dict(body, domains=['gpu-vm-2']))
    gpu_api.tick()
    assert _show(http, 'admin', rsv['id'])['status'] == 'active'
    assert _pci_ids(gpu_api, host, 'gpu-vm-2') == [
        rsv['units'][0]['pci_address']]
    # Recorded as project-a's now: project-a may, project-b still not.
    gpu_api.own(host, 'gpu-vm-3', 'project-a')
    assert _create(http, 'member_a', dict(
        body, domains=['gpu-vm-3'])).status_code == 201
    _same_as_unknown(lambda domain: _create(
        http, 'member_b', dict(body, domains=[domain])), 'gpu-vm-3')


def test_the_administrators_reservation_does_not_take_a_projects_domain(
        http, gpu_api, a100):
    body = {'count': 1, 'model': A100}
    _same_as_unknown(lambda domain: _create(
        http, 'admin', dict(body, domains=[domain])), 'gpu-vm-2')
    # For project-a, it does.
    assert _create(http, 'admin', dict(
        body, domains=['gpu-vm-2'], allowed_projects=['project-a'])
    ).status_code == 201


def test_read_rules_grant_no_unowned_domain(http, gpu_api):
    host = gpu_api.enroll('a100-host.xml', name='gpu-box-2', owner=None)
    for who in ('reader_all', 'service', 'reader_a'):
        assert_http_error(_create(http, who, {
            'count': 1, 'host': host['name'], 'domains': ['gpu-vm-2']}),
            403)
        # Nor may they record an owner.
        assert_http_error(http.post(
            who, '/v1/hosts/%s/domain-owners' % host['id'],
            json={'domain': 'gpu-vm-2', 'project_id': 'project-a'}), 403)


# nova's metadata -------------------------------------------------------------

def _nova_owned(text):
    """gpu-vm-2 an instance of project-a, gpu-vm-3 of project-b (as nova
    writes them); gpu-vm-1 and transient-vm no nova instances."""
    for name, project in (('gpu-vm-2', 'project-a'),
                          ('gpu-vm-3', 'project-b')):
        text = text.replace(
            '<name>%s</name>' % name,
            '<name>%s</name><metadata><nova:instance xmlns:nova="%s">'
            '<nova:owner><nova:user uuid="u-1">alice</nova:user>'
            '<nova:project uuid="%s">%s</nova:project></nova:owner>'
            '</nova:instance></metadata>' % (name, NOVA_NS, project,
                                             project), 1)
    return text


def test_on_a_host_run_by_nova_the_owner_is_novas(http, gpu_api):
    # The nova side of the same machine: nova's service host is the
    # libvirt host's name.
    make_host('gpu-nova-1.example.org', service_name='gpu-nova-1')
    host = gpu_api.enroll('a100-host.xml', name='gpu-nova-1', owner=None,
                          edit=_nova_owned)
    domains = http.get('admin', '/v1/hosts/%s/domains' % host['id']).json()
    assert {d['name']: d['owner'] for d in domains['domains']} == {
        'gpu-vm-1': None, 'gpu-vm-2': 'project-a', 'gpu-vm-3': 'project-b',
        'transient-vm': None}
    body = {'count': 1, 'model': A100, 'host': host['name']}
    _same_as_unknown(lambda domain: _create(
        http, 'member_b', dict(body, domains=[domain])), 'gpu-vm-2')
    _same_as_unknown(lambda domain: _create(
        http, 'member_a', dict(body, domains=[domain])), 'gpu-vm-3')
    # No nova instance: nobody's, the administrator's alone.
    _same_as_unknown(lambda domain: _create(
        http, 'member_a', dict(body, domains=[domain])), 'transient-vm')
    assert _create(http, 'member_a', dict(
        body, domains=['gpu-vm-2'])).status_code == 201
    assert _create(http, 'member_b', dict(
        body, domains=['gpu-vm-3'])).status_code == 201
    # Owners are nova's here: a record would be ignored, so it is refused.
    response = http.post('admin', '/v1/hosts/%s/domain-owners' % host['id'],
                         json={'domain': 'gpu-vm-2',
                               'project_id': 'project-b'})
    assert_http_error(response, 400, 'run by nova')


# the end never touches a domain that is not the reservation's --------------

@pytest.fixture
def destroy():
    CONF.set_override('end_action', 'destroy', group='devices')
    yield
    CONF.clear_override('end_action', group='devices')


def _cancel(http, gpu_api, who, rsv_id):
    response = http.delete(who, '%s/%s' % (URL, rsv_id))
    assert response.status_code == 204, response.text
    for _ in range(3):
        gpu_api.tick()


def test_cancel_with_destroy_never_touches_a_domain_of_a(
        http, gpu_api, a100, destroy, caplog):
    gpu_api.own(a100, 'gpu-vm-2', 'project-b')
    rsv = _created(http, 'member_b', {'count': 1, 'model': A100,
                                      'domains': ['gpu-vm-2']})
    gpu_api.tick()
    device = rsv['units'][0]['pci_address']
    assert _pci_ids(gpu_api, a100, 'gpu-vm-2') == [device]
    # gpu-vm-2 changes hands (project-a's now) while B's device is in it.
    gpu_api.own(a100, 'gpu-vm-2', 'project-a')
    with caplog.at_level(logging.WARNING, logger=owners.__name__):
        _cancel(http, gpu_api, 'member_b', rsv['id'])
    shown = _show(http, 'member_b', rsv['id'])
    assert shown['status'] == 'cancelled' and shown['released_at']
    assert [a['state'] for a in shown['attachments']] == ['detached']
    # A's domain still runs, untouched.
    domain = gpu_api.domain(a100, 'gpu-vm-2')
    assert domain['running'] is True
    assert [h['id'] for h in domain['hostdevs']] == [device]
    lines = [r.getMessage() for r in caplog.records
             if 'changed owner' in r.getMessage()]
    assert len(lines) == 1 and 'gpu-vm-2' in lines[0] and \
        rsv['id'] in lines[0]


def test_cancel_with_destroy_powers_off_the_reservations_own_domain(
        http, gpu_api, a100, destroy):
    gpu_api.own(a100, 'gpu-vm-2', 'project-b')
    rsv = _created(http, 'member_b', {'count': 1, 'model': A100,
                                      'domains': ['gpu-vm-2']})
    gpu_api.tick()
    _cancel(http, gpu_api, 'member_b', rsv['id'])
    domain = gpu_api.domain(a100, 'gpu-vm-2')
    assert domain['running'] is False and domain['hostdevs'] == []


# what members are shown ----------------------------------------------------

def test_dry_run_reasons_name_no_domain_of_another_project(
        http, gpu_api, a100):
    # 0000:ca:00.0 is held by gpu-vm-1 outside reserve.
    held = gpu_api.device(a100, '0000:ca:00.0')
    answer = _create(http, 'member_b', {'unit_ids': [held]},
                     params={'dry_run': 'true'})
    assert answer.status_code == 200, answer.text
    found = answer.json()['dry_run']
    assert found['fits'] is False
    assert 'gpu-vm' not in found['reason']
    assert 'in use outside reserve' in found['reason']
    # A real request's 409 says no more.
    detail = assert_http_error(_create(http, 'member_b',
                                       {'unit_ids': [held]}), 409)
    assert 'gpu-vm' not in detail
    # The administrator is told which domain holds it.
    answer = _create(http, 'admin', {'unit_ids': [held]},
                     params={'dry_run': 'true'}).json()['dry_run']
    assert 'gpu-vm-1' in answer['reason']


def test_members_are_not_shown_a_hosts_domains(http, gpu_api, a100):
    path = '/v1/hosts/%s/domains' % a100['id']
    for who in ('member_a', 'member_b', 'reader_a'):
        assert_http_error(http.get(who, path), 403)
        assert_http_error(http.get(who, path + '/gpu-vm-2'), 403)
        assert_http_error(http.get(who, '/v1/hosts/%s/domain-owners' %
                                   a100['id']), 403)
    shown = http.get('admin', path + '/gpu-vm-2').json()['domain']
    assert shown['owner'] == 'project-a'


def test_should_a_policy_show_members_domains_they_see_their_own(
        http, gpu_api, a100):
    gpu_api.own(a100, 'gpu-vm-3', 'project-b')
    enforcer = policy.init()
    enforcer.load_rules()
    enforcer.set_rules(oslo_policy.Rules.from_dict({
        'reserve:host:domain:list': 'role:member',
        'reserve:host:domain:get': 'role:member'}), overwrite=False,
        use_conf=False)
    path = '/v1/hosts/%s/domains' % a100['id']
    listed = http.get('member_b', path)
    assert listed.status_code == 200, listed.text
    assert [d['name'] for d in listed.json()['domains']] == ['gpu-vm-3']
    assert http.get('member_b', path + '/gpu-vm-3').status_code == 200
    _same_as_unknown(lambda domain: http.get(
        'member_b', '%s/%s' % (path, domain)), 'gpu-vm-2')
    assert len(http.get('admin', path).json()['domains']) == 4
