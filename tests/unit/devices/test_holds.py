"""A device's state and why it is blocked (reserve.devices.holds), on
stand-in device rows: functions that share hardware hold each other."""
import datetime
import types

import pytest

from reserve.devices import holds
from reserve.devices import states

PF = '0000:31:00.0'
VFS = ('0000:31:00.4', '0000:31:00.5')


def device(uid, address, pf=None, vfs=(), group=None, in_use_by=(),
           state=states.Device.PRESENT):
    return types.SimpleNamespace(
        id=uid, host_id='h1', pci_address=address, physical_function=pf,
        virtual_functions=list(vfs), iommu_group_members=list(group or ()),
        in_use_by=list(in_use_by), state=state)


def reservation(rid, project='project-a'):
    return types.SimpleNamespace(
        id=rid, project_id=project, projects=[],
        status=states.DeviceReservation.ACTIVE,
        released_at=None, start=datetime.datetime(2030, 1, 1),
        end=states.OPEN_END)


DEVICES = [
    device('gpu', '0000:17:00.0'),
    device('pf', PF, vfs=VFS),
    device('vf4', VFS[0], pf=PF),
    device('vf5', VFS[1], pf=PF),
    # A GPU and a function sharing its IOMMU group.
    device('g1', '0000:01:00.0', group=('0000:01:00.0', '0000:01:00.1')),
    device('g2', '0000:01:00.1', group=('0000:01:00.0', '0000:01:00.1')),
]
BY_ID = {d.id: d for d in DEVICES}
BY_ADDRESS = {(d.host_id, d.pci_address): d for d in DEVICES}
HOST = types.SimpleNamespace(name='gpu-a100-01', reservable=True, failure=None)


def states_of(holders):
    return {d.id: holds.device_state(d, holders, BY_ADDRESS)
            for d in DEVICES}


@pytest.mark.parametrize('held,reserved', [
    ('pf', {'pf', 'vf4', 'vf5'}),
    ('vf4', {'vf4', 'pf'}),
    ('g2', {'g1', 'g2'}),
    ('gpu', {'gpu'}),
])
def test_devices_sharing_hardware_with_a_held_one_are_reserved(held,
                                                               reserved):
    holders = {held: reservation('r1')}
    found = states_of(holders)
    assert {u for u, s in found.items()
            if s == states.DeviceShown.RESERVED} == reserved
    assert {s for u, s in found.items() if u not in reserved} == {
        states.DeviceShown.AVAILABLE}
    for device in reserved:
        assert holds.holder(BY_ID[device], holders, BY_ADDRESS).id == 'r1'


def test_without_its_host_s_devices_only_the_device_itself_counts():
    holders = {'pf': reservation('r1')}
    assert holds.device_state(BY_ID['vf4'], holders) == \
        states.DeviceShown.AVAILABLE
    assert holds.holder(BY_ID['vf4'], holders) is None
    assert holds.device_state(BY_ID['pf'], holders) == \
        states.DeviceShown.RESERVED


def test_missing_and_in_use_come_first():
    holders = {'pf': reservation('r1')}
    busy = device('vf4', VFS[0], pf=PF, in_use_by=['domain vm'])
    gone = device('vf4', VFS[0], pf=PF, state=states.Device.MISSING)
    assert holds.device_state(busy, holders, BY_ADDRESS) == \
        states.DeviceShown.IN_USE
    assert holds.device_state(gone, holders, BY_ADDRESS) == \
        states.DeviceShown.MISSING


@pytest.mark.parametrize('held,device,shares', [
    ('pf', 'vf4', PF), ('pf', 'vf5', PF), ('vf4', 'pf', VFS[0]),
    ('vf5', 'pf', VFS[1]), ('g1', 'g2', '0000:01:00.0'),
])
def test_selection_is_blocked_by_a_hold_on_shared_hardware(held, device,
                                                           shares):
    held = {held: reservation('r1', project='project-b')}
    reason = holds._blocked(BY_ID[device], HOST, held, BY_ADDRESS,
                            'project-a')
    assert reason.startswith('it shares hardware with %s, reserved from '
                             % shares)
    assert 'r1' not in reason
    assert 'by reservation r1' in holds._blocked(
        BY_ID[device], HOST, held, BY_ADDRESS, 'project-b')


def test_virtual_functions_do_not_block_each_other():
    held = {'vf4': reservation('r1')}
    assert holds._blocked(BY_ID['vf5'], HOST, held, BY_ADDRESS,
                          None) is None
    assert holds._blocked(BY_ID['gpu'], HOST, held, BY_ADDRESS,
                          None) is None
