"""/v1/device-reservations: what changes a reservation once made (its
domains, its end, its review), and the list, through the whole WSGI
stack as in test_device_reservations_api."""
import sqlalchemy as sa

from reserve.db import api as db_api
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import future
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.functional.devices.reservations import A100
from tests.functional.devices.reservations import create
from tests.functional.devices.reservations import show
from tests.functional.devices.reservations import URL


# changes ---------------------------------------------------------------------

def test_patch_domains_and_the_admin_fields(gpu_api, a100):
    rsv = create(gpu_api, {'count': 2, 'model': A100, 'numa_local': True,
                           'domains': ['gpu-vm-2']}).json[
        'device_reservation']
    gpu_api.tick()
    rsv = show(gpu_api, rsv['id']).json['device_reservation']
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
    rsv = create(gpu_api, {'count': 1, 'model': 'Tesla T4',
                           'mdev_type': 'nvidia-222'}).json[
        'device_reservation']
    gpu_api.tick()
    app, url = gpu_api.app, '%s/%s' % (URL, rsv['id'])
    for domain in ('vgpu-vm-2', 'vgpu-vm-3'):
        app.post_json(url + '/attach', {'domain': domain}, headers=MEMBER_A)
    shown = show(gpu_api, rsv['id']).json['device_reservation']
    assert shown['domains'] == ['vgpu-vm-2', 'vgpu-vm-3']
    assert all(a['kind'] == 'mdev' and a['state'] == 'attached'
               for a in shown['attachments'])
    assert gpu_api.domain(t4, 'vgpu-vm-3')['hostdevs'][0]['kind'] == 'mdev'
    app.post_json(url + '/detach', {'domain': 'vgpu-vm-3'},
                  headers=MEMBER_A)
    assert gpu_api.domain(t4, 'vgpu-vm-3')['hostdevs'] == []
    assert_error(app.post_json(url + '/detach', {'domain': 'vgpu-vm-3'},
                               headers=MEMBER_A, expect_errors=True), 400,
                 detail_has='holds no device')
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
    rsv = create(gpu_api, {'unit_ids': [gpu_api.device(a100, '0000:17:00.0')],
                           'domains': ['gpu-vm-2']}).json[
        'device_reservation']
    gpu_api.tick()
    gpu_api.topology_change(a100, lambda text: text.replace(
        "<iommuGroup number='150'>", "<iommuGroup number='151'>", 1))
    app = gpu_api.app
    report = app.post('/v1/hosts/%s/refresh' % a100['id'],
                      headers=ADMIN).json['refresh']
    assert report['needs_review'] == [rsv['id']]
    shown = show(gpu_api, rsv['id']).json['device_reservation']
    assert shown['status'] == 'needs-review'
    assert shown['attachments'][0]['state'] == 'planned'
    assert gpu_api.domain(a100, 'gpu-vm-2')['hostdevs'] == []
    # Its device stays withheld from everyone.
    assert_error(create(gpu_api, {'unit_ids': [rsv['unit_ids'][0]]},
                        headers=ADMIN, expect_errors=True), 409)
    affirmed = app.post('%s/%s/affirm' % (URL, rsv['id']),
                        headers=ADMIN).json['device_reservation']
    assert affirmed['status'] == 'active'
    assert affirmed['topology_generation'] != rsv['topology_generation']
    assert affirmed['status_reason'].startswith('affirmed by root')
    assert gpu_api.domain(a100, 'gpu-vm-2')['hostdevs']


def test_list_filters(gpu_api, a100):
    t4 = gpu_api.enroll('t4-host.xml')
    create(gpu_api, {'count': 1, 'model': A100})
    create(gpu_api, {'count': 1, 'model': 'Tesla T4'})
    create(gpu_api, {'count': 1, 'model': A100}, headers=MEMBER_B)
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
    over = create(gpu_api, {
        'unit_ids': [gpu_api.device(a100, '0000:b1:00.0')],
        'domains': ['gpu-vm-2']}).json['device_reservation']
    gpu_api.tick()
    assert app.delete('%s/%s' % (URL, over['id']),
                      headers=MEMBER_A).status_int == 204
    gpu_api.tick()
    create(gpu_api, {'count': 2, 'model': A100, 'domains': ['gpu-vm-2'],
                     'contract_ref': 'C-1', 'reason': 'thesis'})
    create(gpu_api, {'count': 1, 'model': A100, 'start': future(24),
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
        assert item == show(gpu_api, item['id'], headers=ADMIN).json[
            'device_reservation']


def test_changes_to_a_reservation_that_is_over_are_409(gpu_api, a100):
    rsv = create(gpu_api, {'count': 1, 'model': A100,
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
                               headers=MEMBER_A, expect_errors=True), 409,
                 'reserve.invalid_state', detail_has='is cancelled')
    assert show(gpu_api, rsv['id']).json['device_reservation'][
        'status'] == 'cancelled'


def test_an_end_in_the_past_is_400(gpu_api, a100):
    rsv = create(gpu_api, {'count': 1, 'model': A100}).json[
        'device_reservation']
    response = gpu_api.app.patch_json('%s/%s' % (URL, rsv['id']), {
        'end': '2020-01-01T00:00:00Z'}, headers=ADMIN, expect_errors=True)
    assert_error(response, 400, 'reserve.invalid')
    assert show(gpu_api, rsv['id']).json['device_reservation'][
        'end'] is None
