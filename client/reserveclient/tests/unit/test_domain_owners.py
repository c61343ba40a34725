"""openstack reserve host domain owner ... against the API double."""
import pytest

from reserveclient.osc.v1 import domain_owners
from reserveclient.tests.unit.test_hosts import _host


def test_set_records_then_changes_the_owner(runner, api):
    host = _host(api, name='gpu-a100-01')
    shown = runner.json(domain_owners.SetDomainOwner,
                        ['gpu-a100-01', 'gpu-vm-2', '--project', 'proj-a'])
    assert api.requests[-1].method == 'POST'
    assert api.requests[-1].url.endswith(
        '/v1/hosts/gpu-a100-01/domain-owners')
    assert api.requests[-1].body == {'domain': 'gpu-vm-2',
                                     'project_id': 'proj-a'}
    assert (shown['domain'], shown['project_id'], shown['host_id']) == (
        'gpu-vm-2', 'proj-a', host['id'])
    # Recorded already: the same command changes it.
    shown = runner.json(domain_owners.SetDomainOwner,
                        ['gpu-a100-01', 'gpu-vm-2', '--project', 'proj-b'])
    assert [r.method for r in api.requests[-2:]] == ['POST', 'PATCH']
    assert api.requests[-1].body == {'project_id': 'proj-b'}
    assert shown['project_id'] == 'proj-b'
    assert api.domain_owners == {(host['id'], 'gpu-vm-2'): 'proj-b'}


def test_list_show_and_delete(runner, api):
    host = _host(api, name='gpu-a100-01')
    api.domain_owners.update({(host['id'], 'gpu-vm-1'): 'proj-a',
                              (host['id'], 'gpu-vm 2'): 'proj-b'})
    columns, rows = runner.take(domain_owners.ListDomainOwner,
                                ['gpu-a100-01'])
    assert columns == ('Domain', 'Project', 'Updated At')
    assert [r[:2] for r in rows] == [('gpu-vm 2', 'proj-b'),
                                     ('gpu-vm-1', 'proj-a')]
    shown = runner.json(domain_owners.ShowDomainOwner,
                        ['gpu-a100-01', 'gpu-vm 2'])
    assert shown['project_id'] == 'proj-b'
    # The domain's name is quoted in the path.
    assert api.requests[-1].url.endswith('/domain-owners/gpu-vm%202')
    runner.take(domain_owners.DeleteDomainOwner,
                ['gpu-a100-01', 'gpu-vm-1', 'gpu-vm 2'])
    assert api.domain_owners == {}


def test_delete_reports_each_failure(runner, api):
    host = _host(api, name='gpu-a100-01')
    api.domain_owners[host['id'], 'gpu-vm-1'] = 'proj-a'
    with pytest.raises(Exception) as caught:
        runner.take(domain_owners.DeleteDomainOwner,
                    ['gpu-a100-01', 'gpu-vm-1', 'nowhere'])
    assert 'Failed to delete 1 of 2 domain owners' in str(caught.value)
    assert api.domain_owners == {}


@pytest.mark.parametrize('argv', [[], ['gpu-a100-01'],
                                  ['gpu-a100-01', 'gpu-vm-1']])
def test_set_needs_host_domain_and_project(runner, argv):
    with pytest.raises(SystemExit):
        runner.parse(domain_owners.SetDomainOwner, argv)
