"""GET /v1/calendar?host_id= of a libvirt host (1.5): a row per GPU
device, its device reservations on it, others' as busy."""
import datetime

from reserve.common import timeutils
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import iso
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.functional.devices.reservations import A100
from tests.functional.devices.reservations import create

V15 = {'OpenStack-API-Version': 'reserve 1.5'}
HOUR = datetime.timedelta(hours=1)


def _calendar(gpu_api, host, headers, start, end):
    return gpu_api.app.get(
        '/v1/calendar', {'host_id': host, 'start': iso(start),
                         'end': iso(end)},
        headers=dict(headers, **V15)).json['calendar']


def test_each_device_a_row_with_its_reservations(gpu_api, a100):
    now = timeutils.utcnow().replace(microsecond=0)
    start = now + 2 * HOUR
    mine = create(gpu_api, {
        'count': 1, 'model': A100, 'host': 'gpu-box-1',
        'start': iso(start), 'end': iso(start + 3 * HOUR)}).json[
            'device_reservation']
    theirs = create(gpu_api, {
        'count': 2, 'model': A100, 'host': 'gpu-box-1',
        'start': iso(start + HOUR), 'end': iso(start + 2 * HOUR)},
        headers=MEMBER_B).json['device_reservation']
    cal = _calendar(gpu_api, 'gpu-box-1', MEMBER_A, now, now + 24 * HOUR)
    assert cal['subject'] == {'id': a100['id'], 'name': 'gpu-box-1',
                              'kind': 'libvirt'}
    devices = gpu_api.app.get('/v1/devices', {'host': 'gpu-box-1'},
                              headers=ADMIN).json['devices']
    assert len(cal['rows']) == len(devices)
    assert all(r['label'].startswith('0000:') for r in cal['rows'])
    bars = [b for r in cal['rows'] for b in r['bars']]
    assert sorted((b['own'], b['status']) for b in bars) == [
        (False, 'busy'), (False, 'busy'), (True, 'PENDING')]
    own, = [b for b in bars if b['own']]
    assert own['id'] == mine['id'] and own['kind'] == 'device_reservation'
    row_of_mine, = [r['label'] for r in cal['rows']
                    if own in r['bars']]
    assert row_of_mine.split()[0] == mine['units'][0]['pci_address']
    # While both hold, the host has its other devices free.
    least = min(f['free'] for f in cal['free'])
    assert least == len(devices) - 3
    admin = _calendar(gpu_api, a100['id'], ADMIN, now, now + 24 * HOUR)
    assert {b.get('id') for r in admin['rows'] for b in r['bars']} == {
        mine['id'], theirs['id']}
