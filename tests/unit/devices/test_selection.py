"""Which devices a request gets (reserve.devices.selection): pure."""
import pytest

from reserve.common import exception
from reserve.devices import selection


def device(uid, address, host='h1', node=0, model='GA100 [A100 SXM4 80GB]',
           related=(), blocked=None, vf=False, mdev_types=None):
    return selection.Device(
        id=uid, host_id=host, host=host, pci_address=address, model=model,
        vendor_id='0x10de', product_id='0x20b2', numa_node=node, is_vf=vf,
        related=frozenset(related), mdev_types=mdev_types or {},
        blocked=blocked)


A100S = [
    device('a', '0000:17:00.0', node=0),
    device('pf', '0000:31:00.0', node=0, related={'0000:31:00.4',
                                                  '0000:31:00.5'}),
    device('vf4', '0000:31:00.4', node=0, related={'0000:31:00.0'}, vf=True),
    device('vf5', '0000:31:00.5', node=0, related={'0000:31:00.0'}, vf=True),
    device('b', '0000:b1:00.0', node=1),
    device('c', '0000:ca:00.0', node=1, blocked='in use by domain vm'),
]


def ids(chosen):
    return [u.id for u in chosen.devices]


@pytest.mark.parametrize('text,matches', [
    ('GA100 [A100 SXM4 80GB]', True), ('a100 sxm4 80gb', True),
    ('10de:20b2', True), ('20b2', True), ('0x20b2', True),
    ('A100', False), ('10de', False), ('GA100', False),
])
def test_model_names(text, matches):
    assert selection.model_matches(A100S[0], text) is matches


def test_model_name_without_a_product_name():
    assert selection.model_name(None, '0x10de', '0x20B2') == '10de:20b2'


def test_specific_devices():
    chosen = selection.select(A100S, selection.Request(device_ids=('b', 'a')))
    assert ids(chosen) == ['b', 'a'] and chosen.host_id == 'h1'


@pytest.mark.parametrize('request_,error,text', [
    (selection.Request(device_ids=('zzz',)), exception.DeviceNotFound, 'zzz'),
    (selection.Request(device_ids=('pf', 'vf4')), exception.Invalid,
     'share hardware'),
    (selection.Request(device_ids=('a', 'b'), numa_local=True),
     exception.Invalid, 'NUMA nodes 0, 1'),
    (selection.Request(device_ids=('a', 'c')), exception.DevicesUnavailable,
     'in use by domain vm'),
    (selection.Request(device_ids=('a',), mdev_type='nvidia-222'),
     exception.Invalid, 'offers no mediated device type nvidia-222'),
    (selection.Request(device_ids=('a',), host_id='h2'), exception.Invalid,
     'not on the host asked for'),
])
def test_specific_devices_refused(request_, error, text):
    with pytest.raises(error) as caught:
        selection.select(A100S, request_)
    assert text in caught.value.message


def test_devices_on_two_hosts_are_refused():
    devices = A100S + [device('x', '0000:17:00.0', host='h2')]
    with pytest.raises(exception.Invalid) as caught:
        selection.select(devices, selection.Request(device_ids=('a', 'x')))
    assert 'on h1, h2' in caught.value.message


def test_count_takes_whole_gpus_before_virtual_functions():
    chosen = selection.select(A100S, selection.Request(device_count=3))
    assert ids(chosen) == ['a', 'pf', 'b']


def test_count_prefers_the_tightest_numa_node():
    chosen = selection.select(A100S, selection.Request(device_count=1,
                                                       numa_local=True))
    # Node 1 has one free device: node 0's two stay together.
    assert ids(chosen) == ['b']
    chosen = selection.select(A100S, selection.Request(device_count=2,
                                                       numa_local=True))
    assert ids(chosen) == ['a', 'pf']


def test_count_prefers_the_tightest_host():
    devices = A100S + [device('z', '0000:17:00.0', host='h0')]
    assert ids(selection.select(devices, selection.Request(
            device_count=1))) == ['z']
    assert ids(selection.select(devices, selection.Request(
        device_count=1, host_id='h1'))) == ['a']


def test_count_that_does_not_fit():
    with pytest.raises(exception.DevicesDoNotFit) as caught:
        selection.select(A100S, selection.Request(
                device_count=3, numa_local=True))
    assert 'at most 2 fit together' in caught.value.message
    with pytest.raises(exception.DevicesDoNotFit) as caught:
        selection.select(A100S, selection.Request(
                device_count=1, model='H100'))
    assert 'no device' in caught.value.message


def test_count_of_an_mdev_type():
    devices = [device('t', '0000:3b:00.0', model='TU104GL [Tesla T4]',
                      mdev_types={'nvidia-222': 15}),
               device('u', '0000:d8:00.0', model='TU104GL [Tesla T4]', node=1,
                      mdev_types={'nvidia-222': 16, 'nvidia-230': 1})]
    chosen = selection.select(devices, selection.Request(
        device_count=1, mdev_type='nvidia-230'))
    assert ids(chosen) == ['u']


def test_pick_together_skips_related_functions():
    assert [u.id for u in selection.pick_together(A100S[:4])] == ['a', 'pf']
    assert [u.id for u in selection.pick_together(A100S[2:4])] == [
        'vf4', 'vf5']


# domains named without a host -------------------------------------------

HOSTS = {'h1': 'gpu-a100-01', 'h2': 'gpu-t4-01'}
T4 = device('t', '0000:d8:00.0', host='h2', model='TU104GL [Tesla T4]')


def test_hosts_of_a_request_are_those_with_its_devices_free_or_not():
    devices = A100S + [T4]
    assert selection.hosts_of(devices, selection.Request(device_count=1)) == {
        'h1': 'h1', 'h2': 'h2'}
    assert selection.hosts_of(devices, selection.Request(
        device_count=1, model='Tesla T4')) == {'h2': 'h2'}
    assert selection.hosts_of([A100S[-1]], selection.Request(
            device_count=1)) == {
        'h1': 'h1'}


def test_domains_narrow_a_count_to_the_hosts_that_have_them():
    found = {'h1': {'gpu-vm-1', 'gpu-vm-2'}, 'h2': {'vgpu-vm-2'}}
    request = selection.on_domain_hosts(
        selection.Request(
                device_count=1), ['gpu-vm-2', 'gpu-vm-2'], HOSTS, found)
    assert (request.host_ids, request.domains) == (('h1',), ('gpu-vm-2',))
    # The tightest fit would be h2's one T4; the domain keeps it on h1.
    devices = A100S + [T4]
    assert ids(selection.select(devices, selection.Request(
            device_count=1))) == ['t']
    assert ids(selection.select(devices, request)) == ['a']
    with pytest.raises(exception.DevicesDoNotFit) as caught:
        selection.select(devices, selection.Request(
            device_count=4, host_ids=('h1',), domains=('gpu-vm-2',)))
    assert ('4 device(s) wanted on a host with domain gpu-vm-2; at most 3 '
            'fit') in caught.value.message


@pytest.mark.parametrize('request_', [
    selection.Request(device_ids=('a',)),
    selection.Request(device_count=1, host_id='h2'),
])
def test_devices_or_a_host_named_are_not_narrowed(request_):
    assert selection.on_domain_hosts(request_, ['gpu-vm-9'], HOSTS,
                                     {}) is request_


def test_no_domains_or_no_host_considered_leaves_the_request():
    request = selection.Request(device_count=1)
    assert selection.on_domain_hosts(request, [], HOSTS, {}) is request
    assert selection.on_domain_hosts(request, ['gpu-vm-2'], {}, {}) is \
        request


@pytest.mark.parametrize('domains,found,detail', [
    (['gpu-vm-9'], {'h1': {'gpu-vm-2'}, 'h2': set()},
     'No host has domain gpu-vm-9; hosts considered (the reservable hosts '
     'with devices of the request): gpu-a100-01, gpu-t4-01.'),
    (['gpu-vm-2', 'vgpu-vm-2'], {'h1': {'gpu-vm-2'}, 'h2': {'vgpu-vm-2'}},
     'No host has all of the domains gpu-vm-2, vgpu-vm-2; hosts considered '
     '(the reservable hosts with devices of the request): gpu-a100-01 (has '
     'gpu-vm-2), gpu-t4-01 (has vgpu-vm-2).'),
    (['vgpu-vm-2'], {'h1': {'gpu-vm-2'}, 'h2': 'libvirt at x: down'},
     'No host has domain vgpu-vm-2; hosts considered (the reservable hosts '
     'with devices of the request): gpu-a100-01, gpu-t4-01 (domains '
     'unreadable: libvirt at x: down).'),
])
def test_domains_no_host_has_name_the_hosts_considered(domains, found,
                                                       detail):
    with pytest.raises(exception.DomainNotFound) as caught:
        selection.on_domain_hosts(selection.Request(device_count=1), domains,
                                  HOSTS, found)
    assert caught.value.message == detail
    assert caught.value.code == 400
