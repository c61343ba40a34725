"""/v1/device-reservations through the whole WSGI stack, the lease
manager behind the fake transport, the worker's casts delivered and its
event loop ticked by hand (gpu_api.tick): the life of one, who sees it,
dry runs and bad input."""
import re

import pytest

from reserve.devices import hosts as device_hosts
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import future
from tests.functional.api_fixtures import make_host
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.functional.api_fixtures import READER_A
from tests.functional.devices.reservations import A100
from tests.functional.devices.reservations import HOLD_TABLES
from tests.functional.devices.reservations import counts
from tests.functional.devices.reservations import create
from tests.functional.devices.reservations import MEMBER_C
from tests.functional.devices.reservations import show
from tests.functional.devices.reservations import URL
from tests.functional.devices.reservations import VIEW_FIELDS


# the life of one ---------------------------------------------------------

def test_reserve_watch_it_go_active_and_see_the_hostdev(gpu_api, a100):
    response = create(gpu_api, {
        'count': 2, 'model': A100, 'host': 'gpu-box-1', 'numa_local': True,
        'domains': ['gpu-vm-2'], 'contract_ref': 'C-42',
        'reason': 'thesis'})
    assert response.status_int == 201
    rsv = response.json['device_reservation']
    assert response.headers['Location'].endswith('%s/%s' % (URL, rsv['id']))
    assert set(rsv) == VIEW_FIELDS
    assert rsv['host'] == 'gpu-box-1' and rsv['host_id'] == a100['id']
    assert rsv['allowed_projects'] == ['project-a']
    assert rsv['managing_projects'] == []
    assert rsv['end'] is None           # open-ended
    assert rsv['status'] == 'pending'
    assert rsv['request'] == {'count': 2, 'model': A100,
                              'numa_local': True}
    assert [u['pci_address'] for u in rsv['units']] == [
        '0000:17:00.0', '0000:31:00.0']
    assert rsv['topology_generation'] == a100['topology_generation']
    assert rsv['domains'] == ['gpu-vm-2']
    # Held; its lease is the worker's, its attach the start event's.
    assert rsv['lease_id'] is None
    assert [(a['domain'], a['kind'], a['state']) for a in
            rsv['attachments']] == [('gpu-vm-2', 'pci', 'planned')] * 2
    assert gpu_api.casts == [('create_device_lease', rsv['id'])]
    gpu_api.tick()
    rsv = show(gpu_api, rsv['id']).json['device_reservation']
    assert rsv['status'] == 'active'
    assert rsv['lease_id']
    assert [(a['domain'], a['kind'], a['state']) for a in
            rsv['attachments']] == [('gpu-vm-2', 'pci', 'attached')] * 2
    domain = gpu_api.domain(a100, 'gpu-vm-2')
    assert {'kind': 'pci', 'id': '0000:17:00.0', 'live': True,
            'config': True} in domain['hostdevs']
    assert re.search(r"<hostdev mode=.subsystem. type=.pci.", domain['xml'])
    # The lease engine's view of it.
    lease = gpu_api.app.get('/v1/leases/%s' % rsv['lease_id'],
                            headers=MEMBER_A).json['lease']
    assert lease['name'] == 'device-reservation-%s' % rsv['id']
    assert lease['status'] == 'ACTIVE'
    assert lease['reservations'][0]['resource_type'] == 'device:gpu'


def test_cancel_detaches_and_keeps_the_row(gpu_api, a100):
    rsv = create(gpu_api, {'unit_ids': [gpu_api.device(a100, '0000:b1:00.0')],
                           'domains': ['gpu-vm-2']}).json[
        'device_reservation']
    gpu_api.tick()
    assert gpu_api.app.delete('%s/%s' % (URL, rsv['id']),
                              headers=MEMBER_A).status_int == 204
    gpu_api.tick()
    rsv = show(gpu_api, rsv['id']).json['device_reservation']
    assert rsv['status'] == 'cancelled'
    assert rsv['released_at'] and rsv['lease_id'] is None
    assert [a['state'] for a in rsv['attachments']] == ['detached']
    domain = gpu_api.domain(a100, 'gpu-vm-2')
    assert domain['running'] and domain['hostdevs'] == []
    # Over: deleting it again removes it.
    assert gpu_api.app.delete('%s/%s' % (URL, rsv['id']),
                              headers=MEMBER_A).status_int == 204
    assert_error(show(gpu_api, rsv['id'], expect_errors=True), 404)


def test_a_future_window_with_an_end(gpu_api, a100):
    start, end = future(24), future(48)
    rsv = create(gpu_api, {'count': 1, 'model': A100, 'start': start,
                           'end': end, 'domains': ['gpu-vm-3']}).json[
        'device_reservation']
    assert (rsv['start'], rsv['end']) == (start, end)
    assert [a['state'] for a in rsv['attachments']] == ['planned']
    assert gpu_api.domain(a100, 'gpu-vm-3')['hostdevs'] == []


# isolation -------------------------------------------------------------------

def test_other_projects_see_neither_it_nor_its_devices(gpu_api, a100):
    device = gpu_api.device(a100, '0000:17:00.0')
    rsv = create(gpu_api, {'unit_ids': [device]}).json['device_reservation']
    gpu_api.tick()
    app = gpu_api.app
    assert_error(show(gpu_api, rsv['id'], headers=MEMBER_B,
                      expect_errors=True), 404, 'reserve.not_found')
    assert app.get(URL, headers=MEMBER_B).json['device_reservations'] == []
    for verb in ('affirm', 'attach', 'detach'):
        response = app.post_json('%s/%s/%s' % (URL, rsv['id'], verb),
                                 {'domain': 'gpu-vm-2'}, headers=MEMBER_B,
                                 expect_errors=True)
        assert response.status_int in (403, 404), verb
        if verb != 'affirm':
            assert_error(response, 404)
    assert_error(app.delete('%s/%s' % (URL, rsv['id']), headers=MEMBER_B,
                            expect_errors=True), 404)
    assert_error(app.patch_json('%s/%s' % (URL, rsv['id']),
                                {'domains': ['gpu-vm-2']},
                                headers=MEMBER_B, expect_errors=True), 404)
    # Its device is gone from project-b's catalogue...
    ids = [d['id'] for d in app.get('/v1/devices',
                                    headers=MEMBER_B).json['devices']]
    assert device not in ids and len(ids) == 3
    assert_error(app.get('/v1/devices/%s' % device, headers=MEMBER_B,
                         expect_errors=True), 404)
    free = app.get('/v1/devices/availability',
                   headers=MEMBER_B).json['availability']
    assert device not in free[0]['unit_ids']
    # ...and cannot be reserved by it.
    assert_error(create(gpu_api, {'unit_ids': [device]}, headers=MEMBER_B,
                        expect_errors=True), 404, 'reserve.not_found')
    # The audience sees it as reserved, by this reservation.
    mine = app.get('/v1/devices/%s' % device, headers=READER_A).json['device']
    assert (mine['state'], mine['reservation_id']) == ('reserved',
                                                       rsv['id'])


def test_audience_and_managers(gpu_api, a100):
    rsv = create(gpu_api, {
        'count': 1, 'model': A100, 'allowed_projects': ['project-b'],
        'managing_projects': ['project-c']}, headers=ADMIN).json[
        'device_reservation']
    gpu_api.tick()
    app = gpu_api.app
    for who in (MEMBER_B, MEMBER_C):
        assert show(gpu_api, rsv['id'], headers=who).status_int == 200
        assert [r['id'] for r in app.get(URL, headers=who).json[
            'device_reservations']] == [rsv['id']]
    assert_error(show(gpu_api, rsv['id'], headers=MEMBER_A,
                      expect_errors=True), 404)
    # The audience names a domain of its own while it is active...
    gpu_api.own(a100, 'gpu-vm-3', 'project-b')
    answer = app.post_json('%s/%s/attach' % (URL, rsv['id']),
                           {'domain': 'gpu-vm-3'}, headers=MEMBER_B).json
    assert answer['device_reservation']['domains'] == ['gpu-vm-3']
    assert gpu_api.domain(a100, 'gpu-vm-3')['hostdevs']
    # ...but cannot cancel it: the managers can.
    assert_error(app.delete('%s/%s' % (URL, rsv['id']), headers=MEMBER_B,
                            expect_errors=True), 403, 'reserve.forbidden')
    assert app.delete('%s/%s' % (URL, rsv['id']),
                      headers=MEMBER_C).status_int == 204


def test_a_member_reserves_only_for_its_own_project(gpu_api, a100):
    response = create(gpu_api, {'count': 1, 'model': A100,
                                'allowed_projects': ['project-b']},
                      expect_errors=True)
    assert_error(response, 403, 'reserve.forbidden')
    response = create(gpu_api, {'count': 1, 'model': A100},
                      headers=READER_A, expect_errors=True)
    assert_error(response, 403, 'reserve.forbidden')
    assert counts()['device_reservations'] == 0


def test_overlap_is_409_without_naming_the_other(gpu_api, a100):
    device = gpu_api.device(a100, '0000:17:00.0')
    first = create(gpu_api, {'unit_ids': [device], 'start': future(24),
                             'end': future(48)}).json['device_reservation']
    before = counts()
    response = create(gpu_api, {'unit_ids': [device], 'start': future(30),
                                'end': future(60)}, headers=MEMBER_B,
                      expect_errors=True)
    error = assert_error(response, 409, 'reserve.units_unavailable',
                         'reserved from')
    assert first['id'] not in error['detail']
    assert counts() == before
    # Its own project is told which.
    response = create(gpu_api, {'unit_ids': [device], 'start': future(30),
                                'end': future(60)}, expect_errors=True)
    assert_error(response, 409, 'reserve.units_unavailable', first['id'])


# dry runs ------------------------------------------------------------------

def test_dry_run_answers_and_writes_nothing(gpu_api, a100):
    before = counts()
    answer = gpu_api.app.post_json(URL + '?dry_run=true', {
        'count': 2, 'model': A100, 'numa_local': True,
        'domains': ['gpu-vm-2', 'gpu-vm-3']}, headers=MEMBER_A)
    assert answer.status_int == 200
    dry = answer.json['dry_run']
    assert dry['fits'] is True and dry['host'] == 'gpu-box-1'
    assert [u['pci_address'] for u in dry['units']] == [
        '0000:17:00.0', '0000:31:00.0']
    assert [(a['domain'], a['pci_address']) for a in dry['attachments']] \
        == [('gpu-vm-2', '0000:17:00.0'), ('gpu-vm-3', '0000:31:00.0')]
    assert dry['end'] is None
    no = gpu_api.app.post_json(URL + '?dry_run=1', {
        'count': 3, 'model': A100, 'numa_local': True},
        headers=MEMBER_A).json['dry_run']
    assert no['fits'] is False and 'at most 2' in no['reason']
    assert counts() == before
    assert gpu_api.domain(a100, 'gpu-vm-2')['hostdevs'] == []
    # Bad input is still bad input.
    response = gpu_api.app.post_json(URL + '?dry_run=true', {'count': 0},
                                     headers=MEMBER_A, expect_errors=True)
    assert_error(response, 400, 'reserve.invalid', "field 'count'")


# bad input: a clear 4xx and nothing written ---------------------------------

@pytest.mark.parametrize('body,status,code,detail', [
    ({}, 400, 'reserve.invalid', "either 'unit_ids'"),
    ({'count': 1, 'unit_ids': ['x']}, 400, 'reserve.invalid', 'not both'),
    ({'unit_ids': ['x'], 'model': A100}, 400, 'reserve.invalid',
     "'model' goes with 'count'"),
    ({'count': 1, 'colour': 'red'}, 400, 'reserve.invalid', "'colour'"),
    ({'count': 'two'}, 400, 'reserve.invalid', "field 'count'"),
    ({'count': 1, 'start': 'tomorrow'}, 400, 'reserve.invalid', 'start'),
    ({'count': 1, 'start': '2020-01-01T00:00:00Z'}, 400, 'reserve.invalid',
     'in the past'),
    ({'count': 1, 'end': '2020-01-01T00:00:00Z'}, 400, 'reserve.invalid',
     'end'),
    ({'count': 1, 'host': 'nowhere'}, 400, 'reserve.invalid',
     "field 'host'"),
    ({'count': 1, 'domains': ['a/b']}, 400, 'reserve.invalid',
     "field 'domains.0'"),
    ({'count': 1, 'domains': ['no-such-vm']}, 400,
     'reserve.domain_not_found', 'no-such-vm'),
    ({'count': 1, 'domains': ['gpu-vm-2', 'gpu-vm-3']}, 400,
     'reserve.invalid', '2 domains but 1 device'),
    ({'count': 1, 'mdev_type': 'nvidia-222'}, 409,
     'reserve.devices_do_not_fit', 'nvidia-222'),
    ({'count': 9, 'model': A100}, 409, 'reserve.devices_do_not_fit',
     'at most 3'),
    ({'count': 1, 'model': 'H100'}, 409, 'reserve.devices_do_not_fit',
     'no device'),
    ({'unit_ids': ['no-such-device']}, 404, 'reserve.not_found',
     'no-such-device'),
    ({'count': 1, 'allowed_projects': []}, 400, 'reserve.invalid',
     'allowed_projects'),
])
def test_bad_requests(gpu_api, a100, body, status, code, detail):
    response = create(gpu_api, body, expect_errors=True)
    assert_error(response, status, code, detail)
    assert counts() == dict.fromkeys(HOLD_TABLES, 0)
    assert gpu_api.domain(a100, 'gpu-vm-2')['hostdevs'] == []


def test_device_specific_errors(gpu_api, a100):
    t4 = gpu_api.enroll('t4-host.xml')
    nova = make_host('compute-1.example.org')
    cases = [
        ({'unit_ids': [gpu_api.device(a100, '0000:17:00.0'),
                       gpu_api.device(t4, '0000:d8:00.0')]}, 400,
         'must be on one host'),
        ({'unit_ids': [gpu_api.device(a100, '0000:31:00.0'),
                       gpu_api.device(a100, '0000:31:00.4')]}, 400,
         'share hardware'),
        ({'unit_ids': [gpu_api.device(a100, '0000:17:00.0'),
                       gpu_api.device(a100, '0000:b1:00.0')],
          'numa_local': True}, 400, 'numa_local'),
        ({'unit_ids': [gpu_api.device(a100, '0000:17:00.0')],
          'mdev_type': 'nvidia-222'}, 400, 'offers no mediated device'),
        # Not which domain holds it: it may be another project's.
        ({'unit_ids': [gpu_api.device(a100, '0000:ca:00.0')]}, 409,
         'in use outside reserve'),
        ({'count': 1, 'host': nova.name}, 400, 'libvirt'),
    ]
    for body, status, detail in cases:
        response = create(gpu_api, body, expect_errors=True)
        assert_error(response, status, detail_has=detail)
    assert counts() == dict.fromkeys(HOLD_TABLES, 0)


def test_more_slices_than_a_device_offers_is_400(gpu_api):
    t4 = gpu_api.enroll('t4-host.xml')
    # Two domains want a T4-16Q slice each; the card offers one.
    response = create(gpu_api, {
        'unit_ids': [gpu_api.device(t4, '0000:d8:00.0')],
        'mdev_type': 'nvidia-230',
        'domains': ['vgpu-vm-2', 'vgpu-vm-3']}, expect_errors=True)
    assert_error(response, 400, 'reserve.invalid', '1 nvidia-230')
    assert counts() == dict.fromkeys(HOLD_TABLES, 0)


def test_a_failed_mdev_creation_is_undone_and_shown(gpu_api):
    t4 = gpu_api.enroll('t4-host.xml')
    conn = device_hosts.connect(t4['uri'])
    # Someone takes the card's one T4-16Q slice behind reserve's back,
    # after the last discovery.
    taken = conn.create_mdev('0000:d8:00.0', 'nvidia-230')
    mdevs = sorted(m.uuid for m in conn.mdevs())
    rsv = create(gpu_api, {
        'unit_ids': [gpu_api.device(t4, '0000:d8:00.0')],
        'mdev_type': 'nvidia-230', 'domains': ['vgpu-vm-2']}).json[
        'device_reservation']
    # The attach is its start event's: the failure shows on the
    # reservation and on the lease's event, which is retried.
    gpu_api.tick()
    shown = show(gpu_api, rsv['id']).json['device_reservation']
    assert shown['status'] == 'pending'
    assert 'failed and was undone' in shown['status_reason']
    lease = gpu_api.app.get('/v1/leases/%s' % shown['lease_id'],
                            headers=ADMIN).json['lease']
    start = next(e for e in lease['events']
                 if e['event_type'] == 'start_lease')
    assert 'failed and was undone' in start['last_error']
    assert sorted(m.uuid for m in conn.mdevs()) == mdevs
    assert gpu_api.domain(t4, 'vgpu-vm-2')['hostdevs'] == []
    assert taken.uuid in mdevs
