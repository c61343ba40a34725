"""Which device goes to which domain (reserve.devices.plan): pure."""
import types

import pytest

from reserve.common import exception
from reserve.devices import plan
from reserve.devices import states


def device(uid, address, available=16):
    return types.SimpleNamespace(id=uid, pci_address=address,
                                 mdev_types={'nvidia-222': available})


UNITS = [device('a', '0000:17:00.0'), device('b', '0000:31:00.0'),
         device('c', '0000:b1:00.0')]


def test_passthrough_deals_the_devices_over_the_domains():
    rows = plan.for_domains('r', UNITS, ['vm1', 'vm2'], None, 'p')
    assert [(r['device_id'], r['domain'], r['kind']) for r in rows] == [
        ('a', 'vm1', 'pci'), ('b', 'vm2', 'pci'), ('c', 'vm1', 'pci')]
    assert {r['state'] for r in rows} == {states.Attachment.PLANNED}
    assert all(r['mdev_uuid'] is None for r in rows)


def test_passthrough_needs_a_device_per_domain():
    with pytest.raises(exception.Invalid) as caught:
        plan.for_domains('r', UNITS[:1], ['vm1', 'vm2'], None, 'p')
    assert '2 domains but 1 device' in caught.value.message


def test_mdevs_one_per_domain_named_after_what_they_join():
    rows = plan.for_domains('r', UNITS[:2], ['vm1', 'vm2', 'vm3'],
                            'nvidia-222', 'p')
    assert [(r['device_id'], r['domain'], r['kind']) for r in rows] == [
        ('a', 'vm1', 'mdev'), ('b', 'vm2', 'mdev'), ('a', 'vm3', 'mdev')]
    again = plan.for_domains('r', UNITS[:2], ['vm1', 'vm2', 'vm3'],
                             'nvidia-222', 'p')
    assert [r['mdev_uuid'] for r in rows] == [r['mdev_uuid'] for r in again]
    assert len({r['mdev_uuid'] for r in rows}) == 3
    assert plan.mdev_uuid('r2', 'a', 'vm1') != rows[0]['mdev_uuid']


def test_mdevs_within_the_available_instances():
    with pytest.raises(exception.Invalid) as caught:
        plan.for_domains('r', [device('a', '0000:17:00.0', 1)],
                         ['vm1', 'vm2'], 'nvidia-222', 'p')
    assert 'has 1 nvidia-222 instance(s) available, 2 wanted' in \
        caught.value.message


def test_no_domains_no_rows():
    assert plan.for_domains('r', UNITS, [], None, 'p') == []


def _reservation(mdev_type=None, attachments=()):
    return types.SimpleNamespace(id='r', mdev_type=mdev_type, attachments=[
        types.SimpleNamespace(device_id=d, domain=dom,
                              state=states.Attachment.ATTACHED)
        for d, dom in attachments])


def test_one_more_domain_gets_the_free_devices():
    rsv = _reservation(attachments=[('a', 'vm1')])
    rows = plan.for_one_domain(rsv, UNITS, 'vm2', None, 'p')
    assert [r['device_id'] for r in rows] == ['b', 'c']
    # A domain that holds some gets the others no domain holds.
    assert [r['device_id'] for r in plan.for_one_domain(
        rsv, UNITS, 'vm1', None, 'p')] == ['b', 'c']
    with pytest.raises(exception.Conflict):
        plan.for_one_domain(rsv, UNITS, 'vm2', ['a'], 'p')
    with pytest.raises(exception.Invalid):
        plan.for_one_domain(rsv, UNITS, 'vm2', ['zzz'], 'p')
    full = _reservation(attachments=[('a', 'vm1'), ('b', 'vm1'),
                                     ('c', 'vm1')])
    with pytest.raises(exception.Conflict) as caught:
        plan.for_one_domain(full, UNITS, 'vm2', None, 'p')
    assert 'every device' in caught.value.message


def test_one_more_domain_gets_an_mdev_on_the_least_loaded_device():
    rsv = _reservation('nvidia-222', [('a', 'vm1')])
    [row] = plan.for_one_domain(rsv, UNITS[:2], 'vm2', None, 'p')
    assert (row['device_id'], row['kind']) == ('b', 'mdev')
    assert plan.for_one_domain(rsv, UNITS[:2], 'vm1', None, 'p') == []
