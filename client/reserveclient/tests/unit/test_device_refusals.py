"""A device reservation that does not fit: the API's counter offer
(1.11), as the commands that reserve each window; a refused later end
as the command that moves it as late as it fits."""
from osc_lib import exceptions
import pytest

from reserveclient.osc.v1 import device_reservations as rsv_cmds

A100 = 'A100 SXM4 80GB'


@pytest.fixture
def full(api):
    """A host of 4 devices, 3 held from 05:00 to 07:00."""
    api.device_slots = 4
    api.device_reservations.add(
        device_count=3, start='2030-01-01T05:00:00Z',
        end='2030-01-01T07:00:00Z', status='pending')
    return api


def _refused(runner, command, args):
    with pytest.raises(exceptions.CommandError) as err:
        runner.take(command, args)
    return str(err.value)


def test_the_windows_offered_as_commands(runner, full):
    message = _refused(runner, rsv_cmds.CreateDeviceReservation, [
        '--count', '2', '--model', A100, '--numa-local', '--domain',
        'vm 1', '--start', '2030-01-01T06:00', '--end',
        '2030-01-01T08:00'])
    lines = message.splitlines()
    assert lines[0].startswith('No GPU devices fit: 2 device(s) wanted')
    assert 'GET /v1/devices' not in message
    assert lines[1] == (
        "  the later window: openstack reserve device reservation create "
        "--count 2 --model 'A100 SXM4 80GB' --numa-local --domain 'vm 1' "
        "--start 2030-01-01T07:00:00Z --end 2030-01-01T09:00:00Z")
    assert lines[2] == (
        "  the most that fit then (1): openstack reserve device "
        "reservation create --count 1 --model 'A100 SXM4 80GB' "
        "--numa-local --domain 'vm 1' --start 2030-01-01T06:00:00Z "
        "--end 2030-01-01T08:00:00Z (HTTP 409, reserve.devices_do_not_fit,"
        " request req-fake)")
    assert len(full.device_reservations.items) == 1


def test_an_open_ended_window_has_no_end(runner, full):
    message = _refused(runner, rsv_cmds.CreateDeviceReservation, [
        '--count', '2', '--model', A100, '--host', 'gpu-a100-01',
        '--start', '2030-01-01T06:00'])
    assert message.splitlines()[1] == (
        "  the later window: openstack reserve device reservation create "
        "--count 2 --model 'A100 SXM4 80GB' --host gpu-a100-01 "
        "--start 2030-01-01T07:00:00Z")


def test_an_older_server_says_it_in_its_words(runner, full):
    full.max_version = '1.6'
    message = _refused(runner, rsv_cmds.CreateDeviceReservation, [
        '--count', '2', '--model', A100, '--start', '2030-01-01T06:00',
        '--end', '2030-01-01T08:00'])
    assert 'GET /v1/devices/availability?model=A100+SXM4+80GB' in message
    assert 'openstack reserve' not in message


def test_the_latest_end_as_a_command(runner, full):
    full.device_slots = 3
    mine = full.device_reservations.add(
        device_count=1, start='2030-01-01T01:00:00Z',
        end='2030-01-01T03:00:00Z', status='active')
    message = _refused(runner, rsv_cmds.SetDeviceReservation, [
        mine['id'], '--end', '2030-01-01T06:00'])
    lines = message.splitlines()
    assert 'It can be moved to 2030-01-01T05:00:00Z at the latest' in \
        lines[0]
    assert lines[1] == (
        '  as late as it fits: openstack reserve device reservation set '
        '%s --end 2030-01-01T05:00:00Z (HTTP 409, '
        'reserve.units_unavailable, request req-fake)' % mine['id'])
    assert mine['end'] == '2030-01-01T03:00:00Z'
