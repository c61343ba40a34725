"""/v1/device-reservations through the whole WSGI stack, the lease
manager behind the fake transport, the worker's casts delivered and its
event loop ticked by hand (gpu_api.tick)."""
import re

import pytest
import sqlalchemy as sa

from reserve.db import api as db_api
from reserve.db import models
from reserve.devices import hosts as device_hosts
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import future
from tests.functional.api_fixtures import make_host
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.functional.api_fixtures import persona
from tests.functional.api_fixtures import READER_A

URL = '/v1/device-reservations'
A100 = 'A100 SXM4 80GB'
MEMBER_C = persona('carol', 'project-c', 'member,reader')
VIEW_FIELDS = {
    'id', 'host_id', 'host', 'project_id', 'user_id', 'allowed_projects',
    'managing_projects', 'unit_ids', 'units', 'mdev_type', 'request',
    'start', 'end', 'status', 'status_reason', 'contract_ref', 'reason',
    'topology_generation', 'domains', 'attachments', 'lease_id',
    'released_at', 'created_at', 'updated_at'}
CLAIM_TABLES = ('device_reservations', 'device_reservation_units',
                'device_reservation_projects', 'device_attachments',
                'leases', 'events', 'lease_reservations', 'allocations')


def _counts():
    with db_api.get_engine().connect() as conn:
        return {t: len(conn.execute(
            models.Base.metadata.tables[t].select()).all())
            for t in CLAIM_TABLES}


def _create(gpu_api, body, headers=MEMBER_A, url=URL, **kwargs):
    return gpu_api.app.post_json(url, body, headers=headers, **kwargs)


def _show(gpu_api, rsv_id, headers=MEMBER_A, **kwargs):
    return gpu_api.app.get('%s/%s' % (URL, rsv_id), headers=headers,
                           **kwargs)


@pytest.fixture
def a100(gpu_api):
    return gpu_api.enroll('a100-host.xml', name='gpu-box-1')


# the life of one ---------------------------------------------------------

def test_reserve_watch_it_go_active_and_see_the_hostdev(gpu_api, a100):
    response = _create(gpu_api, {
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
    # Claimed; its lease is the worker's, its attach the start event's.
    assert rsv['lease_id'] is None
    assert [(a['domain'], a['kind'], a['state']) for a in
            rsv['attachments']] == [('gpu-vm-2', 'pci', 'planned')] * 2
    assert gpu_api.casts == [('create_unit_lease', rsv['id'])]
    gpu_api.tick()
    rsv = _show(gpu_api, rsv['id']).json['device_reservation']
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
    rsv = _create(gpu_api, {'unit_ids': [gpu_api.unit(a100, '0000:b1:00.0')],
                            'domains': ['gpu-vm-2']}).json[
        'device_reservation']
    gpu_api.tick()
    assert gpu_api.app.delete('%s/%s' % (URL, rsv['id']),
                              headers=MEMBER_A).status_int == 204
    gpu_api.tick()
    rsv = _show(gpu_api, rsv['id']).json['device_reservation']
    assert rsv['status'] == 'cancelled'
    assert rsv['released_at'] and rsv['lease_id'] is None
    assert [a['state'] for a in rsv['attachments']] == ['detached']
    domain = gpu_api.domain(a100, 'gpu-vm-2')
    assert domain['running'] and domain['hostdevs'] == []
    # Over: deleting it again removes it.
    assert gpu_api.app.delete('%s/%s' % (URL, rsv['id']),
                              headers=MEMBER_A).status_int == 204
    assert_error(_show(gpu_api, rsv['id'], expect_errors=True), 404)


def test_a_future_window_with_an_end(gpu_api, a100):
    start, end = future(24), future(48)
    rsv = _create(gpu_api, {'count': 1, 'model': A100, 'start': start,
                            'end': end, 'domains': ['gpu-vm-3']}).json[
        'device_reservation']
    assert (rsv['start'], rsv['end']) == (start, end)
    assert [a['state'] for a in rsv['attachments']] == ['planned']
    assert gpu_api.domain(a100, 'gpu-vm-3')['hostdevs'] == []


# isolation -------------------------------------------------------------------

def test_other_projects_see_neither_it_nor_its_units(gpu_api, a100):
    unit = gpu_api.unit(a100, '0000:17:00.0')
    rsv = _create(gpu_api, {'unit_ids': [unit]}).json['device_reservation']
    gpu_api.tick()
    app = gpu_api.app
    assert_error(_show(gpu_api, rsv['id'], headers=MEMBER_B,
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
    # Its unit is gone from project-b's catalogue...
    ids = [d['id'] for d in app.get('/v1/devices',
                                    headers=MEMBER_B).json['devices']]
    assert unit not in ids and len(ids) == 3
    assert_error(app.get('/v1/devices/%s' % unit, headers=MEMBER_B,
                         expect_errors=True), 404)
    free = app.get('/v1/devices/availability',
                   headers=MEMBER_B).json['availability']
    assert unit not in free[0]['unit_ids']
    # ...and cannot be reserved by it.
    assert_error(_create(gpu_api, {'unit_ids': [unit]}, headers=MEMBER_B,
                         expect_errors=True), 404, 'reserve.not_found')
    # The audience sees it as reserved, by this reservation.
    mine = app.get('/v1/devices/%s' % unit, headers=READER_A).json['device']
    assert (mine['state'], mine['reservation_id']) == ('reserved',
                                                       rsv['id'])


def test_audience_and_managers(gpu_api, a100):
    rsv = _create(gpu_api, {
        'count': 1, 'model': A100, 'allowed_projects': ['project-b'],
        'managing_projects': ['project-c']}, headers=ADMIN).json[
        'device_reservation']
    gpu_api.tick()
    app = gpu_api.app
    for who in (MEMBER_B, MEMBER_C):
        assert _show(gpu_api, rsv['id'], headers=who).status_int == 200
        assert [r['id'] for r in app.get(URL, headers=who).json[
            'device_reservations']] == [rsv['id']]
    assert_error(_show(gpu_api, rsv['id'], headers=MEMBER_A,
                       expect_errors=True), 404)
    # The audience names a domain while it is active...
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
    response = _create(gpu_api, {'count': 1, 'model': A100,
                                 'allowed_projects': ['project-b']},
                       expect_errors=True)
    assert_error(response, 403, 'reserve.forbidden')
    response = _create(gpu_api, {'count': 1, 'model': A100},
                       headers=READER_A, expect_errors=True)
    assert_error(response, 403, 'reserve.forbidden')
    assert _counts()['device_reservations'] == 0


def test_overlap_is_409_without_naming_the_other(gpu_api, a100):
    unit = gpu_api.unit(a100, '0000:17:00.0')
    first = _create(gpu_api, {'unit_ids': [unit], 'start': future(24),
                              'end': future(48)}).json['device_reservation']
    before = _counts()
    response = _create(gpu_api, {'unit_ids': [unit], 'start': future(30),
                                 'end': future(60)}, headers=MEMBER_B,
                       expect_errors=True)
    error = assert_error(response, 409, 'reserve.units_unavailable',
                         'reserved from')
    assert first['id'] not in error['detail']
    assert _counts() == before
    # Its own project is told which.
    response = _create(gpu_api, {'unit_ids': [unit], 'start': future(30),
                                 'end': future(60)}, expect_errors=True)
    assert_error(response, 409, 'reserve.units_unavailable', first['id'])


# dry runs ------------------------------------------------------------------

def test_dry_run_answers_and_writes_nothing(gpu_api, a100):
    before = _counts()
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
    assert _counts() == before
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
     'reserve.invalid', '2 domains but 1 unit'),
    ({'count': 1, 'mdev_type': 'nvidia-222'}, 409,
     'reserve.devices_do_not_fit', 'nvidia-222'),
    ({'count': 9, 'model': A100}, 409, 'reserve.devices_do_not_fit',
     'at most 3'),
    ({'count': 1, 'model': 'H100'}, 409, 'reserve.devices_do_not_fit',
     'no unit'),
    ({'unit_ids': ['no-such-unit']}, 404, 'reserve.not_found',
     'no-such-unit'),
    ({'count': 1, 'allowed_projects': []}, 400, 'reserve.invalid',
     'allowed_projects'),
])
def test_bad_requests(gpu_api, a100, body, status, code, detail):
    response = _create(gpu_api, body, expect_errors=True)
    assert_error(response, status, code, detail)
    assert _counts() == dict.fromkeys(CLAIM_TABLES, 0)
    assert gpu_api.domain(a100, 'gpu-vm-2')['hostdevs'] == []


def test_unit_specific_errors(gpu_api, a100):
    t4 = gpu_api.enroll('t4-host.xml')
    nova = make_host('compute-1.example.org')
    cases = [
        ({'unit_ids': [gpu_api.unit(a100, '0000:17:00.0'),
                       gpu_api.unit(t4, '0000:d8:00.0')]}, 400,
         'must be on one host'),
        ({'unit_ids': [gpu_api.unit(a100, '0000:31:00.0'),
                       gpu_api.unit(a100, '0000:31:00.4')]}, 400,
         'share hardware'),
        ({'unit_ids': [gpu_api.unit(a100, '0000:17:00.0'),
                       gpu_api.unit(a100, '0000:b1:00.0')],
          'numa_local': True}, 400, 'numa_local'),
        ({'unit_ids': [gpu_api.unit(a100, '0000:17:00.0')],
          'mdev_type': 'nvidia-222'}, 400, 'offers no mediated device'),
        ({'unit_ids': [gpu_api.unit(a100, '0000:ca:00.0')]}, 409,
         'in use by domain gpu-vm-1'),
        ({'count': 1, 'host': nova.name}, 400, 'libvirt'),
    ]
    for body, status, detail in cases:
        response = _create(gpu_api, body, expect_errors=True)
        assert_error(response, status, detail_has=detail)
    assert _counts() == dict.fromkeys(CLAIM_TABLES, 0)


def test_more_slices_than_a_unit_offers_is_400(gpu_api):
    t4 = gpu_api.enroll('t4-host.xml')
    # Two domains want a T4-16Q slice each; the card offers one.
    response = _create(gpu_api, {
        'unit_ids': [gpu_api.unit(t4, '0000:d8:00.0')],
        'mdev_type': 'nvidia-230',
        'domains': ['vgpu-vm-2', 'vgpu-vm-3']}, expect_errors=True)
    assert_error(response, 400, 'reserve.invalid', '1 nvidia-230')
    assert _counts() == dict.fromkeys(CLAIM_TABLES, 0)


def test_a_failed_mdev_creation_is_undone_and_shown(gpu_api):
    t4 = gpu_api.enroll('t4-host.xml')
    conn = device_hosts.connect(t4['uri'])
    # Someone takes the card's one T4-16Q slice behind reserve's back,
    # after the last discovery.
    taken = conn.create_mdev('0000:d8:00.0', 'nvidia-230')
    mdevs = sorted(m.uuid for m in conn.mdevs())
    rsv = _create(gpu_api, {
        'unit_ids': [gpu_api.unit(t4, '0000:d8:00.0')],
        'mdev_type': 'nvidia-230', 'domains': ['vgpu-vm-2']}).json[
        'device_reservation']
    # The attach is its start event's: the failure shows on the
    # reservation and on the lease's event, which is retried.
    gpu_api.tick()
    shown = _show(gpu_api, rsv['id']).json['device_reservation']
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


# changes ---------------------------------------------------------------------

def test_patch_domains_and_the_admin_fields(gpu_api, a100):
    rsv = _create(gpu_api, {'count': 2, 'model': A100, 'numa_local': True,
                            'domains': ['gpu-vm-2']}).json[
        'device_reservation']
    gpu_api.tick()
    rsv = _show(gpu_api, rsv['id']).json['device_reservation']
    app, url = gpu_api.app, '%s/%s' % (URL, rsv['id'])
    changed = app.patch_json(url, {'domains': ['gpu-vm-3']},
                             headers=MEMBER_A).json['device_reservation']
    assert changed['domains'] == ['gpu-vm-3']
    assert len(gpu_api.domain(a100, 'gpu-vm-3')['hostdevs']) == 2
    assert gpu_api.domain(a100, 'gpu-vm-2')['hostdevs'] == []
    assert_error(app.patch_json(url, {'domains': [], 'reason': 'x'},
                                headers=ADMIN, expect_errors=True), 400,
                 detail_has="'domains' on their own")
    assert_error(app.patch_json(url, {'end': future(5)}, headers=MEMBER_A,
                                expect_errors=True), 403)
    end = future(5)
    changed = app.patch_json(url, {
        'end': end, 'reason': 'moved', 'contract_ref': 'C-7',
        'managing_projects': ['project-c']},
        headers=ADMIN).json['device_reservation']
    assert changed['end'] == end
    assert (changed['reason'], changed['contract_ref']) == ('moved', 'C-7')
    assert changed['managing_projects'] == ['project-c']
    lease = app.get('/v1/leases/%s' % rsv['lease_id'], headers=ADMIN).json
    assert lease['lease']['end'] == end
    changed = app.patch_json(url, {'end': None},
                             headers=ADMIN).json['device_reservation']
    assert changed['end'] is None
    assert_error(app.patch_json(url, {}, headers=ADMIN,
                                expect_errors=True), 400)


def test_attach_detach_and_bad_actions(gpu_api):
    t4 = gpu_api.enroll('t4-host.xml')
    rsv = _create(gpu_api, {'count': 1, 'model': 'Tesla T4',
                            'mdev_type': 'nvidia-222'}).json[
        'device_reservation']
    gpu_api.tick()
    app, url = gpu_api.app, '%s/%s' % (URL, rsv['id'])
    for domain in ('vgpu-vm-2', 'vgpu-vm-3'):
        app.post_json(url + '/attach', {'domain': domain}, headers=MEMBER_A)
    shown = _show(gpu_api, rsv['id']).json['device_reservation']
    assert shown['domains'] == ['vgpu-vm-2', 'vgpu-vm-3']
    assert all(a['kind'] == 'mdev' and a['state'] == 'attached'
               for a in shown['attachments'])
    assert gpu_api.domain(t4, 'vgpu-vm-3')['hostdevs'][0]['kind'] == 'mdev'
    app.post_json(url + '/detach', {'domain': 'vgpu-vm-3'},
                  headers=MEMBER_A)
    assert gpu_api.domain(t4, 'vgpu-vm-3')['hostdevs'] == []
    assert_error(app.post_json(url + '/detach', {'domain': 'vgpu-vm-3'},
                               headers=MEMBER_A, expect_errors=True), 400,
                 detail_has='holds no unit')
    assert_error(app.post_json(url + '/attach', {'domain': 'nope'},
                               headers=MEMBER_A, expect_errors=True), 400,
                 'reserve.domain_not_found')
    assert_error(app.post_json(url + '/attach', {}, headers=MEMBER_A,
                               expect_errors=True), 400,
                 detail_has="'domain'")
    assert_error(app.get(url + '/attach', headers=MEMBER_A,
                         expect_errors=True), 405)
    assert_error(app.post_json(url + '/explode', {}, headers=MEMBER_A,
                               expect_errors=True), 404)
    assert_error(app.post_json(url + '/affirm', {}, headers=MEMBER_A,
                               expect_errors=True), 403)
    assert_error(app.post(url + '/affirm', headers=ADMIN,
                          expect_errors=True), 409, 'reserve.invalid_state',
                 'needs-review')


def test_needs_review_and_affirm_through_the_api(gpu_api, a100):
    rsv = _create(gpu_api, {'unit_ids': [gpu_api.unit(a100, '0000:17:00.0')],
                            'domains': ['gpu-vm-2']}).json[
        'device_reservation']
    gpu_api.tick()
    gpu_api.topology_change(a100, lambda text: text.replace(
        "<iommuGroup number='150'>", "<iommuGroup number='151'>", 1))
    app = gpu_api.app
    report = app.post('/v1/hosts/%s/refresh' % a100['id'],
                      headers=ADMIN).json['refresh']
    assert report['needs_review'] == [rsv['id']]
    shown = _show(gpu_api, rsv['id']).json['device_reservation']
    assert shown['status'] == 'needs-review'
    assert shown['attachments'][0]['state'] == 'planned'
    assert gpu_api.domain(a100, 'gpu-vm-2')['hostdevs'] == []
    # Its unit stays withheld from everyone.
    assert_error(_create(gpu_api, {'unit_ids': [rsv['unit_ids'][0]]},
                         headers=ADMIN, expect_errors=True), 409)
    affirmed = app.post('%s/%s/affirm' % (URL, rsv['id']),
                        headers=ADMIN).json['device_reservation']
    assert affirmed['status'] == 'active'
    assert affirmed['topology_generation'] != rsv['topology_generation']
    assert affirmed['status_reason'].startswith('affirmed by root')
    assert gpu_api.domain(a100, 'gpu-vm-2')['hostdevs']


def test_list_filters(gpu_api, a100):
    t4 = gpu_api.enroll('t4-host.xml')
    _create(gpu_api, {'count': 1, 'model': A100})
    _create(gpu_api, {'count': 1, 'model': 'Tesla T4'})
    _create(gpu_api, {'count': 1, 'model': A100}, headers=MEMBER_B)
    app = gpu_api.app
    assert len(app.get(URL, headers=MEMBER_A).json[
        'device_reservations']) == 2
    assert len(app.get(URL, {'all_projects': '1'}, headers=ADMIN).json[
        'device_reservations']) == 3
    assert len(app.get(URL, {'host': t4['name']}, headers=MEMBER_A).json[
        'device_reservations']) == 1
    assert app.get(URL, {'status': 'active'}, headers=MEMBER_A).json[
        'device_reservations'] == []
    assert_error(app.get(URL, {'status': 'bogus'}, headers=MEMBER_A,
                         expect_errors=True), 400)
    assert_error(app.get(URL, {'all_projects': '1'}, headers=MEMBER_A,
                         expect_errors=True), 403)


def test_the_list_shows_each_as_its_get_does(gpu_api, a100):
    app = gpu_api.app
    over = _create(gpu_api, {
        'unit_ids': [gpu_api.unit(a100, '0000:b1:00.0')],
        'domains': ['gpu-vm-2']}).json['device_reservation']
    gpu_api.tick()
    assert app.delete('%s/%s' % (URL, over['id']),
                      headers=MEMBER_A).status_int == 204
    gpu_api.tick()
    _create(gpu_api, {'count': 2, 'model': A100, 'domains': ['gpu-vm-2'],
                      'contract_ref': 'C-1', 'reason': 'thesis'})
    _create(gpu_api, {'count': 1, 'model': A100, 'start': future(24),
                      'end': future(48), 'allowed_projects': ['project-b'],
                      'managing_projects': ['project-c', 'project-a'],
                      'domains': ['gpu-vm-3']}, headers=ADMIN)
    gpu_api.tick()
    statements = []

    def count(conn, cursor, statement, *args):
        statements.append(statement)

    engine = db_api.get_engine()
    sa.event.listen(engine, 'before_cursor_execute', count)
    try:
        listed = app.get(URL, {'all_projects': '1'}, headers=ADMIN).json[
            'device_reservations']
        three = len(statements)
        app.get(URL, {'all_projects': '1', 'limit': '1'}, headers=ADMIN)
    finally:
        sa.event.remove(engine, 'before_cursor_execute', count)
    # No query per reservation.
    assert len(statements) - three == three
    assert len(listed) == 3
    assert None in {r['lease_id'] for r in listed}
    for item in listed:
        assert item == _show(gpu_api, item['id'], headers=ADMIN).json[
            'device_reservation']


def test_changes_to_a_reservation_that_is_over_are_409(gpu_api, a100):
    rsv = _create(gpu_api, {'count': 1, 'model': A100,
                            'domains': ['gpu-vm-2']}).json[
        'device_reservation']
    app, url = gpu_api.app, '%s/%s' % (URL, rsv['id'])
    app.delete(url, headers=MEMBER_A)
    gpu_api.tick()
    assert_error(app.patch_json(url, {'end': future(5)}, headers=ADMIN,
                                expect_errors=True), 409,
                 'reserve.invalid_state')
    assert_error(app.post_json(url + '/attach', {'domain': 'gpu-vm-3'},
                               headers=MEMBER_A, expect_errors=True), 409,
                 'reserve.invalid_state')
    assert_error(app.patch_json(url, {'domains': ['gpu-vm-3']},
                                headers=MEMBER_A, expect_errors=True), 409,
                 'reserve.invalid_state')
    assert_error(app.post_json(url + '/detach', {'domain': 'gpu-vm-2'},
                               headers=MEMBER_A, expect_errors=True), 400,
                 detail_has='holds no unit')
    assert _show(gpu_api, rsv['id']).json['device_reservation'][
        'status'] == 'cancelled'


def test_an_end_in_the_past_is_400(gpu_api, a100):
    rsv = _create(gpu_api, {'count': 1, 'model': A100}).json[
        'device_reservation']
    response = gpu_api.app.patch_json('%s/%s' % (URL, rsv['id']), {
        'end': '2020-01-01T00:00:00Z'}, headers=ADMIN, expect_errors=True)
    assert_error(response, 400, 'reserve.invalid')
    assert _show(gpu_api, rsv['id']).json['device_reservation'][
        'end'] is None


# functions that share hardware ---------------------------------------------

def test_selection_never_offers_a_vf_of_a_held_pf(gpu_api, a100):
    pf = gpu_api.unit(a100, '0000:31:00.0')
    _create(gpu_api, {'unit_ids': [gpu_api.unit(a100, '0000:17:00.0'),
                                   gpu_api.unit(a100, '0000:b1:00.0')]})
    held = _create(gpu_api, {'unit_ids': [pf]}).json['device_reservation']
    gpu_api.tick()
    # The four virtual functions of 0000:31:00.0 would fit but for it.
    for body, headers in (({'count': 1, 'model': A100}, MEMBER_A),
                          ({'count': 1}, MEMBER_B)):
        assert_error(_create(gpu_api, body, headers=headers,
                             expect_errors=True), 409,
                     'reserve.devices_do_not_fit', 'at most 0 fit')
        dry = gpu_api.app.post_json(URL + '?dry_run=true', body,
                                    headers=headers).json['dry_run']
        assert dry['fits'] is False
    response = _create(gpu_api, {'unit_ids': [gpu_api.unit(
        a100, '0000:31:00.4')]}, headers=MEMBER_B, expect_errors=True)
    assert_error(response, 409, 'reserve.units_unavailable',
                 'shares hardware with 0000:31:00.0')
    assert held['id'] not in response.json['errors'][0]['detail']
    # Nor later, over a window the PF still holds.
    response = _create(gpu_api, {'count': 1, 'start': future(24),
                                 'end': future(48)}, expect_errors=True)
    assert_error(response, 409, 'reserve.devices_do_not_fit')


def test_selection_never_offers_a_pf_whose_vf_is_held(gpu_api, a100):
    vf = gpu_api.unit(a100, '0000:31:00.4')
    _create(gpu_api, {'unit_ids': [vf]})
    gpu_api.tick()
    response = _create(gpu_api, {'unit_ids': [gpu_api.unit(
        a100, '0000:31:00.0')]}, headers=MEMBER_B, expect_errors=True)
    assert_error(response, 409, 'reserve.units_unavailable',
                 'shares hardware with 0000:31:00.4')
    # Whole GPUs first, then the other virtual functions: never the PF.
    rsv = _create(gpu_api, {'count': 5, 'model': A100},
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
    rsv = _create(gpu_api, body).json['device_reservation']
    assert rsv['host'] == host
    assert [u['pci_address'] for u in rsv['units']] == [pci_address]
    gpu_api.tick()
    rsv = _show(gpu_api, rsv['id']).json['device_reservation']
    assert [(a['domain'], a['state']) for a in rsv['attachments']] == [
        (domains[0], 'attached')]


@pytest.mark.parametrize('body,detail', [
    ({'count': 1, 'domains': ['gpu-vm-9']},
     'No host has domain gpu-vm-9; hosts considered (the reservable hosts '
     'with units of the request): gpu-a100-01, gpu-t4-01.'),
    ({'count': 1, 'domains': ['gpu-vm-2', 'vgpu-vm-2']},
     'No host has all of the domains gpu-vm-2, vgpu-vm-2; hosts considered '
     '(the reservable hosts with units of the request): gpu-a100-01 (has '
     'gpu-vm-2), gpu-t4-01 (has vgpu-vm-2).'),
    ({'count': 1, 'model': 'Tesla T4', 'domains': ['gpu-vm-2']},
     'No host has domain gpu-vm-2; hosts considered (the reservable hosts '
     'with units of the request): gpu-t4-01.'),
])
def test_domains_no_host_has_are_400(gpu_api, two_hosts, body, detail):
    for url in (URL, URL + '?dry_run=true'):
        error = assert_error(_create(gpu_api, body, expect_errors=True,
                                     url=url), 400,
                             'reserve.domain_not_found')
        assert error['detail'] == detail
    assert _counts() == dict.fromkeys(CLAIM_TABLES, 0)


def test_domains_on_a_host_without_room_is_409(gpu_api, two_hosts):
    body = {'count': 4, 'domains': ['gpu-vm-2']}
    response = _create(gpu_api, body, expect_errors=True)
    assert_error(response, 409, 'reserve.devices_do_not_fit',
                 '4 unit(s) wanted on a host with domain gpu-vm-2; at most '
                 '3 fit together on one host')
    dry = gpu_api.app.post_json(URL + '?dry_run=true', body,
                                headers=MEMBER_A).json['dry_run']
    assert dry['fits'] is False and 'domain gpu-vm-2' in dry['reason']


def test_a_named_host_or_units_keep_their_domain_check(gpu_api, two_hosts):
    t4 = gpu_api.unit(two_hosts[1], '0000:d8:00.0')
    for body in ({'count': 1, 'host': 'gpu-t4-01', 'domains': ['gpu-vm-2']},
                 {'unit_ids': [t4], 'domains': ['gpu-vm-2']}):
        for url in (URL, URL + '?dry_run=true'):
            assert_error(_create(gpu_api, body, expect_errors=True,
                                 url=url), 400, 'reserve.domain_not_found',
                         'Domain gpu-vm-2 does not exist on host gpu-t4-01.')
    assert _counts() == dict.fromkeys(CLAIM_TABLES, 0)
