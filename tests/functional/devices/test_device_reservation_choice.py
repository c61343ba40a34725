"""/v1/device-reservations: which devices and host a request is given:
functions that share hardware, and the domains a request names."""
import pytest

from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import future
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.functional.devices.reservations import A100
from tests.functional.devices.reservations import HOLD_TABLES
from tests.functional.devices.reservations import counts
from tests.functional.devices.reservations import create
from tests.functional.devices.reservations import show
from tests.functional.devices.reservations import URL
from tests.fixtures import config


@pytest.fixture
def no_device_quota():
    """These hold more open-ended devices than a project's default
    [quota]device_hours takes: the choice is what they test."""
    for set_override in config.overrides():
        set_override('device_hours', -1, group='quota')
        yield


# functions that share hardware ---------------------------------------------

@pytest.mark.usefixtures('no_device_quota')
def test_selection_never_offers_a_vf_of_a_held_pf(gpu_api, a100):
    pf = gpu_api.device(a100, '0000:31:00.0')
    create(gpu_api, {'unit_ids': [gpu_api.device(a100, '0000:17:00.0'),
                                  gpu_api.device(a100, '0000:b1:00.0')]})
    held = create(gpu_api, {'unit_ids': [pf]}).json['device_reservation']
    gpu_api.tick()
    # The four virtual functions of 0000:31:00.0 would fit but for it.
    for body, headers in (({'count': 1, 'model': A100}, MEMBER_A),
                          ({'count': 1}, MEMBER_B)):
        assert_error(create(gpu_api, body, headers=headers,
                            expect_errors=True), 409,
                     'reserve.devices_do_not_fit', 'at most 0 fit')
        dry = gpu_api.app.post_json(URL + '?dry_run=true', body,
                                    headers=headers).json['dry_run']
        assert dry['fits'] is False
    response = create(gpu_api, {'unit_ids': [gpu_api.device(
        a100, '0000:31:00.4')]}, headers=MEMBER_B, expect_errors=True)
    assert_error(response, 409, 'reserve.units_unavailable',
                 'shares hardware with 0000:31:00.0')
    assert held['id'] not in response.json['errors'][0]['detail']
    # Nor later, over a window the PF still holds.
    response = create(gpu_api, {'count': 1, 'start': future(24),
                                'end': future(48)}, expect_errors=True)
    assert_error(response, 409, 'reserve.devices_do_not_fit')


@pytest.mark.usefixtures('no_device_quota')
def test_selection_never_offers_a_pf_whose_vf_is_held(gpu_api, a100):
    vf = gpu_api.device(a100, '0000:31:00.4')
    create(gpu_api, {'unit_ids': [vf]})
    gpu_api.tick()
    response = create(gpu_api, {'unit_ids': [gpu_api.device(
        a100, '0000:31:00.0')]}, headers=MEMBER_B, expect_errors=True)
    assert_error(response, 409, 'reserve.units_unavailable',
                 'shares hardware with 0000:31:00.4')
    # Whole GPUs first, then the other virtual functions: never the PF.
    rsv = create(gpu_api, {'count': 5, 'model': A100},
                 headers=MEMBER_B).json['device_reservation']
    assert [u['pci_address'] for u in rsv['units']] == [
        '0000:17:00.0', '0000:31:00.5', '0000:31:00.6', '0000:31:00.7',
        '0000:b1:00.0']


# domains steer the choice of host ------------------------------------------

@pytest.fixture
def two_hosts(gpu_api):
    return (gpu_api.enroll('a100-host.xml', name='gpu-a100-01'),
            gpu_api.enroll('t4-host.xml', name='gpu-t4-01'))


@pytest.mark.parametrize('domains,host,pci_address', [
    (['gpu-vm-2'], 'gpu-a100-01', '0000:17:00.0'),
    (['gpu-vm-3'], 'gpu-a100-01', '0000:17:00.0'),
    (['vgpu-vm-2'], 'gpu-t4-01', '0000:d8:00.0'),
])
def test_a_domain_named_chooses_its_host(gpu_api, two_hosts, domains, host,
                                         pci_address):
    # Without the domains, the tightest fit is gpu-t4-01's one free T4.
    dry = gpu_api.app.post_json(URL + '?dry_run=true', {'count': 1},
                                headers=MEMBER_A).json['dry_run']
    assert dry['host'] == 'gpu-t4-01'
    body = {'count': 1, 'domains': domains}
    dry = gpu_api.app.post_json(URL + '?dry_run=true', body,
                                headers=MEMBER_A).json['dry_run']
    assert (dry['fits'], dry['host']) == (True, host)
    assert [a['domain'] for a in dry['attachments']] == domains
    rsv = create(gpu_api, body).json['device_reservation']
    assert rsv['host'] == host
    assert [u['pci_address'] for u in rsv['units']] == [pci_address]
    gpu_api.tick()
    rsv = show(gpu_api, rsv['id']).json['device_reservation']
    assert [(a['domain'], a['state']) for a in rsv['attachments']] == [
        (domains[0], 'attached')]


@pytest.mark.parametrize('body,detail', [
    ({'count': 1, 'domains': ['gpu-vm-9']},
     'No host has domain gpu-vm-9; hosts considered (the reservable hosts '
     'with devices of the request): gpu-a100-01, gpu-t4-01.'),
    ({'count': 1, 'domains': ['gpu-vm-2', 'vgpu-vm-2']},
     'No host has all of the domains gpu-vm-2, vgpu-vm-2; hosts considered '
     '(the reservable hosts with devices of the request): gpu-a100-01 (has '
     'gpu-vm-2), gpu-t4-01 (has vgpu-vm-2).'),
    ({'count': 1, 'model': 'Tesla T4', 'domains': ['gpu-vm-2']},
     'No host has domain gpu-vm-2; hosts considered (the reservable hosts '
     'with devices of the request): gpu-t4-01.'),
])
def test_domains_no_host_has_are_400(gpu_api, two_hosts, body, detail):
    for url in (URL, URL + '?dry_run=true'):
        error = assert_error(create(gpu_api, body, expect_errors=True,
                                    url=url), 400,
                             'reserve.domain_not_found')
        assert error['detail'] == detail
    assert counts() == dict.fromkeys(HOLD_TABLES, 0)


def test_domains_on_a_host_without_room_is_409(gpu_api, two_hosts):
    body = {'count': 4, 'domains': ['gpu-vm-2']}
    response = create(gpu_api, body, expect_errors=True)
    assert_error(response, 409, 'reserve.devices_do_not_fit',
                 '4 device(s) wanted on a host with domain gpu-vm-2; at most '
                 '3 fit together on one host')
    dry = gpu_api.app.post_json(URL + '?dry_run=true', body,
                                headers=MEMBER_A).json['dry_run']
    assert dry['fits'] is False and 'domain gpu-vm-2' in dry['reason']


def test_a_named_host_or_devices_keep_their_domain_check(gpu_api, two_hosts):
    t4 = gpu_api.device(two_hosts[1], '0000:d8:00.0')
    for body in ({'count': 1, 'host': 'gpu-t4-01', 'domains': ['gpu-vm-2']},
                 {'unit_ids': [t4], 'domains': ['gpu-vm-2']}):
        for url in (URL, URL + '?dry_run=true'):
            assert_error(create(gpu_api, body, expect_errors=True,
                                url=url), 400, 'reserve.domain_not_found',
                         'Domain gpu-vm-2 does not exist on host gpu-t4-01.')
    assert counts() == dict.fromkeys(HOLD_TABLES, 0)
